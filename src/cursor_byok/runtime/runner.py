"""The runner: thin glue that drives the pure loop (seed §6-7, §11, §13).

The seed's recursion `run -> run_command -> consume_llm -> read_llm -> run`
is an async trampoline here: `_run` applies one input and commits,
`_run_command` executes the command, `_consume_llm` starts the reader task,
which hands each model event back (`_hand_over`). No call stack grows with
the length of a conversation.

Per conversation there is one worker task and one queue. External inputs and
the model's events reach `transition` strictly one at a time, in arrival
order; a cancel is never stuck behind a long response. A delta that finds
the worker idle with nothing queued is applied by the reader at once, which
keeps that order. The store's version compare-and-swap is the final arbiter:
on a conflict the worker reloads and processes the input again.

Commit order: a transition that changes the committed state is committed in
one transaction with its input id and the records the loop names, before
anything it emits is published and before its command runs; deltas change
no committed state and touch no database. The commit that plans a model
call is not flushed on its own (`Store.commit_input` says at what price), and
the call is opened while that commit is in flight (`early_calls`): nothing
it streams is published before the commit lands, and if the commit does not
land the call is dropped. A crash between the two can make a model call
twice; it cannot add to or lose history.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar, assert_never

from cursor_byok.llm.events import TERMINAL_EVENTS, DoneEvent, ResponseEvent
from cursor_byok.llm.provider import ModelRouter
from cursor_byok.llm.request_identity import RequestNotRebuilt
from cursor_byok.llm.types import RequestMessages
from cursor_byok.loop.commands import (
    CallClient,
    CallLLM,
    Canceled,
    Command,
    Emit,
    Failed,
    Final,
    Ignored,
    StopCall,
    WaitInput,
)
from cursor_byok.loop.inputs import Input, LLMEvent, ToolProgress, ToolResult
from cursor_byok.loop.state import ConversationState, RuntimeState, Status
from cursor_byok.loop.transition import DEFAULT_HOOKS, Hooks, transition
from cursor_byok.runtime.accounting import Accounting, Pricing
from cursor_byok.runtime.commit_queue import CommitQueue
from cursor_byok.runtime.conversation import (
    Conversation,
    External,
    IdleSweep,
    Inspect,
    StreamEvent,
    describe,
)
from cursor_byok.runtime.early_calls import EarlyCalls, EventGate, start_at_once
from cursor_byok.runtime.io_first import after_polled_io
from cursor_byok.runtime.model_call import CallReader, ModelCall, RetryPolicy, local_error
from cursor_byok.runtime.observe import Metrics, StageClock, logfmt, note_turn
from cursor_byok.runtime.outbound import Sink
from cursor_byok.runtime.outcome import Outcome, log_not_applied
from cursor_byok.runtime.records import FirstLoad, Loads, planned_commit, saved_call
from cursor_byok.runtime.stop_call import caught, last_word
from cursor_byok.store.base import CallStatus, CallStatusUpdate, InputCommit, Store, VersionConflict

log = logging.getLogger(__name__)

T = TypeVar("T")


class Runner:
    """Drives conversations: `submit` an input, output goes to the sink."""

    def __init__(
        self,
        store: Store,
        llm: ModelRouter,
        sink: Sink,
        hooks: Hooks = DEFAULT_HOOKS,
        retry: RetryPolicy | None = None,
        rng: random.Random | None = None,
        metrics: Metrics | None = None,
        early_calls: bool = True,
        pricing: Pricing | None = None,
    ) -> None:
        """`early_calls`: open a model call while the commit that plans it is
        in flight (see `EventGate`); a process crash in between can make the
        same call twice, never add or lose history. `pricing`: `Accounting`'s."""
        self._store = store
        self._sink = sink
        self._hooks = hooks
        self._metrics = metrics
        self.accounting = Accounting(store, self._io, pricing, metrics)
        policy, draw = retry or RetryPolicy(), rng or random.Random()
        self._reader = CallReader(llm, policy, draw, metrics, self._count_attempt, self.accounting)
        self.ignored: Counter[str] = Counter()
        """Inputs the loop found changed nothing, by reason."""
        self._conversations: dict[str, Conversation] = {}
        self._early_calls = early_calls
        self._gates = EarlyCalls()
        self.stages = metrics.stages if metrics is not None else StageClock()
        self._loads = Loads(store, self._io, self.stages)
        self._commits = CommitQueue(store, self._io, stages=self.stages)
        self._closed = False
        self._sweep = IdleSweep()

    # -- public --------------------------------------------------------------------

    async def submit(self, conversation_id: str, input_id: str, input_: Input) -> Outcome:
        """Process one external input; returns once it is committed (or known
        to be a duplicate, or ignored). Work it starts goes on afterwards."""
        conversation = self._conversation(conversation_id)
        done = conversation.put(input_id, input_)
        self._start_worker(conversation)
        return await done

    async def recover(self) -> list[str]:
        """Resume every conversation left waiting for a model or a client."""
        active = await self._io(self._store.active_conversations)
        for conversation_id in active:
            await self.state_of(conversation_id)
        return active

    async def state_of(self, conversation_id: str) -> ConversationState | None:
        """The committed state as this runner knows it (for inspection). Asked
        while the worker rests, it is answered at once: an `Inspect` would
        read the same, and the model events that arrive meanwhile (a turn's
        first deltas, as a stream asks at its start) keep the fast path."""
        conversation = self._conversation(conversation_id)
        state = conversation.state
        if state is not None and self._at_rest(conversation):
            return state.committed
        done: asyncio.Future[ConversationState | None] = asyncio.get_running_loop().create_future()
        conversation.queue.put_nowait(Inspect(done))
        self._start_worker(conversation)
        return await done

    async def close(self) -> None:
        self._closed = True
        running = ((c.reader, c.worker) for c in self._conversations.values())
        tasks = [task for pair in running for task in pair if task is not None]
        for task in tasks:
            task.cancel()
        for failed in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(failed, Exception):  # closing goes on; what failed is logged
                log.warning("a conversation task failed while closing: %r", failed)
        await asyncio.to_thread(self._commits.close)

    # -- the worker ----------------------------------------------------------------

    def _conversation(self, conversation_id: str) -> Conversation:
        if self._closed:
            raise RuntimeError("runner is closed")
        conversation = self._conversations.get(conversation_id)
        if conversation is not None:
            conversation.touched = time.monotonic()
            return conversation
        self._sweep(self._conversations)
        conversation = Conversation(conversation_id)
        self._conversations[conversation_id] = conversation
        return conversation

    def _start_worker(self, conversation: Conversation) -> None:
        """A new conversation's worker, started once its first item is queued
        and run up to its first wait within this step (`start_at_once`): a
        first turn's model call is written without waiting a step of every
        other stream's work for the worker to start."""
        if conversation.worker is None:
            name = f"conversation {conversation.conversation_id}"
            conversation.worker = start_at_once(self._work(conversation), name)

    def _at_rest(self, conversation: Conversation) -> bool:
        """The worker waits with nothing queued: its state is the committed one
        and nothing it would do first (here, nothing) is left to do."""
        return not conversation.busy and conversation.queue.empty()

    async def _work(self, conversation: Conversation) -> None:
        try:
            await self._work_items(conversation)
        finally:
            conversation.fail_waiters(RuntimeError("runner closed"))

    async def _work_items(self, conversation: Conversation) -> None:
        while True:
            conversation.busy = False
            item = await conversation.queue.get()
            conversation.busy = True
            try:
                if isinstance(item, External):
                    outcome = await self._external(conversation, item)
                    if not item.done.done():
                        item.done.set_result(outcome)
                elif isinstance(item, Inspect):
                    await self._ensure_loaded(conversation)
                    state = conversation.state
                    if not item.done.done():
                        item.done.set_result(None if state is None else state.committed)
                else:
                    ended = isinstance(item.event, TERMINAL_EVENTS)
                    try:
                        if ended:  # a call's end: the deltas ready meanwhile go first
                            await after_polled_io()
                        await self._stream_event(conversation, item)
                    finally:
                        if ended and conversation.in_flight == item.call_id:
                            conversation.in_flight = None
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 (one bad input must not end the worker)
                log_not_applied(log, conversation.conversation_id, describe(item), error)
                if isinstance(item, External | Inspect) and not item.done.done():
                    item.done.set_exception(error)
                elif isinstance(item, StreamEvent) and isinstance(item.event, DoneEvent):
                    # The answer could not be taken (e.g. unstorable content):
                    # end the call as failed rather than wait for it forever.
                    failure = local_error(f"the response could not be stored: {error}")
                    conversation.queue.put_nowait(StreamEvent(item.call_id, failure))

    async def _io(self, function: Callable[..., T], *args: object) -> T:
        """Store calls run in a worker thread so a commit never stalls the loop."""
        return await asyncio.to_thread(function, *args)

    async def _ensure_loaded(
        self, conversation: Conversation, resume: bool = True, input_id: str | None = None
    ) -> FirstLoad | None:
        """Load the committed state once. The first load in this process also
        resumes work a previous process left in flight; a reload after a
        version conflict does not (the work is not ours to repeat). With
        `input_id`, what is read includes that input's earlier commit."""
        if conversation.state is not None:
            return None
        cid = conversation.conversation_id
        first = await self._loads.first(cid, input_id)
        if (loaded := first.loaded) is None:
            conversation.state = RuntimeState(ConversationState(cid))
            conversation.version = 0
            return first
        conversation.state = RuntimeState(loaded.state)
        conversation.version = loaded.version
        if resume:
            await self._resume(conversation)
        return first

    async def _resume(self, conversation: Conversation) -> None:
        """Pick up work a previous process left in flight (seed §4, §13)."""
        assert conversation.state is not None
        state = conversation.state.committed
        if state.status is Status.WAITING_LLM and state.call_id is not None:
            if conversation.in_flight == state.call_id:  # streaming, or its end is queued
                return
            record = await self._io(self._store.get_llm_call, state.call_id)
            try:
                model, request = saved_call(state.call_id, record, state.messages)
            except RequestNotRebuilt as error:  # never send another request: the call ends
                failure = local_error(f"the saved model request could not be rebuilt: {error}")
                conversation.queue.put_nowait(StreamEvent(state.call_id, failure))
                return
            self._consume_llm(conversation, state.call_id, model, request)
        elif state.status is Status.WAITING_CLIENT and state.waiting is not None:
            # Asked by the process that left it: the client may have run it.
            waiting = state.waiting
            again = CallClient(waiting.operation_id, waiting.current, again=True)
            await self._call_client(conversation, again)

    async def _external(self, conversation: Conversation, item: External) -> Outcome:
        first = await self._ensure_loaded(conversation, input_id=item.input_id)
        return await self._run(conversation, item.input_id, item.input, first)

    async def _stream_event(self, conversation: Conversation, item: StreamEvent) -> None:
        await self._ensure_loaded(conversation)
        await self._run(conversation, f"{item.call_id}:end", LLMEvent(item.call_id, item.event))

    async def _run(
        self,
        conversation: Conversation,
        input_id: str,
        input_: Input,
        first: FirstLoad | None = None,
    ) -> Outcome:
        """Apply one input. A possible resend (all but a streamed delta) is looked
        up in its commit's worker-thread hop (its transition is then dropped), or
        before if it opens a call early: in the load's hop (`first`), if first."""
        conversation_id = conversation.conversation_id
        checked = not isinstance(input_, LLMEvent) or isinstance(input_.event, TERMINAL_EVENTS)
        while True:
            assert conversation.state is not None
            before = conversation.state
            result = self.stages.timed("transition", transition, before, input_, self._hooks)
            early = self._early_calls and isinstance(result.command, CallLLM)
            if checked and (early or not result.commit):  # never open a call for a duplicate
                found = None if first is None else first.found
                if first is None:
                    found = await self._loads.find_input(conversation_id, input_id)
                if found is not None:
                    return Outcome(duplicate=True, committed=True, result=found.result)
            if not result.commit:
                conversation.state = result.state
                self._publish(conversation_id, result.emit)
                await self._run_command(conversation, result.command)
                return Outcome(duplicate=False, committed=False, result=None)
            # The request is written first; the commit's rows after the deltas ready meanwhile.
            gate = self._call_early(conversation, result.command) if early else None
            if gate is not None:
                await after_polled_io()
            light, looked_up = isinstance(input_, ToolProgress), checked and not early
            try:
                ended = self.accounting.ended(conversation_id, input_, result)
                commit = planned_commit(
                    input_id, conversation.version, result, looked_up, light, ended
                )
                committed = await self._commits.commit(commit)
            except VersionConflict:
                self._abandon(conversation, result.command)
                log.info("conversation %s: version conflict, reloading", conversation_id)
                conversation.state = None
                await self._ensure_loaded(conversation, resume=False)
                first = None
                continue
            except Exception:  # the commit that plans the call failed: the call goes too
                self._abandon(conversation, result.command)
                raise
            if isinstance(committed, InputCommit):
                self._abandon(conversation, result.command)
                return Outcome(duplicate=True, committed=True, result=committed.result)
            conversation.version = committed
            self.accounting.landed(ended)
            conversation.state = result.state
            conversation.turn_started = note_turn(
                self._metrics, conversation.turn_started, before.committed, result.state.committed
            )
            self._publish(conversation_id, result.emit)
            if gate is None:
                await self._run_command(conversation, result.command)
            else:
                self._gates.landed(conversation, gate)
            return Outcome(duplicate=False, committed=True, result=commit.result)

    def _call_early(self, conversation: Conversation, command: Command) -> EventGate | None:
        """Open the model call a commit plans while that commit is in flight
        (`early_calls`), its events held until the commit lands."""
        if not isinstance(command, CallLLM):
            return None
        forward = partial(self._hand_over, conversation, command.call_id)
        gate = self._gates.open(command.call_id, forward)
        self._consume_llm(conversation, command.call_id, command.model, command.request, gate)
        return gate

    def _abandon(self, conversation: Conversation, command: Command) -> None:
        """The commit that planned an early call did not land: the call goes."""
        if isinstance(command, CallLLM) and self._gates.abandon(command.call_id):
            conversation.stop_reader()
            self.accounting.release(command.call_id)

    def _publish(self, conversation_id: str, events: Sequence[Emit]) -> None:
        for event in events:
            self._sink.publish(conversation_id, event)

    async def _run_command(self, conversation: Conversation, command: Command) -> None:
        match command:
            case CallLLM(call_id=call_id, model=model, request=request):
                self._consume_llm(conversation, call_id, model, request)
            case CallClient():
                await self._call_client(conversation, command)
            case StopCall(call_id=call_id):  # its last word ends the turn
                word = await last_word(conversation, call_id)
                await self._run(conversation, f"{call_id}:end", LLMEvent(call_id, word))
            case Final() | Failed():
                self._sink.publish(conversation.conversation_id, command)
            case Canceled():
                conversation.stop_reader()
                self._sink.publish(conversation.conversation_id, command)
            case WaitInput():
                pass
            case Ignored(reason=reason):
                self.ignored[reason] += 1
                if self._metrics is not None:
                    self._metrics.ignored_inputs.labels(reason).inc()
                log.info(
                    logfmt("ignored", conversation=conversation.conversation_id, reason=reason)
                )
            case _:
                assert_never(command)

    async def _call_client(self, conversation: Conversation, command: CallClient) -> None:
        """A completed operation's saved result is fed back (`saved_tool_result`)."""
        message = await self._loads.tool_result(command.operation_id)
        if message is not None:
            conversation.put(f"{command.operation_id}:saved", ToolResult(message))
            return
        self._sink.publish(conversation.conversation_id, command)

    # -- the model stream ----------------------------------------------------------------

    def _consume_llm(
        self,
        conversation: Conversation,
        call_id: str,
        model: str,
        request: RequestMessages,
        gate: EventGate | None = None,
    ) -> None:
        conversation.stop_reader()
        conversation.in_flight = call_id
        deliver = gate or partial(self._hand_over, conversation, call_id)
        call = ModelCall(conversation.conversation_id, call_id, model, request)
        reading, name = self._reader.read(call, deliver), f"call {call_id}"
        # A gated call's events wait for the gate: it may start within this step.
        start = start_at_once if gate is not None else asyncio.create_task
        conversation.reader = start(reading, name=name)

    def _hand_over(self, conversation: Conversation, call_id: str, event: ResponseEvent) -> None:
        """A call's events reach the loop in order. A delta that finds the worker
        waiting with nothing queued goes through the loop here, synchronously
        (nothing can interleave): one hop and one task switch fewer per delta.
        What commits, ends the call or needs more than publishing, or arrives
        while the worker has work, goes through the queue."""
        if caught(conversation, call_id, event):
            return
        state, queue = conversation.state, conversation.queue
        ends = isinstance(event, TERMINAL_EVENTS)
        if conversation.busy or state is None or ends or not queue.empty():
            queue.put_nowait(StreamEvent(call_id, event))
            return
        try:
            result = transition(state, LLMEvent(call_id, event), self._hooks)
            if result.commit or not isinstance(result.command, WaitInput):
                queue.put_nowait(StreamEvent(call_id, event))  # nothing applied
                return
            conversation.state = result.state
            self._publish(conversation.conversation_id, result.emit)
        except Exception:  # as in the worker: one bad event must not end the call
            log.exception("conversation %s: input failed", conversation.conversation_id)

    async def _count_attempt(self, call_id: str, attempt: int) -> None:
        """The plan is committed already (an early call's once its gate
        settles); only a retry is worth a write (its count)."""
        await self._gates.settled(call_id)
        update = CallStatusUpdate(call_id, CallStatus.STREAMING, attempts=attempt)
        await self._io(self._store.save_llm_call, update)
