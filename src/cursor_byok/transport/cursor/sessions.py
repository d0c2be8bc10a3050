"""Agent sessions: one per RunSSE request id, joining its appends and its stream.

A session orders its appends (`AppendInbox`), turns them into loop inputs
through the dialect, and owns the one ordered send queue of its stream: the
runner's output for the session's conversation reaches it through the
`OutputSink`, is encoded here and queued, and only the RunSSE writer takes
from the queue. The registry keeps sessions across a dropped stream and
cancels the turn after the grace period; the exec tracker follows the tool
calls the client runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import assert_never

from cursor_byok.loop.commands import CallClient, Canceled, Emit, Failed, Final
from cursor_byok.loop.inputs import Cancel, Input, Start, ToolResult, UserInput
from cursor_byok.loop.state import IDLE_STATUSES, Status
from cursor_byok.runtime.runner import Outbound, Runner
from cursor_byok.transport.cursor import dialect
from cursor_byok.transport.cursor.append_inbox import AppendInbox
from cursor_byok.transport.cursor.exec_tracker import (
    ExecTracker,
    Finished,
    MoreToCome,
    SendNext,
    Unknown,
)
from cursor_byok.transport.cursor.memory_budget import (
    SESSION_BYTES,
    MemoryBudget,
    OverBudget,
    budget_key,
)
from cursor_byok.transport.cursor.meter import history_characters, turn_ended
from cursor_byok.transport.cursor.registry import RECONNECT_GRACE_S, SessionRegistry
from cursor_byok.transport.cursor.request_context import CONTEXT_WAIT_S, ContextRequests
from cursor_byok.transport.cursor.run_request import Refused, RunStarted, decode_run_request
from cursor_byok.transport.cursor.sink import OutputSink
from cursor_byok.transport.cursor.tools import ToolOutcome, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.wire.codec import Codec, CodecError, decode_message
from cursor_byok.transport.wire.errors import Code, WireError

log = logging.getLogger(__name__)

ToolFeedback = Callable[[str, CallClient, ToolOutcome], None]
"""Submit an outcome for a tool call the client was never asked to run."""


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """The last item of a stream: success (`error` None) or a Connect error."""

    error: WireError | None = None


QueueItem = pb.AgentServerMessage | EndOfStream


@dataclass(slots=True)
class Counters:
    """What went wrong quietly (the protocol wants 200s), for logs and metrics."""

    undecodable_appends: int = 0
    late_appends: int = 0
    unknown_exec_results: int = 0
    ignored_messages: int = 0
    failed_appends: int = 0
    over_budget_appends: int = 0
    """Appends ignored because their request id's state was dropped or failed."""


@dataclass(eq=False)
class Session:
    request_id: str
    feedback: ToolFeedback
    release: Callable[[Session, str], None]
    clock: Callable[[], float] = time.time
    inbox: AppendInbox = field(default_factory=AppendInbox)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    outbox: asyncio.Queue[QueueItem] = field(default_factory=asyncio.Queue)
    conversation_id: str | None = None
    context: dialect.StreamContext = field(default_factory=dialect.StreamContext)
    tools: ToolSet = field(default_factory=ToolSet.for_run)
    execs: ExecTracker = field(init=False)
    context_requests: ContextRequests = field(default_factory=ContextRequests)
    readers: int = 0
    ended: bool = False
    touched: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    grace: asyncio.Task[None] | None = None
    failed: str | None = None
    """Why the session lost input it needed (its turn was ended); later appends are ignored."""
    on_end: Callable[[Session], None] = lambda _session: None
    on_drop: Callable[[Session, str], None] = lambda _session, _reason: None

    def __post_init__(self) -> None:
        self.context.stream_id = self.request_id
        self.execs = ExecTracker(self.context.exec_number)

    def put(self, item: QueueItem) -> None:
        if self.ended:
            return
        self.outbox.put_nowait(item)
        if isinstance(item, EndOfStream):
            self.ended = True
            self.ended_at = time.monotonic()
            self.on_end(self)

    def idle(self) -> bool:
        """Nothing uses the session now: no stream reads it, no append is applied."""
        return self.readers == 0 and not self.lock.locked()

    def drop(self, reason: str) -> None:
        self.on_drop(self, reason)

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
        self.execs = ExecTracker(self.context.exec_number)
        self.context_requests = ContextRequests()
        self.ended = False
        self.ended_at = None

    def end(self, conversation_id: str, error: WireError | None = None) -> None:
        self.put(EndOfStream(error))
        self.release(self, conversation_id)

    # -- output: what the sink delivers -------------------------------------------------

    def deliver(self, conversation_id: str, item: Outbound) -> None:
        match item:
            case CallClient():
                try:
                    self.ask(conversation_id, item)
                except Exception as error:  # e.g. arguments the exec message cannot hold
                    log.exception("could not send tool call %s", item.tool_call.id)
                    outcome = ToolOutcome(f"The tool call could not be sent: {error}", True)
                    self.feedback(conversation_id, item, outcome)
            case Final():
                for message in dialect.encode_final(item, self.context):
                    self.put(message)
                self.end(conversation_id)
            case Failed() | Canceled():
                self.end(conversation_id, dialect.error_for(item))
            case _:
                self.show(item)  # typed: a new kind of output fails the type check here

    def show(self, event: Emit) -> None:
        for message in dialect.encode_event(event, self.context, self.tools, self.clock()):
            self.put(message)

    def ask(self, conversation_id: str, command: CallClient) -> None:
        """tool_call_started -> checkpoint -> exec request, once per stream."""
        call = command.tool_call
        tool = self.tools.get(call.name)
        if tool is None:
            text = f"Unknown tool {call.name!r}; use one of the tools offered."
            self.feedback(conversation_id, command, ToolOutcome(text, True))
            return
        if self.execs.asked(command.operation_id):
            return
        request = self.execs.start(call, tool, command.operation_id)
        for message in dialect.encode_call_client(command, tool, self.context, request):
            self.put(message)


class SessionHub:
    """All live sessions: appends in, each conversation's output out."""

    def __init__(
        self,
        runner: Runner,
        sink: OutputSink,
        context_window: Callable[[str], int] = lambda _model: 200_000,
        compact_at: float = 0.9,
        clock: Callable[[], float] = time.time,
        grace_s: float = RECONNECT_GRACE_S,
        budget: MemoryBudget | None = None,
        context_wait_s: float = CONTEXT_WAIT_S,
    ) -> None:
        self.runner = runner
        self.sink = sink
        self.budget = budget if budget is not None else MemoryBudget()
        self.counters = Counters()
        self.sessions: SessionRegistry[Session] = SessionRegistry(
            self._make, self._abandoned, grace_s, on_forget=self._forget
        )
        self._context_window = context_window
        self._compact_at = compact_at
        self._clock = clock
        self._context_wait_s = context_wait_s
        self._tasks: set[asyncio.Task[None]] = set()

    def _make(self, request_id: str) -> Session:
        session = Session(request_id, self._feedback, self._release, self._clock)
        session.on_end, session.on_drop = self.sessions.ended, self._dropped
        refused = self.budget.track(budget_key(request_id), session, "session", fixed=SESSION_BYTES)
        if refused is not None:
            raise OverBudget(f"no room for a new request id: {refused}")
        return session

    def _forget(self, session: Session) -> None:
        self.budget.forget(budget_key(session.request_id))

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def session(self, request_id: str) -> Session:
        """The request id's session, made on first use; OverBudget if there is no room."""
        session = self.sessions.session(request_id)
        self.budget.touch(budget_key(request_id))
        return session

    def _dropped(self, session: Session, reason: str) -> None:
        """The budget dropped the idle session: its stream and turn end with why."""
        self.sessions.remove(session, reason)
        self._fail(session, reason)

    def _fail(self, session: Session, reason: str) -> None:
        """The session lost (or could not take) input its turn may need: end
        the stream with the reason and stop the turn, rather than let both
        wait for input that will never come."""
        session.failed = reason
        self.budget.refund(budget_key(session.request_id), session.inbox.clear())
        error = WireError(Code.RESOURCE_EXHAUSTED, f"request {session.request_id}: {reason}")
        conversation_id = session.conversation_id
        if conversation_id is None or session.ended:
            session.put(EndOfStream(error))
            return
        log.warning("request %s: turn ended: %s", session.request_id, reason)
        session.end(conversation_id, error)
        input_id = session.input_id("over-budget")
        self._spawn(self._submit(session, input_id, Cancel(reason, self._now_ms())))

    def reader_attached(self, session: Session) -> None:
        self.sessions.reader_attached(session)

    def reader_detached(self, session: Session) -> None:
        self.sessions.reader_detached(session)

    def end_all_streams(self, error: WireError) -> int:
        """Shutting down: end every open stream now with a retryable error, so
        clients reconnect (to the restarted server) instead of waiting. What
        was committed stays; the restarted runner resumes the rest."""
        ended = 0
        for session in self.sessions:
            if not session.ended:
                session.put(EndOfStream(error))
                ended += 1
            elif session.readers:
                session.outbox.put_nowait(EndOfStream(error))
                ended += 1
        self.sink.release_all()
        return ended

    async def close(self) -> None:
        await self.sessions.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _release(self, session: Session, conversation_id: str) -> None:
        self.sink.release(conversation_id, session)

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background submit failed", exc_info=task.exception())

    def _feedback(self, conversation_id: str, command: CallClient, outcome: ToolOutcome) -> None:
        message = dialect.tool_result_message(command.tool_call, outcome, self._now_ms())
        submit = self.runner.submit(conversation_id, command.operation_id, ToolResult(message))
        self._spawn(_discard(submit))

    async def _abandoned(self, session: Session) -> None:
        input_id = session.input_id("disconnected")
        await self._submit(session, input_id, Cancel("client disconnected", self._now_ms()))

    # -- appends ---------------------------------------------------------------------------

    async def append(self, request_id: str, seqno: int, payload: bytes) -> None:
        """Take one BidiAppend. Never raises for bad client data: the official
        client aborts the whole run on a failed append."""
        gone = self.sessions.gone(request_id)
        try:
            session = self.session(request_id) if gone is None else None
        except OverBudget as no_room:
            gone = str(no_room)
            session = None
        if session is None:
            self.counters.over_budget_appends += 1
            log.info("request %s: append %d ignored: %s", request_id, seqno, gone)
            return
        async with session.lock:
            if session.failed is not None:
                self.counters.over_budget_appends += 1
                return
            restarts = session.inbox.stats.restarts
            held = session.inbox.pending_bytes
            due = session.inbox.offer(seqno, payload)
            if session.inbox.stats.restarts != restarts:
                session.reset()
            grown = session.inbox.pending_bytes - held
            if grown > 0:
                refused = self.budget.charge(budget_key(request_id), grown)
                if refused is not None:
                    self.budget.refund(budget_key(request_id), held)  # what was charged
                    session.inbox.clear()
                    self._fail(session, f"append {seqno} could not be buffered: {refused}")
                    return
            elif grown < 0:
                self.budget.refund(budget_key(request_id), -grown)
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
            case RunStarted():
                await self._run_started(session, event, input_id)
            case dialect.ExecReply(number=number, exec_id=exec_id, message=reply):
                await self._exec_step(
                    session, session.execs.reply(number, exec_id, reply), input_id
                )
            case dialect.ContextArrived(number=number, context=context):
                if not session.context_requests.answer(number, context):
                    self.counters.unknown_exec_results += 1
            case dialect.ExecThrown(number=number, error=error):
                if not session.context_requests.answer(number, None):
                    step = session.execs.thrown(number, error)
                    await self._exec_step(session, step, input_id)
            case dialect.CancelRequested(reason=reason):
                if not session.context_requests.cancel(reason):
                    await self._submit(session, input_id, Cancel(reason, self._now_ms()))
            case dialect.FollowUp(message=user):
                await self._submit(session, input_id, UserInput(user))
            case Refused(error=error):
                session.put(EndOfStream(error))
            case dialect.Ignored():
                self.counters.ignored_messages += 1
            case _:
                assert_never(event)

    async def _submit(self, session: Session, input_id: str, input_: Input) -> None:
        if session.conversation_id is None:
            self.counters.late_appends += 1
            return
        await self.runner.submit(session.conversation_id, input_id, input_)

    async def _run_started(self, session: Session, event: RunStarted, input_id: str) -> None:
        if event.needs_context:
            self._spawn(self._start_after_context(session, event, input_id))
            return
        conversation_id = event.conversation_id
        session.conversation_id = conversation_id
        session.tools = event.tools
        session.context.turn.begin(event.user_message, event.prior_turns, session.request_id)
        session.context.context_window = self._context_window(event.model)
        session.context.characters.update(event.characters)
        previous = self.sink.serve(conversation_id, session)
        if isinstance(previous, Session):
            previous.put(EndOfStream())  # a newer stream took the conversation over
        start = event.start
        if isinstance(start, Start) and start.settings is not None:
            window = session.context.context_window
            settings = replace(
                start.settings, context_window=window, compact_share=self._compact_at
            )
            start = replace(start, settings=settings)
        if start is not None:
            # A new message: output of an earlier turn nobody picked up is
            # stale (its result is in history); it must not open this stream.
            self.sink.take_stash(conversation_id)
            await self.runner.submit(conversation_id, input_id, start)
        # Output produced while no stream served the conversation goes first.
        for item in self.sink.take_stash(conversation_id):
            session.deliver(conversation_id, item)
        if not session.ended:
            # A summary asked for when there is nothing to summarize leaves
            # the conversation idle: the resume below ends the stream.
            await self._resume(session, conversation_id, new_turn=isinstance(start, Start))

    async def _resume(self, session: Session, conversation_id: str, new_turn: bool) -> None:
        """A stream that takes over a conversation picks up its turn in flight:
        a tool request the old stream carried is asked again. A resume with
        nothing in flight ends at once, so the client is never left waiting."""
        state = await self.runner.state_of(conversation_id)
        if state is not None:
            session.context.characters.update(history_characters(state))
        idle = state is None or state.status in IDLE_STATUSES
        if idle and new_turn:
            return
        if state is None or idle:
            session.put(turn_ended(session.context.usage))
            session.end(conversation_id)
            return
        if state.status is Status.WAITING_CLIENT and state.waiting is not None:
            # The client lost the exec request with its old stream: ask again
            # (same operation id; asked once per stream).
            waiting = state.waiting
            session.ask(conversation_id, CallClient(waiting.operation_id, waiting.current))

    async def _start_after_context(
        self, session: Session, event: RunStarted, input_id: str
    ) -> None:
        """Ask the client for its request context, then start the turn with
        it, or without it once the bounded wait is over."""
        assert event.run is not None
        number = session.context.exec_number()
        session.put(session.context_requests.ask(number))
        context = await session.context_requests.wait(number, self._context_wait_s)
        canceled = session.context_requests.canceled
        if canceled is not None:
            session.put(EndOfStream(dialect.error_for(Canceled(canceled))))
            return
        started = decode_run_request(
            event.run, session.request_id, self._now_ms(), context, asked=True
        )
        assert isinstance(started, RunStarted) and not started.needs_context
        async with session.lock:
            await self._run_started(session, started, input_id)

    async def _exec_step(
        self, session: Session, step: Finished | SendNext | MoreToCome | Unknown, input_id: str
    ) -> None:
        match step:
            case Unknown():
                self.counters.unknown_exec_results += 1
            case MoreToCome():
                pass
            case SendNext(request=request):
                session.put(pb.AgentServerMessage(exec_server_message=request))
            case Finished(pending=pending, result=result, outcome=outcome):
                session.put(
                    dialect.encode_tool_completed(
                        pending.call, pending.tool, result, session.context
                    )
                )
                message = dialect.tool_result_message(pending.call, outcome, self._now_ms())
                await self._submit(session, input_id, ToolResult(message))
            case _:
                assert_never(step)


async def _discard(submit: Coroutine[object, object, object]) -> None:
    await submit
