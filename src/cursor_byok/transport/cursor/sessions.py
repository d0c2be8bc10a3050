"""Agent sessions: one per RunSSE request id, joining its appends and its stream.

A session orders its appends (`AppendInbox`), turns them into loop inputs
through the dialect, and owns the one ordered send queue of its stream: the
runner's output for the session's conversation is encoded and queued here,
and only the RunSSE writer takes from the queue. A dropped RunSSE is not a
cancel: output stays queued for a reconnect, and only after a grace period
without any reader is the turn canceled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.commands import CallClient, Canceled, Failed, Final
from cursor_byok.loop.inputs import Cancel, Input, ToolResult, UserInput
from cursor_byok.loop.state import Status
from cursor_byok.runtime.runner import Outbound, Runner
from cursor_byok.transport.cursor import dialect
from cursor_byok.transport.cursor.append_inbox import AppendInbox
from cursor_byok.transport.cursor.tools import NativeTool, NextExec, ToolOutcome, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.wire.codec import Codec, CodecError, decode_message
from cursor_byok.transport.wire.errors import WireError

log = logging.getLogger(__name__)

RECONNECT_GRACE_S = 120.0
ENDED_SESSION_TTL_S = 300.0
IDLE_SESSION_TTL_S = 3600.0
STASH_LIMIT = 10_000


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """The last item of a stream: success (`error` None) or a Connect error."""

    error: WireError | None = None


QueueItem = pb.AgentServerMessage | EndOfStream


@dataclass(slots=True)
class PendingExec:
    call: ToolCall
    tool: NativeTool
    operation_id: str
    number: int
    shell: dialect.ShellCollector | None = None
    exec_id: str = ""
    memo: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Counters:
    """What went wrong quietly (the protocol wants 200s), for logs and metrics."""

    undecodable_appends: int = 0
    late_appends: int = 0
    unknown_exec_results: int = 0
    ignored_messages: int = 0
    failed_appends: int = 0


@dataclass(eq=False)
class Session:
    request_id: str
    inbox: AppendInbox = field(default_factory=AppendInbox)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    outbox: asyncio.Queue[QueueItem] = field(default_factory=asyncio.Queue)
    conversation_id: str | None = None
    context: dialect.StreamContext = field(default_factory=dialect.StreamContext)
    tools: ToolSet = field(default_factory=ToolSet.for_run)
    execs: dict[str, PendingExec] = field(default_factory=dict)
    readers: int = 0
    ended: bool = False
    touched: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    grace: asyncio.Task[None] | None = None

    def put(self, item: QueueItem) -> None:
        if self.ended:
            return
        self.outbox.put_nowait(item)
        if isinstance(item, EndOfStream):
            self.ended = True
            self.ended_at = time.monotonic()

    def __post_init__(self) -> None:
        self.context.stream_id = self.request_id

    def input_id(self, seqno: int | str) -> str:
        """Request id + seqno, plus a digest of the run's first message: a
        request id reused for a new run (seqno back at 0) must not look like
        a duplicate of the old run's inputs, even after a server restart."""
        run = (self.inbox.first_digest or b"").hex()[:16]
        return f"{self.request_id}:{run}:{seqno}"

    def reset(self) -> None:
        """The request id was reused for a new run (seqno restarted at 0)."""
        self.outbox = asyncio.Queue()
        self.context = dialect.StreamContext(stream_id=self.request_id)
        self.execs.clear()
        self.ended = False
        self.ended_at = None


class SessionHub:
    """All live sessions, and the runner's sink: it routes a conversation's
    output to the session currently serving that conversation."""

    def __init__(
        self,
        context_window: Callable[[str], int] = lambda _model: 200_000,
        clock: Callable[[], float] = time.time,
        grace_s: float = RECONNECT_GRACE_S,
    ) -> None:
        self.runner: Runner | None = None
        self.sessions: dict[str, Session] = {}
        self.serving: dict[str, Session] = {}
        self.stash: dict[str, list[Outbound]] = {}
        self.counters = Counters()
        self._context_window = context_window
        self._clock = clock
        self._grace_s = grace_s
        self._tasks: set[asyncio.Task[None]] = set()

    def attach_runner(self, runner: Runner) -> None:
        self.runner = runner

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def session(self, request_id: str) -> Session:
        session = self.sessions.get(request_id)
        if session is None:
            self._sweep()
            session = Session(request_id)
            self.sessions[request_id] = session
        session.touched = time.monotonic()
        return session

    def _sweep(self) -> None:
        now = time.monotonic()
        for request_id, session in list(self.sessions.items()):
            ended_long_ago = (
                session.ended_at is not None and now - session.ended_at > ENDED_SESSION_TTL_S
            )
            idle = now - session.touched > IDLE_SESSION_TTL_S and session.readers == 0
            if ended_long_ago or idle:
                del self.sessions[request_id]

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background submit failed", exc_info=task.exception())

    def end_all_streams(self, error: WireError) -> int:
        """Shutting down: end every open stream now with a retryable error, so
        clients reconnect (to the restarted server) instead of waiting. What
        was committed stays; the restarted runner resumes the rest."""
        ended = 0
        for session in self.sessions.values():
            if not session.ended:
                session.put(EndOfStream(error))
                ended += 1
            elif session.readers:
                session.outbox.put_nowait(EndOfStream(error))
                ended += 1
        self.serving.clear()
        return ended

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- the sink --------------------------------------------------------------------------

    def publish(self, conversation_id: str, item: Outbound) -> None:
        session = self.serving.get(conversation_id)
        if session is None or session.ended:
            # No stream serves the conversation right now (e.g. resumed after a
            # restart before the client reconnected): keep it for the next one.
            # Deltas are only cosmetic; past a bound, keep just the commands.
            kept = self.stash.setdefault(conversation_id, [])
            if len(kept) < STASH_LIMIT or not isinstance(item, ResponseEvent):
                kept.append(item)
            return
        self._emit(session, conversation_id, item)

    def _emit(self, session: Session, conversation_id: str, item: Outbound) -> None:
        now = self._clock()
        match item:
            case CallClient():
                try:
                    self._call_client(session, conversation_id, item)
                except Exception as error:  # e.g. arguments the exec message cannot hold
                    log.exception("could not send tool call %s", item.tool_call.id)
                    outcome = ToolOutcome(f"The tool call could not be sent: {error}", True)
                    self._spawn(
                        self._submit_result(conversation_id, item.operation_id, item.tool_call,
                                            outcome)
                    )  # fmt: skip
            case Final():
                for message in dialect.encode_final(item, session.context):
                    session.put(message)
                session.put(EndOfStream())
                self._release(session, conversation_id)
            case Failed() | Canceled():
                session.put(EndOfStream(dialect.error_for(item)))
                self._release(session, conversation_id)
            case _:
                for message in dialect.encode_event(item, session.context, session.tools, now):
                    session.put(message)

    def _release(self, session: Session, conversation_id: str) -> None:
        if self.serving.get(conversation_id) is session:
            del self.serving[conversation_id]

    def _call_client(self, session: Session, conversation_id: str, command: CallClient) -> None:
        call = command.tool_call
        tool = session.tools.get(call.name)
        if tool is None:
            outcome = ToolOutcome(
                f"Unknown tool {call.name!r}; use one of the tools offered.", True
            )
            self._spawn(self._submit_result(conversation_id, command.operation_id, call, outcome))
            return
        if any(p.operation_id == command.operation_id for p in session.execs.values()):
            return  # already asked on this stream
        number, messages = dialect.encode_call_client(command, tool, session.context)
        shell = None
        if tool.exec_field == "shell_stream_args":
            args = tool.exec_args(call)
            shell = dialect.ShellCollector(args.command, args.working_directory)
        session.execs[command.operation_id] = PendingExec(
            call, tool, command.operation_id, number, shell, command.operation_id
        )
        for message in messages:
            session.put(message)

    async def _submit_result(
        self, conversation_id: str, input_id: str, call: ToolCall, outcome: ToolOutcome
    ) -> None:
        assert self.runner is not None
        message = dialect.tool_result_message(call, outcome, self._now_ms())
        await self.runner.submit(conversation_id, input_id, ToolResult(message))

    # -- appends ---------------------------------------------------------------------------

    async def append(self, request_id: str, seqno: int, payload: bytes) -> None:
        """Take one BidiAppend. Never raises for bad client data: the official
        client aborts the whole run on a failed append."""
        session = self.session(request_id)
        async with session.lock:
            restarts = session.inbox.stats.restarts
            due = session.inbox.offer(seqno, payload)
            if session.inbox.stats.restarts != restarts:
                session.reset()
            for number, data in due:
                try:
                    await self._deliver(session, number, data)
                except Exception:
                    # Counted and logged; the append still gets its 200, and
                    # the messages after it are still delivered.
                    self.counters.failed_appends += 1
                    log.exception("request %s: append %d failed", request_id, number)

    async def _deliver(self, session: Session, seqno: int, data: bytes) -> None:
        try:
            message = decode_message(data, pb.AgentClientMessage, Codec.PROTO)
        except CodecError:
            self.counters.undecodable_appends += 1
            log.info("request %s: append %d does not decode; ignored", session.request_id, seqno)
            return
        event = dialect.decode_client_message(message, session.request_id, self._now_ms())
        input_id = session.input_id(seqno)
        match event:
            case dialect.RunStarted():
                await self._run_started(session, event, input_id)
            case dialect.ExecReply():
                await self._exec_reply(session, event, input_id)
            case dialect.ExecThrown(number=number, error=error):
                pending = self._pending_by_number(session, number)
                if pending is None:
                    self.counters.unknown_exec_results += 1
                    return
                await self._finish_exec(session, pending, None, ToolOutcome(error, True), input_id)
            case dialect.CancelRequested(reason=reason):
                await self._submit(session, input_id, Cancel(reason, self._now_ms()))
            case dialect.FollowUp(message=user):
                await self._submit(session, input_id, UserInput(user))
            case dialect.Ignored():
                self.counters.ignored_messages += 1

    async def _submit(self, session: Session, input_id: str, input: Input) -> None:
        if session.conversation_id is None or self.runner is None:
            self.counters.late_appends += 1
            return
        await self.runner.submit(session.conversation_id, input_id, input)

    async def _run_started(
        self, session: Session, event: dialect.RunStarted, input_id: str
    ) -> None:
        assert self.runner is not None
        conversation_id = event.conversation_id
        session.conversation_id = conversation_id
        session.tools = event.tools
        session.context.context_window = self._context_window(event.model)
        previous = self.serving.get(conversation_id)
        self.serving[conversation_id] = session
        if previous is not None and previous is not session:
            previous.put(EndOfStream())  # a newer stream took the conversation over
        if event.start is not None:
            # A new message: output of an earlier turn nobody picked up is
            # stale (its result is in history); it must not open this stream.
            self.stash.pop(conversation_id, None)
            await self.runner.submit(conversation_id, input_id, event.start)
        # Output produced while no stream served the conversation goes first.
        for item in self.stash.pop(conversation_id, []):
            self._emit(session, conversation_id, item)
        if not session.ended:
            await self._resume(session, conversation_id, new_turn=event.start is not None)

    async def _resume(self, session: Session, conversation_id: str, new_turn: bool) -> None:
        """A stream that takes over a conversation picks up its turn in flight:
        a tool request the old stream carried is asked again. A resume with
        nothing in flight ends at once, so the client is never left waiting."""
        assert self.runner is not None
        state = await self.runner.state_of(conversation_id)
        idle = state is None or state.status in (
            Status.READY, Status.FINAL, Status.FAILED, Status.CANCELED,
        )  # fmt: skip
        if idle and new_turn:
            return
        if state is None or idle:
            session.put(dialect.turn_ended(session.context.usage))
            session.put(EndOfStream())
            self._release(session, conversation_id)
            return
        if state.status is Status.WAITING_CLIENT and state.waiting is not None:
            # The client lost the exec request with its old stream: ask again
            # (same operation id; asked once per stream).
            waiting = state.waiting
            self._call_client(
                session, conversation_id, CallClient(waiting.operation_id, waiting.current)
            )

    def _pending_by_number(self, session: Session, number: int) -> PendingExec | None:
        return next((p for p in session.execs.values() if p.number == number), None)

    async def _exec_reply(self, session: Session, event: dialect.ExecReply, input_id: str) -> None:
        pending = session.execs.get(event.exec_id) or self._pending_by_number(session, event.number)
        if pending is None:
            self.counters.unknown_exec_results += 1
            return
        final = pending.shell.feed(event.message) if pending.shell else event.message
        if final is None:
            return  # more of a shell stream to come
        step = pending.tool.step(pending.call, final, pending.memo)
        if isinstance(step, NextExec):
            # A tool made of several execs (edit: read, then write).
            del session.execs[pending.exec_id]
            pending.number = session.context.exec_number()
            pending.exec_id = f"{pending.operation_id}#{pending.number}"
            request = pb.ExecServerMessage(id=pending.number, exec_id=pending.exec_id)
            getattr(request, step.field).CopyFrom(step.args)
            session.execs[pending.exec_id] = pending
            session.put(pb.AgentServerMessage(exec_server_message=request))
            return
        await self._finish_exec(session, pending, final, step, input_id)

    async def _finish_exec(
        self,
        session: Session,
        pending: PendingExec,
        result: pb.ExecClientMessage | None,
        outcome: ToolOutcome,
        input_id: str,
    ) -> None:
        session.execs.pop(pending.exec_id, None)
        session.put(
            dialect.encode_tool_completed(pending.call, pending.tool, result, session.context)
        )
        message = dialect.tool_result_message(pending.call, outcome, self._now_ms())
        await self._submit(session, input_id, ToolResult(message))

    # -- the stream ------------------------------------------------------------------------

    def reader_attached(self, session: Session) -> None:
        session.readers += 1
        if session.grace is not None:
            session.grace.cancel()
            session.grace = None

    def reader_detached(self, session: Session) -> None:
        session.readers -= 1
        if session.readers == 0 and not session.ended and session.conversation_id is not None:
            session.grace = asyncio.ensure_future(self._cancel_after_grace(session))

    async def _cancel_after_grace(self, session: Session) -> None:
        await asyncio.sleep(self._grace_s)
        if session.readers == 0 and not session.ended and session.conversation_id is not None:
            log.info(
                "request %s: no reader for %.0fs; canceling", session.request_id, self._grace_s
            )
            input_id = session.input_id("disconnected")
            await self._submit(session, input_id, Cancel("client disconnected", self._now_ms()))
