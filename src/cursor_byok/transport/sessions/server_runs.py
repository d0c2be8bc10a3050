"""Running the tools the server runs itself (`dialect.server_tool`).

When the loop asks for a call of a `ServerTool`, the session does not send
an exec: it sends the started card, runs the tool in a task of its own, and
when the run is over sends the completed card and feeds the outcome back
through the same door an exec's result comes in (`ServerToolHost.finish`:
one `ToolResult` under the call's operation id). So history, the store's
records, duplicates and a restart treat both alike: a result already
committed is not taken twice, and a call asked again after a restart (or on
a stream that took the turn over) runs again.

A run may wait on the client through interaction queries (`context.ask`):
the query goes out on the stream, the answer comes back as an
`interaction_response` (`QueryAnswered`), and a bounded wait ends with None
when no answer comes. The stream's writer keeps sending heartbeats
meanwhile. Runs are canceled with the turn (a cancel or failure reaching the
stream), when another stream takes the turn over (it asks the call again)
and when the server shuts down.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.commands import CallClient
from cursor_byok.loop.inputs import ToolResult
from cursor_byok.loop.state import ConversationState
from cursor_byok.runtime.child_status import ChildNow
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.subagent_links import LinkedChild
from cursor_byok.transport.dialect import dialect, input_ids
from cursor_byok.transport.dialect.clients import CAUTIOUS, Capabilities
from cursor_byok.transport.dialect.server_tool import QueryWaits, ServerOutcome, ServerTool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.child_links import ChildLinks
from cursor_byok.transport.sessions.request_context import Answers
from cursor_byok.transport.sessions.tool_execs import ToolExecs

log = logging.getLogger(__name__)


class ServerToolHost(Protocol):
    """What the session's server-run tools need from the server around them."""

    async def state_of(self, conversation_id: str) -> ConversationState | None:
        """The committed state (the runner's)."""
        ...

    async def finish(
        self, conversation_id: str, operation_id: str, call: ToolCall, result: ServerOutcome
    ) -> None:
        """Feed a finished call's outcome back, as an exec's result is."""
        ...

    def spawn(self, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
        """Run `work` as a task the server cancels when it shuts down."""
        ...

    def now_ms(self) -> int: ...

    @property
    def waits(self) -> QueryWaits:
        """How long a query waits for a person (`server_tool.QueryWaits`)."""
        ...

    async def child_of(self, conversation_id: str, tool_call_id: str) -> LinkedChild | None:
        """The child conversation a client started for the Task call, if any."""
        ...

    async def rested(self, child: LinkedChild, timeout_s: float) -> ChildNow | None:
        """The child as committed once its turn is over (None: not in time)."""
        ...


@dataclass(eq=False)
class RunnerHost:
    """The host the session hub gives its sessions: the runner's state, and
    results submitted as the client's exec results are (`SessionHub`)."""

    runner: Runner
    spawn: Callable[[Coroutine[object, object, None]], asyncio.Task[None]]
    now_ms: Callable[[], int]
    waits: QueryWaits = field(default_factory=QueryWaits)
    links: ChildLinks | None = None
    """Where a client-run subagent's Task call finds its child again."""

    async def child_of(self, conversation_id: str, tool_call_id: str) -> LinkedChild | None:
        return await self.links.child(conversation_id, tool_call_id) if self.links else None

    async def rested(self, child: LinkedChild, timeout_s: float) -> ChildNow | None:
        return await self.links.rested(child, timeout_s) if self.links else None

    async def state_of(self, conversation_id: str) -> ConversationState | None:
        return await self.runner.state_of(conversation_id)

    async def finish(
        self, conversation_id: str, operation_id: str, call: ToolCall, result: ServerOutcome
    ) -> None:
        message = dialect.tool_result_message(call, result.outcome, self.now_ms())
        input_id = input_ids.tool_result_id(operation_id)  # as an exec's result
        await self.runner.submit(
            conversation_id, input_id, ToolResult(message, result.todos, result.model_calls)
        )


class InteractionQueries(Answers[pb.InteractionResponse]):
    """The interaction queries asked on one stream, by query id."""

    def __init__(self) -> None:
        super().__init__()
        self._next = 1
        self._asked: set[int] = set()

    def ask(self, query: pb.InteractionQuery) -> pb.AgentServerMessage:
        """The message to send (its id filled in when the tool gave none);
        `wait` then waits for the answer."""
        if not query.id:
            query.id = self._next
            self._next += 1
        self._expect(query.id)
        self._asked.add(query.id)
        return pb.AgentServerMessage(interaction_query=query)

    def answer_any(self, number: int, response: pb.InteractionResponse) -> bool:
        """Take an answer by its id; an answer with an id no query on this
        stream has (some clients answer 0) goes to the one query waiting, if
        only one is. False for a late or repeated answer: its query was
        answered (or given up on) already, and it is not taken twice."""
        if self.answer(number, response):
            return True
        waiting = list(self._waiting)
        if number in self._asked or len(waiting) != 1:
            return False
        return self.answer(waiting[0], response)


@dataclass(eq=False)
class _Context:
    """A `dialect.server_tool.ToolContext` for one run."""

    conversation_id: str
    state: ConversationState
    call: ToolCall
    tool: ServerTool
    stream: dialect.StreamContext
    send: Callable[[pb.AgentServerMessage], None]
    queries: InteractionQueries
    host: ServerToolHost
    client: Capabilities = CAUTIOUS
    shown: set[str] = field(default_factory=set)
    """The calls whose started card went out on this stream (the stream's)."""
    execs: ToolExecs = field(default_factory=ToolExecs)

    def answers(self, query: str) -> bool:
        return self.client.answers(query)

    def now_ms(self) -> int:
        return self.host.now_ms()

    @property
    def waits(self) -> QueryWaits:
        return self.host.waits

    @property
    def mode(self) -> str:
        return self.stream.mode

    def started(self) -> None:
        self.started_too(self.call)

    def started_too(self, call: ToolCall) -> None:
        if call.id not in self.shown:
            self.shown.add(call.id)
            self.send(dialect.tool_started(call, self.tool, self.stream))

    def exec(self, key: str, field: str, args: Any) -> int:
        now = self.host.now_ms()
        return self.execs.send(key, field, args, self.stream.exec_number, now, self.send)

    async def exec_result(self, key: str, timeout_s: float) -> pb.ExecClientMessage | str | None:
        return await self.execs.result(key, timeout_s)

    async def child_of(self, call_id: str) -> LinkedChild | None:
        return await self.host.child_of(self.conversation_id, call_id)

    async def child_rested(self, child: LinkedChild, timeout_s: float) -> ChildNow | None:
        return await self.host.rested(child, timeout_s)

    async def ask(
        self, query: pb.InteractionQuery, timeout_s: float
    ) -> pb.InteractionResponse | None:
        self.send(self.queries.ask(query))
        return await self.queries.wait(query.id, timeout_s)

    @property
    def project_folder(self) -> str:
        return self.stream.project_folder

    async def write(self, path: str, text: str, timeout_s: float) -> pb.WriteResult | None:
        args = pb.WriteArgs(path=path, file_text=text, tool_call_id=self.call.id)
        key = f"server-write-{self.call.id}"
        self.exec(key, "write_args", args)
        reply = await self.exec_result(key, timeout_s)
        if not isinstance(reply, pb.ExecClientMessage):
            return None
        if reply.WhichOneof("message") != "write_result":
            return None
        return reply.write_result


class ServerRuns:
    """The server-run calls of one stream, by operation id."""

    def __init__(self, host: ServerToolHost | None = None) -> None:
        self.host = host
        self.queries = InteractionQueries()
        self.execs = ToolExecs()
        """The execs the server's tools sent on this stream (`tool_execs`)."""
        self._shown: set[str] = set()
        self._running: dict[str, asyncio.Task[None]] = {}
        self._done: set[str] = set()
        """Calls run to their end on this stream: asked again, not run again."""

    def __len__(self) -> int:
        return len(self._running)

    def asked(self, operation_id: str) -> bool:
        return operation_id in self._running or operation_id in self._done

    def start(
        self,
        conversation_id: str,
        command: CallClient,
        tool: ServerTool,
        stream: dialect.StreamContext,
        send: Callable[[pb.AgentServerMessage], None],
        client: Capabilities = CAUTIOUS,
    ) -> None:
        """Run one call; its cards go out through `send`, its queries only
        as far as `client` answers them."""
        if self.host is None:
            raise RuntimeError("this session cannot run server tools")
        run = self._run(conversation_id, command, tool, stream, send, self.host, client)
        task = self.host.spawn(run)
        self._running[command.operation_id] = task
        task.add_done_callback(lambda _t: self._running.pop(command.operation_id, None))

    async def _run(
        self,
        conversation_id: str,
        command: CallClient,
        tool: ServerTool,
        stream: dialect.StreamContext,
        send: Callable[[pb.AgentServerMessage], None],
        host: ServerToolHost,
        client: Capabilities,
    ) -> None:
        call = command.tool_call
        state = await host.state_of(conversation_id)
        if state is None:
            state = ConversationState(conversation_id)
        context = _Context(
            conversation_id,
            state,
            call,
            tool,
            stream,
            send,
            self.queries,
            host,
            client,
            self._shown,
            self.execs,
        )
        if tool.started_first:
            context.started()
        try:
            result = await tool.run(call, context)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("server tool %s failed", tool.name)
            result = tool.failed(call, str(error) or type(error).__name__)
        context.started()  # a run that never showed its card still does, before the end
        if result.mode is not None:
            stream.mode = result.mode  # the next checkpoint names it
        if result.subagent is not None:
            stream.turn.record_subagent(*result.subagent)  # so do the next checkpoints
        for message in dialect.tool_completed(call, result.card, stream):
            send(message)
        self._done.add(command.operation_id)
        await host.finish(conversation_id, command.operation_id, call, result)

    def cancel_all(self) -> None:
        """The turn is over here (canceled, failed, or taken over): stop."""
        for task in list(self._running.values()):
            task.cancel()
        self._running.clear()
        self.queries.cancel("the turn ended")
        self.execs.abort_all()
