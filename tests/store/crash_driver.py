"""A whole two-tool turn in one process, for the crash tests.

    python -m tests.store.crash_driver DB TOOL_LOG [KILL_AT]

Runs (or resumes) conversation "crash" on DB (a SQLite file or a
postgresql:// URL) until the turn is final, then prints the canonical
history as hex and the number of store writes made. With KILL_AT=k the
process SIGKILLs itself at store write step k: step 3n is just before the
n-th write, 3n+1 inside its transaction with every statement run but not
committed, 3n+2 just after it.

The client's part is played here too: it runs a "tool" by appending one line
to TOOL_LOG (flushed and fsynced) and, asked again for an operation it has
already run (the server resends after a restart), answers from that log.
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
from cursor_byok.llm.types import RequestMessages, TextContent, ToolResultMessage
from cursor_byok.loop import CallClient, Final, Status, ToolResult
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import CommitRequest, InputCommit, StagedBatch
from cursor_byok.store.database import parse_database
from cursor_byok.store.executor import Executor
from cursor_byok.store.opener import open_store
from cursor_byok.store.sql_store import SQLStore
from tests.factories import assistant, start, stream_of, tool_call
from tests.fakes import ScriptedStream
from tests.store.hooked_stage import HookedStage

CONVERSATION = "crash"
TOOL_TURN = assistant(TextContent("Reading both."), tool_call("t1", "a.txt"), tool_call("t2", "b"))
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

    def save_client_operation(self, *args: Any) -> None:
        self._write("save_client_operation", *args)


class ByHistoryLLM:
    """The model's answer depends only on the request: replays are identical."""

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        script: list[ResponseEvent] = stream_of(
            TOOL_TURN if len(request.messages) == 1 else FINAL_TURN, chunk=3
        )
        return ScriptedStream(script)


class Client:
    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.inbox: asyncio.Queue[Outbound] = asyncio.Queue()

    def publish(self, conversation_id: str, item: Outbound) -> None:
        self.inbox.put_nowait(item)

    def ran(self) -> dict[str, str]:
        if not self.log_path.exists():
            return {}
        lines = self.log_path.read_text().splitlines()
        return {entry["op"]: entry["out"] for entry in map(json.loads, lines)}

    def run_tool(self, call: CallClient) -> str:
        done = self.ran()
        if call.operation_id in done:
            return done[call.operation_id]
        output = f"contents of {call.tool_call.arguments['path']}"
        with self.log_path.open("a") as log:
            log.write(json.dumps({"op": call.operation_id, "out": output}) + "\n")
            log.flush()
            os.fsync(log.fileno())
        return output


async def main(db: str, log_path: str, kill_at: int | None) -> None:
    opened = open_store(parse_database(db))
    assert isinstance(opened, SQLStore)
    store = KillingStore(opened, kill_at)
    client = Client(Path(log_path))
    runner = Runner(store, ByHistoryLLM(), client, retry=RetryPolicy(3, 0.001, 0.01))
    await runner.recover()
    await runner.submit(CONVERSATION, "run:0", start("read a and b"))
    while True:
        state = await runner.state_of(CONVERSATION)
        assert state is not None
        if state.status is Status.FINAL:
            break
        item = await asyncio.wait_for(client.inbox.get(), timeout=20)
        if isinstance(item, CallClient):
            output = client.run_tool(item)
            message = ToolResultMessage(
                item.tool_call.id, item.tool_call.name, (TextContent(output),), timestamp=5
            )
            await runner.submit(CONVERSATION, f"client:{item.operation_id}", ToolResult(message))
        elif isinstance(item, Final):
            continue
    await runner.close()
    loaded = store.load(CONVERSATION)
    assert loaded is not None
    print(serialize_messages(loaded.state.messages).hex())
    print(store.steps // 3)
    store.close()


if __name__ == "__main__":
    kill = int(sys.argv[3]) if len(sys.argv) > 3 else None
    asyncio.run(main(sys.argv[1], sys.argv[2], kill))
