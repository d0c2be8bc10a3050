"""The session hub: every live session by request id, appends in, output out.

Appends are ordered per request id (`AppendInbox`) and turned into loop
inputs through the dialect; each session (`session.Session`) owns its
stream's send queue. The registry keeps sessions across a dropped stream and
cancels the turn after the grace period; a stream that resumes a turn takes
it over from the old one (`handover`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import assert_never

from cursor_byok.llm.types import UserMessage
from cursor_byok.loop.commands import CallClient, Canceled
from cursor_byok.loop.inputs import Cancel, Input, Start, ToolResult, UserInput
from cursor_byok.runtime.outcome import Outcome, log_not_applied
from cursor_byok.runtime.rewinds import Rewinds
from cursor_byok.runtime.runner import Runner
from cursor_byok.transport.connect.codec import Codec, CodecError, decode_message
from cursor_byok.transport.connect.errors import Code, WireError, retryable
from cursor_byok.transport.dialect import dialect, input_ids
from cursor_byok.transport.dialect.clients import ClientHeaders
from cursor_byok.transport.dialect.run_request import Refused, RunStarted, decode_run_request
from cursor_byok.transport.dialect.server_tool import QueryWaits
from cursor_byok.transport.dialect.subagent_child import ParentHeaders
from cursor_byok.transport.dialect.tools import Tool, ToolOutcome
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.child_links import ChildLinks
from cursor_byok.transport.sessions.counters import Counters
from cursor_byok.transport.sessions.decoding import decode_append
from cursor_byok.transport.sessions.handover import begin_turn, resume_turn, settle_execs, take_over
from cursor_byok.transport.sessions.kv_answers import KvAnswers
from cursor_byok.transport.sessions.memory_budget import (
    SESSION_BYTES,
    MemoryBudget,
    OverBudget,
    budget_key,
)
from cursor_byok.transport.sessions.over_budget import fail_the_tool
from cursor_byok.transport.sessions.owners import ModelGate, owned
from cursor_byok.transport.sessions.parent_links import linked_parent
from cursor_byok.transport.sessions.registry import RECONNECT_GRACE_S, SessionRegistry
from cursor_byok.transport.sessions.request_context import BLOB_WAIT_S, CONTEXT_WAIT_S
from cursor_byok.transport.sessions.rewound import note_turn_end, placed
from cursor_byok.transport.sessions.server_runs import RunnerHost, ServerRuns
from cursor_byok.transport.sessions.session import EndOfStream, Session
from cursor_byok.transport.sessions.sink import OutputSink
from cursor_byok.transport.sessions.subagents import Subagents
from cursor_byok.transport.sessions.tool_runs import ToolRuns
from cursor_byok.transport.sessions.transcripts import submit_start

log = logging.getLogger(__name__)


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
        blob_wait_s: float = BLOB_WAIT_S,
        kv_wait_s: float | None = None,
        models: ModelGate | None = None,
        server_tools: Sequence[Tool] = (),
        query_waits: QueryWaits = QueryWaits(),  # noqa: B008 (frozen)
        rewinds: Rewinds | None = None,
        links: ChildLinks | None = None,
    ) -> None:
        """`kv_wait_s`: a stream's end's wait for its KV answers (None: the default);
        `models`: who may use which models (None: any); `server_tools`: web, Task;
        `query_waits`: for a person; `rewinds`: forks; `links`: Task subagents."""
        self.runner = runner
        self.rewinds = rewinds
        self.models = models or ModelGate()
        self.sink = sink
        self.budget = budget if budget is not None else MemoryBudget()
        self.subagents = Subagents(runner, sink, self._spawn, self.budget)
        self.server_tools = self.subagents.bind(server_tools)
        self.counters = Counters()
        self.sessions: SessionRegistry[Session] = SessionRegistry(
            self._make, self._abandoned, grace_s, on_forget=self._forget
        )
        self._context_window = context_window
        self._compact_at = compact_at
        self._clock = clock
        self._context_wait_s = context_wait_s
        self._blob_wait_s = blob_wait_s
        self._kv_wait_s = kv_wait_s
        self._tasks: set[asyncio.Task[None]] = set()
        self.tools = ToolRuns(runner, self.counters, self._now_ms, self._spawn)
        self.links = links or ChildLinks()
        self._tool_host = RunnerHost(runner, self._spawn, self._now_ms, query_waits, self.links)

    def _make(self, request_id: str) -> Session:
        session = Session(request_id, self._feedback, self._release, self._clock)
        session.on_end, session.on_drop = self.sessions.ended, self._dropped
        session.on_cut_off = self.tools.cut_off
        session.on_turn_end = partial(note_turn_end, self.rewinds)
        session.server_runs = ServerRuns(self._tool_host)
        session.kv = KvAnswers(self.counters, self._kv_wait_s)
        refused = self.budget.track(budget_key(request_id), session, "session", fixed=SESSION_BYTES)
        if refused is not None:
            raise OverBudget(f"no room for a new request id: {refused}")
        return session

    def _forget(self, session: Session) -> None:
        self.budget.forget(budget_key(session.request_id))

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def session(self, request_id: str, headers: Mapping[str, str] | None = None) -> Session:
        """The request id's session, made on first use; OverBudget if there is
        no room. `headers`: a request's, which may say which client it is."""
        session = self.sessions.session(request_id)
        self.budget.touch(budget_key(request_id))
        if headers is not None:
            session.client_headers = ClientHeaders.of(headers) or session.client_headers
            session.parent = ParentHeaders.of(headers) or session.parent
        return session

    def _dropped(self, session: Session, reason: str) -> None:
        """The budget dropped the idle session: its stream and turn end with why."""
        self.sessions.remove(session, reason)
        self._fail(session, reason)

    def _fail(self, session: Session, reason: str) -> None:
        """The session lost (or could not take) input its turn may need: end the
        stream with the reason and stop the turn rather than let both wait."""
        session.failed = reason
        self.budget.refund(budget_key(session.request_id), session.inbox.clear())
        error = WireError(Code.RESOURCE_EXHAUSTED, f"request {session.client_id}: {reason}")
        conversation_id = session.conversation_id
        if (
            conversation_id is None
            or session.ended
            or self.sink.taken_over(conversation_id, session)
        ):
            session.put(EndOfStream(error))
            return
        log.warning("request %s: turn ended: %s", session.request_id, reason)
        session.end(conversation_id, error)
        input_id = session.input_id("over-budget")
        self._spawn(_discard(self._submit(session, input_id, Cancel(reason, self._now_ms()))))

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
            session.kv.wake()  # an end waiting for KV answers goes out now
            if not session.ended:
                session.put(EndOfStream(error))
                ended += 1
            elif session.readers:
                session.outbox.put_nowait(EndOfStream(error))
                ended += 1
        self.sink.release_all()
        return ended

    def conversation_moved(self, conversation_id: str) -> None:
        """Another process took the conversation over (this one's lease was
        lost): its stream here ends with a retryable error, so the client
        reconnects and resumes the turn where it goes on, rather than wait
        here for output that will never come. Output kept here is stale."""
        self.sink.take_stash(conversation_id)
        session = self.sink.serving(conversation_id)
        if isinstance(session, Session) and not session.ended:
            error = retryable(
                f"conversation {conversation_id} moved to another server process; retry",
                "cursor-byok moved the conversation",
                "Another server process carries the turn on; retry to resume it.",
            )
            session.end(conversation_id, error)

    def start(self) -> None:
        """Called on the serving loop once it runs; one process has nothing to start."""

    async def close(self) -> None:
        await self.sessions.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _release(self, session: Session, conversation_id: str) -> None:
        self.sink.release(conversation_id, session)

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background submit failed", exc_info=task.exception())

    def _feedback(self, conversation_id: str, command: CallClient, outcome: ToolOutcome) -> None:
        message = dialect.tool_result_message(command.tool_call, outcome, self._now_ms())
        submit = self.runner.submit(conversation_id, command.operation_id, ToolResult(message))
        self._spawn(_discard(submit))

    async def _abandoned(self, session: Session) -> None:
        if self.sink.taken_over(session.conversation_id, session):
            return  # a resume on another stream carries the turn on
        input_id = session.input_id("disconnected")
        await self._submit(session, input_id, Cancel("client disconnected", self._now_ms()))

    # -- appends ---------------------------------------------------------------------------

    async def append(
        self, request_id: str, seqno: int, payload: bytes, headers: Mapping[str, str] | None = None
    ) -> None:
        """Take one BidiAppend (`headers`: its request's). Never raises for bad
        client data: the official client aborts the whole run on a failed append."""
        gone = self.sessions.gone(request_id)
        try:
            session = self.session(request_id, headers) if gone is None else None
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
                if refused is not None and fail_the_tool(session, seqno, payload, refused):
                    self.counters.over_budget_appends += 1
                    grown = session.inbox.pending_bytes - held
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
                except Exception as error:  # noqa: BLE001 (logged below)
                    # Counted, logged; still a 200, and the later ones go on.
                    self.counters.failed_appends += 1
                    what = f"append {number} of request {request_id}"
                    log_not_applied(log, session.conversation_id, what, error)
                    if number == 0:  # the run itself: no turn would end its stream
                        session.fail_start(error)

    async def append_refused(self, request_id: str, reason: str) -> None:
        """An append of `request_id` was refused (too big, or no room): the
        client stops appending after it, so every tool call waiting on this
        stream gets an error result now, and the turn goes on."""
        session = self.sessions.get(request_id)
        if session is None:
            return
        text = f"The tool's result was refused by the server: {reason}"
        session.refused = reason
        async with session.lock:
            for step in session.execs.abandon(text):
                await self.tools.step(session, step)

    async def _deliver(self, session: Session, seqno: int, data: bytes) -> None:
        began = time.perf_counter_ns()
        try:
            message = decode_message(data, pb.AgentClientMessage, Codec.PROTO)
        except CodecError:
            self.counters.undecodable_appends += 1
            log.info("request %s: append %d does not decode; ignored", session.request_id, seqno)
            return
        headers, now = session.client_headers, self._now_ms()
        event = await decode_append(message, session.client_id, now, headers, self.server_tools)
        self.runner.stages.since("decode", began)
        match event:
            case RunStarted():
                input_id = input_ids.run_id(session.request_id, message.run_request)
                if (refused := await self.models.refusal(session.request_id, event)) is not None:
                    session.put(EndOfStream(refused))
                    return
                await self._run_started(session, owned(session.request_id, event), input_id)
            case dialect.ExecReply(number=number, exec_id=exec_id, message=reply):
                if not session.server_runs.execs.answer(number, reply):  # a server tool's own
                    # The stream's own exec, or one of its server-run subagents'.
                    await self.tools.step(*self.subagents.reply(session, number, exec_id, reply))
            case dialect.ContextArrived(number=number, context=context):
                if not session.context_requests.answer(number, context):
                    self.counters.unknown_exec_results += 1
            case dialect.BlobArrived(number=number, data=found):
                session.kv.answered(number)
                if not session.blob_requests.answer(number, found):
                    self.counters.ignored_messages += 1
            case dialect.ExecThrown(number=number, error=error):
                taken = session.context_requests.answer(number, None)
                if not taken and not session.server_runs.execs.answer(number, error):
                    await self.tools.step(*self.subagents.thrown(session, number, error))
            case dialect.CancelRequested(reason=reason, subagent_id=agent) if agent:
                await self.subagents.cancel_agent(session, agent, reason)
            case dialect.CancelRequested(reason=reason):
                # Both are told: either may hold a turn that has not started.
                held = session.context_requests.cancel(reason)
                if not session.blob_requests.cancel(reason) and not held:
                    input_id = input_ids.message_id_of(session.request_id, data)
                    await self._submit(session, input_id, Cancel(reason, self._now_ms()))
            case dialect.FollowUp(message=user, original=typed, input_id=named):
                session.context.turn.add_answered(event.answers)  # checkpoints list it
                input_id = named or input_ids.message_id_of(session.request_id, data)
                await self._follow_up(session, user, typed, input_id)
            case dialect.QueryAnswered(number=number, response=response):
                if not session.server_runs.queries.answer_any(number, response):
                    self.counters.late_query_answers += 1  # taken once, never twice
            case dialect.KvAnswered(number=number):
                if not session.kv.answered(number):
                    self.counters.late_kv_answers += 1
                    log.info(
                        "request %s: KV answer %d came after its stream ended; taken",
                        session.request_id,
                        number,
                    )
            case Refused(error=error):
                session.put(EndOfStream(error))
            case dialect.Ignored():
                self.counters.ignored_messages += 1
            case _:
                assert_never(event)

    async def _submit(self, session: Session, input_id: str, input_: Input) -> Outcome | None:
        return await self.tools.submit(session, input_id, input_)

    async def _follow_up(
        self, session: Session, user: UserMessage, typed: pb.UserMessage, fallback: str
    ) -> None:
        """A message typed during the turn: acknowledged (by its message id)
        when it enters history, once; a resend of one taken before is not
        taken, nor acknowledged, again."""
        typed_list = session.context.typed
        if typed.message_id:  # echoed when it enters history (`QueuedEntered`)
            typed_list.append(typed)
        input_id = input_ids.user_message_id(typed) or fallback
        outcome = await self._submit(session, input_id, UserInput(user, typed.message_id))
        if (outcome is None or outcome.duplicate) and typed in typed_list:
            typed_list.remove(typed)

    async def _run_started(self, session: Session, event: RunStarted, input_id: str) -> None:
        if event.needs_context or event.needs_blobs:
            self._spawn(session.starting(self._start_when_answered(session, event, input_id)))
            return
        start, conversation_id = event.start, await placed(self.rewinds, event, input_id)
        session.conversation_id = conversation_id
        session.sent_state = event.client_turns is not None
        session.tools, session.capabilities = event.tools, event.capabilities
        previous = self.sink.serve(conversation_id, session)
        unsent: set[str] = set()
        if isinstance(previous, Session) and start is None:
            unsent = take_over(session, previous)  # a resume plays the rest of the old turn
        else:
            begin_turn(session, event, self._context_window(event.model))
        cut_off = settle_execs(session, previous, unsent) if isinstance(previous, Session) else []
        if isinstance(previous, Session):
            previous.put(EndOfStream())  # a newer stream took the conversation over
        if isinstance(start, Start) and start.settings is not None:
            window = session.context.context_window
            settings = replace(
                start.settings,
                context_window=window,
                compact_share=self._compact_at,
                parent=await linked_parent(session, self.sessions.get, self.links, conversation_id),
            )
            start = replace(start, settings=settings)
        new_turn = isinstance(start, Start)
        if start is not None:
            # A new message: earlier output nobody picked up is stale (in history).
            self.sink.take_stash(conversation_id)
            outcome = await submit_start(self, session, conversation_id, input_id, start)
            new_turn = new_turn and outcome is not None and not outcome.duplicate  # resend: resume
        # Output produced while no stream served the conversation goes first.
        for item in self.sink.take_stash(conversation_id):
            session.deliver(conversation_id, item)
        for run in cut_off:  # may have run: never asked twice
            await self.tools.interrupt(
                session, conversation_id, run.call, run.tool, run.operation_id
            )
        if not session.ended:
            # A summary of nothing leaves it idle: the resume below ends the stream.
            await resume_turn(self.runner, session, conversation_id, new_turn)

    async def _start_when_answered(
        self, session: Session, event: RunStarted, input_id: str
    ) -> None:
        """Ask the client for what the turn needs first (its request context,
        or images sent by blob id), then start the turn with the answers that
        came within the bounded wait (the model is told of missing images)."""
        assert event.run is not None
        requests = session.context_requests if event.needs_context else session.blob_requests
        context, blobs = event.context, None
        if event.needs_context:
            number = session.context.exec_number()
            session.put(session.context_requests.ask(number))
            context = await session.context_requests.wait(number, self._context_wait_s)
        else:
            blobs = await session.blob_requests.ask_all(
                event.needs_blobs, session.context.turn.kv_number, session.put, self._blob_wait_s
            )
        if requests.canceled is not None:
            session.put(EndOfStream(dialect.error_for(Canceled(requests.canceled))))
            return
        now, headers = self._now_ms(), session.client_headers
        decode = (event.run, session.client_id, now, context, True, blobs, headers)
        started = await asyncio.to_thread(decode_run_request, *decode, self.server_tools)
        assert isinstance(started, RunStarted) and not started.needs_context
        async with session.lock:
            await self._run_started(session, owned(session.request_id, started), input_id)


async def _discard(submit: Coroutine[object, object, object]) -> None:
    await submit
