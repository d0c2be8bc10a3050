"""A whole two-tool turn in one process, for the crash tests.

    python -m tests.store.crash_driver DB TOOL_LOG [KILL_AT|none] [SCENARIO]

Runs (or resumes) conversation "crash" on DB (a SQLite file or a
postgresql:// URL) until the turn is final, then prints the canonical
history as hex, the number of store writes made, and the usage recorded
(JSON: each row's user, model, calls and tokens, the budget
reservations left, and each model call's rows without their timings).
With KILL_AT=k the process SIGKILLs itself at store write step k: step 3n
is just before the n-th write, 3n+1 inside its transaction with every
statement run but not committed, 3n+2 just after it.
In the `reads` scenario the conversation is a user's with a budget, so
each model call's budget reservation is a write of its own.

The client's part is played here too: it runs a "tool" by appending one line
to TOOL_LOG (flushed and fsynced) and, asked again for an operation it has
already run (the server resends after a restart), answers from that log.

SCENARIO `fork`: after the two-tool turn a second turn, then the client
rewinds to the end of the first and sends another message: a branch that
keeps the first turn. It prints the branch's history and the forks too.

SCENARIO `child`: the parent's one tool is a Task call the server runs
itself: a child conversation (its key, first input and result text made by
the server's own functions, `subagent_launch`, `task_server`) that reads a
file, then answers; its answer is the Task call's result. Both histories
are printed, the parent's first.

SCENARIO `interrupted`: the first tool is a shell command whose run is cut
off. The client sends two pieces of its output, each logged once the server
took it (a piece the server never acknowledged is sent again after a
restart, one it did is not), and then, as the transport does for a command
whose connection was lost, the call's interruption; the second tool is a
read. Its history too must not depend on where a crash fell.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cursor_byok.llm.events import ResponseEvent, ResponseStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.serialize import serialize_messages
from cursor_byok.llm.types import (
    AssistantMessage,
    RequestMessages,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    last_answer,
)
from cursor_byok.loop import CallClient, Final, Status, ToolInterrupted, ToolProgress, ToolResult
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.runtime.rewinds import Rewinds
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import CommitRequest, InputCommit, StagedBatch
from cursor_byok.store.database import parse_database
from cursor_byok.store.executor import Executor
from cursor_byok.store.opener import open_store
from cursor_byok.store.owners import client_id_of, scoped
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.tokens import new_token
from cursor_byok.transport.dialect.dialect import tool_result_message
from cursor_byok.transport.dialect.input_ids import tool_result_id
from cursor_byok.transport.dialect.task_server import succeeded
from cursor_byok.transport.dialect.task_tool import TaskTool
from cursor_byok.transport.proto.agent.v1.agent_pb2 import SubagentPersistedState as Kept
from cursor_byok.transport.sessions.subagent_launch import (
    child_conversation_id,
    child_start,
    start_id,
)
from tests.factories import assistant, start, stream_of, tool_call
from tests.fakes import ScriptedStream
from tests.store.hooked_stage import HookedStage

CONVERSATION = "crash"
TOOL_TURN = assistant(TextContent("Reading both."), tool_call("t1", "a.txt"), tool_call("t2", "b"))
SHELL_TURN = assistant(
    TextContent("Building, then reading."),
    tool_call("t1", "build", name="run_terminal_cmd"),
    tool_call("t2", "b"),
)
PIECES = ("compiling a.c\n", "compiling b.c\n")
NOTE = "Interrupted: the connection to the client was lost while it ran the command `make`."
FINAL_TURN = assistant(TextContent("Both read."), timestamp=7)


class KillingStore:
    """A real store whose writes count steps; SIGKILLs this process at one."""

    def __init__(self, store: SQLStore, kill_at: int | None) -> None:
        self.store = store
        self.kill_at = kill_at
        self.steps = 0
        begin = store._transaction

        @contextlib.contextmanager
        def uncommitted_step(flush: bool = True) -> Iterator[Executor]:
            with begin(flush) as db:
                yield db
                self._step()

        store._transaction = uncommitted_step  # type: ignore[method-assign]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def _step(self) -> None:
        if self.kill_at is not None and self.steps == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        self.steps += 1

    def _write(self, name: str, *args: Any) -> Any:
        self._step()
        value = getattr(self.store, name)(*args)
        self._step()
        return value

    def commit_input(self, *args: Any) -> int:
        return int(self._write("commit_input", *args))

    def commit_new_input(self, *args: Any) -> int | InputCommit:
        value: int | InputCommit = self._write("commit_new_input", *args)
        return value

    def commit_batch(self, *args: Any) -> list[int | InputCommit | Exception]:
        answers: list[int | InputCommit | Exception] = self._write("commit_batch", *args)
        return answers

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        """A staged batch's three steps: before its statements, after them
        (uncommitted), after its commit (`KillingStage.finish`)."""
        self._step()
        staged: StagedBatch | None = self.store.stage_batch_now(requests)
        if staged is None:  # `commit_batch` writes it, and counts its own steps
            self.steps -= 1
            return None
        self._step()
        return HookedStage(staged, after=self._step)

    def save_llm_call(self, *args: Any) -> None:
        self._write("save_llm_call", *args)

    def reserve_budget(self, *args: Any) -> Any:
        return self._write("reserve_budget", *args)

    def save_client_operation(self, *args: Any) -> None:
        self._write("save_client_operation", *args)


TASK_TURN = assistant(
    TextContent("Delegating."),
    ToolCall("t1", "Task", {"description": "Read a", "prompt": "CHILD: read a.txt"}, "{}"),
)
CHILD_READ = assistant(TextContent("Reading."), tool_call("c1", "a.txt"), timestamp=3)
CHILD_ANSWER = assistant(TextContent("a.txt holds contents of a.txt"), timestamp=4)


class ChildAwareLLM:
    """As `ByHistoryLLM`, for a parent and the child its Task call starts."""

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        opening = request.messages[0]
        child = isinstance(opening, UserMessage) and str(opening.content).startswith("CHILD")
        if child:
            message = CHILD_READ if len(request.messages) == 1 else CHILD_ANSWER
        else:
            message = TASK_TURN if len(request.messages) == 1 else FINAL_TURN
        return ScriptedStream(stream_of(message, chunk=3))


class Subagent:
    """The server's part in a Task call, on the runner: start the child
    (once: its first input has the call's own id), and when it has ended,
    give the parent its answer (once: under the call's result id)."""

    def __init__(self, runner: Runner, parent: str) -> None:
        self.runner, self.parent = runner, parent
        self.asked: CallClient | None = None

    @property
    def child(self) -> str:
        """The child of the Task call (its key says whose it is; the turn may
        have ended before this process saw the call)."""
        return child_conversation_id(self.parent, "t1")

    async def start(self, call: CallClient) -> None:
        self.asked = call
        state = await self.runner.state_of(self.parent)
        assert state is not None
        task = TaskTool().parse(call.tool_call)
        begin = child_start(state, task, ())
        await self.runner.submit(self.child, start_id(self.child, call.tool_call.id), begin)
        await self.finish_if_ended()

    async def finish_if_ended(self) -> None:
        child = await self.runner.state_of(self.child)
        if self.asked is None or child is None or child.status is not Status.FINAL:
            return
        call = self.asked
        task = TaskTool().parse(call.tool_call)
        agent_id = client_id_of(self.child)
        done = succeeded(task, call.tool_call, agent_id, last_answer(child.messages), 0, Kept())
        message = tool_result_message(call.tool_call, done.outcome, 5)
        await self.runner.submit(
            self.parent, tool_result_id(call.operation_id), ToolResult(message)
        )


class ByHistoryLLM:
    """The model's answer depends only on the request: replays are identical."""

    def __init__(self, first: AssistantMessage = TOOL_TURN) -> None:
        self.first = first

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        script: list[ResponseEvent] = stream_of(
            self.first if len(request.messages) == 1 else FINAL_TURN, chunk=3
        )
        return ScriptedStream(script)


class Client:
    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.inbox: asyncio.Queue[tuple[str, Outbound]] = asyncio.Queue()

    def publish(self, conversation_id: str, item: Outbound) -> None:
        self.inbox.put_nowait((conversation_id, item))

    def entries(self) -> list[dict[str, str]]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines()]

    def ran(self) -> dict[str, str]:
        return {entry["op"]: entry["out"] for entry in self.entries() if "op" in entry}

    def log(self, entry: dict[str, str]) -> None:
        with self.log_path.open("a") as log:
            log.write(json.dumps(entry) + "\n")
            log.flush()
            os.fsync(log.fileno())

    async def cut_off(self, runner: Runner, call: CallClient) -> None:
        """The command runs once; its output goes out piece by piece until
        the connection is lost, and the call gets its interruption."""
        operation = call.operation_id
        if operation not in self.ran():
            self.log({"op": operation, "out": "(cut off)"})
        taken = {entry["piece"] for entry in self.entries() if "piece" in entry}
        for index, piece in enumerate(PIECES):
            if f"{operation}:{index}" in taken:
                continue  # acknowledged before: never sent again
            progress = ToolProgress(call.tool_call.id, piece)
            await runner.submit(CONVERSATION, f"client:{operation}:out:{index}", progress)
            self.log({"piece": f"{operation}:{index}"})
        interrupted = ToolInterrupted(call.tool_call.id, NOTE, timestamp=5)
        await runner.submit(CONVERSATION, f"client:{operation}", interrupted)

    def run_tool(self, call: CallClient) -> str:
        done = self.ran()
        if call.operation_id in done:
            return done[call.operation_id]
        output = f"contents of {call.tool_call.arguments['path']}"
        self.log({"op": call.operation_id, "out": output})
        return output


def usage_seen(store: SQLStore) -> str:
    """The usage rows without their day and timings (which differ run to
    run), how many reservations are left, and the model call rows without
    their times, as one JSON line."""
    rows = [
        [r.user_id, r.model, r.calls, r.input, r.output, r.cost_usd, r.unpriced_calls]
        for r in store.usage_rows("2000-01-01", "2999-12-31")
    ]
    with store._read() as db:
        (held,) = db.execute("SELECT count(*) FROM budget_reservations").fetchone()
        listed = "SELECT conversation_id FROM conversations ORDER BY conversation_id"
        conversations = [row[0] for row in db.execute(listed).fetchall()]
    calls = [
        [c.call_id, c.attempt, c.user_id, c.model, c.step, c.outcome, c.input, c.output, c.cost_usd]
        for conversation in conversations  # a subagent's own calls too
        for c in store.model_calls(conversation)
    ]
    return json.dumps({"usage": rows, "held": held, "calls": calls}, separators=(",", ":"))


async def main(db: str, log_path: str, kill_at: int | None, scenario: str) -> None:
    opened = open_store(parse_database(db))
    assert isinstance(opened, SQLStore)
    conversation = CONVERSATION
    if scenario in ("reads", "child"):  # a user with a budget: reservations are written too
        made = new_token()
        found = opened.user("ana")
        ana = found or opened.add_user("ana", made.token_id, made.token_hash, None, 100.0, "day")
        conversation = scoped(ana.id, CONVERSATION)
    store = KillingStore(opened, kill_at)
    client = Client(Path(log_path))
    llm = ByHistoryLLM(SHELL_TURN if scenario == "interrupted" else TOOL_TURN)
    model: ByHistoryLLM | ChildAwareLLM = ChildAwareLLM() if scenario == "child" else llm
    runner = Runner(store, model, client, retry=RetryPolicy(3, 0.001, 0.01))
    subagent = Subagent(runner, conversation)
    await runner.recover()
    await runner.submit(conversation, "run:0", start("read a and b"))
    await play(runner, client, conversation, subagent)
    branch = await rewound(runner, store, client, subagent) if scenario == "fork" else None
    await runner.close()
    loaded = store.load(conversation)
    assert loaded is not None
    history = serialize_messages(loaded.state.messages)
    if scenario == "child":
        child = store.load(subagent.child)
        assert child is not None
        history += b"\n--\n" + serialize_messages(child.state.messages)
    print(history.hex())
    print(store.steps // 3)
    print(usage_seen(opened))
    if branch is not None:
        forked = store.load(branch)
        assert forked is not None
        print(serialize_messages(forked.state.messages).hex())
        rows = [[f.branch, f.parent, f.point] for f in store.forks(conversation)]
        print(json.dumps(rows, separators=(",", ":")))
    store.close()


async def play(runner: Runner, client: Client, conversation: str, subagent: Subagent) -> None:
    """The client's part until the conversation's turn is final (a child's
    execs and end come through the same inbox, named by where they are)."""
    while True:
        state = await runner.state_of(conversation)
        assert state is not None
        if state.status is Status.FINAL:
            break
        where, item = await asyncio.wait_for(client.inbox.get(), timeout=20)
        if isinstance(item, CallClient) and item.tool_call.name == "Task":
            await subagent.start(item)
        elif isinstance(item, Final) and where != conversation:
            await subagent.finish_if_ended()
        elif isinstance(item, CallClient) and item.tool_call.name == "run_terminal_cmd":
            await client.cut_off(runner, item)
        elif isinstance(item, CallClient):
            output = client.run_tool(item)
            message = ToolResultMessage(
                item.tool_call.id, item.tool_call.name, (TextContent(output),), timestamp=5
            )
            await runner.submit(where, f"client:{item.operation_id}", ToolResult(message))
        elif isinstance(item, Final):
            continue


async def rewound(runner: Runner, store: KillingStore, client: Client, subagent: Subagent) -> str:
    """The `fork` scenario after the first turn: each turn's end is marked
    as the transport marks it (once, by the stream that played it: a mark a
    crash lost stays lost), then the client goes back to the first turn's
    checkpoint with a new message. Returns the branch."""
    rewinds = Rewinds(store, runner)
    first = await runner.state_of(CONVERSATION)
    assert first is not None
    if len(first.messages) == 5:  # the second turn has not begun
        rewinds.mark_turn(CONVERSATION, b"turn-1", 1)
        await rewinds.marked(CONVERSATION)
    await runner.submit(CONVERSATION, "run:1", start("and then?"))
    await play(runner, client, CONVERSATION, subagent)
    second = await runner.state_of(CONVERSATION)
    assert second is not None and len(second.messages) == 7
    rewinds.mark_turn(CONVERSATION, b"turn-2", 2)
    branch = await rewinds.place(CONVERSATION, (b"turn-1",), True, "run:2")
    await runner.submit(branch, "run:2", start("read them again"))
    await play(runner, client, branch, subagent)
    return branch


if __name__ == "__main__":
    kill = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "none" else None
    scenario = sys.argv[4] if len(sys.argv) > 4 else "reads"
    asyncio.run(main(sys.argv[1], sys.argv[2], kill, scenario))
