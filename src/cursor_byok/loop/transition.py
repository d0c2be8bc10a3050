"""The pure transition: `transition(state, input) -> Transition`.

This module is the loop's only judge. It performs no I/O, reads no clock and
draws no random numbers: the same state and input always give the same new
state, events, command and records. The runner in `runtime` does the rest.

The rules, top to bottom (seed §7.3, §10, §11):

    input            state              effect                                  command
    ---------------  -----------------  --------------------------------------  -----------
    Start/UserInput  idle               append queued + context + user message
                                        (pass the to-do list on, if any; a
                                        Start's transcript first, if history
                                        is empty, else it is left out)          CallLLM
    Start/UserInput  busy               queue the messages (nothing is lost)    WaitInput
    LLMEvent         other call / idle  nothing                                 Ignored
    LLMEvent start   waiting LLM        new pending (a retry never merges)      WaitInput
    LLMEvent block   waiting LLM        note started tool calls, re-emit        WaitInput
    LLMEvent done    waiting LLM        append the assistant message (if it
                                        has content: a notice has none);
                                        tool calls -> dispatch the first        CallClient
                                        (cut off by length: error results)      Final
                                        queued user messages -> next call       CallLLM
                                        otherwise                               Final
    LLMEvent error   waiting LLM        drop pending, append nothing            Failed
                                        (a 400 for this history: append a
                                        HistoryRepair, see repair.py)
    LLMEvent aborted waiting LLM        drop pending, append nothing            Canceled
    ToolResult       current call's id  append (and keep the to-do list it
                                        carries); next call, or all in ->       CallClient/CallLLM
    ToolResult       any other id       nothing (duplicate or unknown)          Ignored
    ToolProgress     current call       keep the output with the call           WaitInput
    ToolInterrupted  current call       its result: the note + what arrived     as ToolResult
    Cancel           waiting LLM        stop the call (nothing committed yet)   StopCall
    LLMEvent end     call being stopped append what streamed as a new message
                                        marked interrupted + an error result
                                        per tool call, with the cancel          Canceled
    LLMEvent aborted interrupted call   (a state stored by an earlier version)
                                        the same, without the cancel            WaitInput
    Cancel           waiting client     append an is_error result per
                                        unfinished tool call (with the output
                                        that arrived)                           Canceled
    Cancel           idle               nothing to stop                         Ignored
    Compact          idle, >1 message   ask for a summary (emit SummaryStarted) CallLLM
    Compact          otherwise          nothing                                 Ignored
    Fork             new conversation   the parent's first messages (forks.py)  WaitInput
    Fork             otherwise          nothing                                 Ignored
    (any CallLLM)    request too big    ask for a summary first                 CallLLM
    LLMEvent         summary streaming  pass nothing on                         WaitInput
    LLMEvent done    summary            append it, record the reset; emit
                                        SummaryDone; asked for -> end turn      Final
                                        otherwise the request, from the reset   CallLLM

Any model call past the turn's `max_model_calls` is not made: the turn ends
with a notice the client sees as text, which never becomes history.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, assert_never

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from cursor_byok.llm.types import TextContent, ToolCall, ToolResultMessage, UserMessage
from cursor_byok.loop.cancel import on_cancel, on_interrupted, on_stopped
from cursor_byok.loop.commands import (
    CallClient,
    Canceled,
    Emit,
    Failed,
    Final,
    SummaryDone,
    TodosChanged,
    Transition,
    WaitInput,
)
from cursor_byok.loop.compaction import summary_message
from cursor_byok.loop.forks import on_fork
from cursor_byok.loop.inputs import (
    Cancel,
    Compact,
    Fork,
    Input,
    LLMEvent,
    Start,
    ToolInterrupted,
    ToolProgress,
    ToolResult,
    UserInput,
)
from cursor_byok.loop.records import CallEnded, Record
from cursor_byok.loop.repair import banner_text, repair_for
from cursor_byok.loop.state import (
    IDLE_STATUSES,
    ConversationState,
    PendingResponse,
    RuntimeState,
    Status,
    TurnSettings,
    WaitingClient,
)
from cursor_byok.loop.steps import (
    DEFAULT_HOOKS,
    Hooks,
    append,
    call_llm,
    ignore,
    limit_text,
    operation,
    operation_id_for,
)
from cursor_byok.loop.tool_runs import current_call, interrupted_result, on_progress

__all__ = ["DEFAULT_HOOKS", "TRUNCATED_CALL", "Hooks", "limit_text", "transition"]

_WAIT = WaitInput()
"""Shared: a command without fields, returned for every streamed event."""

TRUNCATED_CALL = (
    "Not run: the response hit the output token limit, so this call's arguments may be "
    "incomplete. Make the call again with a smaller output."
)


def transition(state: RuntimeState, input_: Input, hooks: Hooks = DEFAULT_HOOKS) -> Transition:
    match input_:
        case LLMEvent():  # first: nearly every input is a streamed delta
            return _on_llm_event(state, input_, hooks)
        case Start(user_message=user_message, context=context, settings=settings):
            return _on_user_messages(state, input_, (*context, user_message), settings, hooks)
        case UserInput(message=message):
            return _on_user_messages(state, input_, (message,), None, hooks)
        case ToolResult():
            return _on_tool_result(state, input_, hooks)
        case ToolProgress():
            return on_progress(state, input_)
        case ToolInterrupted(tool_call_id=tool_call_id):
            waiting = current_call(state, tool_call_id)
            if waiting is None:
                return ignore(state, "tool result nobody waits for")
            return _on_tool_result(state, ToolResult(interrupted_result(waiting, input_)), hooks)
        case Cancel():
            return on_cancel(state, input_)
        case Compact():
            return _on_compact(state, input_, hooks)
        case Fork():
            return on_fork(state, input_)
        case _:
            assert_never(input_)


# -- user messages -------------------------------------------------------------------


def _on_user_messages(
    state: RuntimeState,
    input_: Input,
    messages: tuple[UserMessage, ...],
    settings: TurnSettings | None,
    hooks: Hooks,
) -> Transition:
    conv = state.committed
    chosen: dict[str, Any] = {} if settings is None else {"settings": settings}
    refs = conv.queued_refs
    if isinstance(input_, UserInput) and input_.ref:
        refs = (*refs, (input_.ref, len(conv.queued) + len(messages) - 1))
    conv = replace(conv, queued=(*conv.queued, *messages), queued_refs=refs, **chosen)
    if conv.status not in IDLE_STATUSES:
        return Transition(RuntimeState(conv, state.pending), (), WaitInput())
    # A client's transcript opens an empty conversation only (`Start.history`).
    opening = input_.history if isinstance(input_, Start) and not conv.messages else ()
    conv = append(
        conv,
        (*opening, *conv.queued),
        turn_seq=conv.turn_seq + 1,
        turn_calls=0,
        last_error=None,
        interrupted_call=None,
    )
    return call_llm(conv, input_, hooks, _todos_shown(conv))


# -- the model's stream ----------------------------------------------------------------


def _on_llm_event(state: RuntimeState, input_: LLMEvent, hooks: Hooks) -> Transition:
    conv = state.committed
    event = input_.event
    if input_.call_id == conv.interrupted_call and isinstance(event, ErrorEvent):
        return on_interrupted(conv, event)
    if conv.status is not Status.WAITING_LLM or input_.call_id != conv.call_id:
        return ignore(state, "model event of a call not in flight")
    pending = state.pending
    if pending is None or pending.call_id != input_.call_id:
        pending = PendingResponse(input_.call_id)
    if pending.stop_reason is not None and isinstance(event, DoneEvent | ErrorEvent):
        return on_stopped(conv, pending, event)
    match event:
        case TextDelta() | ThinkingDelta() | ToolCallDelta():
            pass  # the most frequent by far: matched first
        case StartEvent():
            pending = replace(pending, tool_call_ids=())
        case ToolCallStart(id=tool_call_id):
            pending = replace(pending, tool_call_ids=(*pending.tool_call_ids, tool_call_id))
        case TextStart() | TextEnd() | ThinkingStart() | ThinkingEnd() | ToolCallEnd():
            pass
        case DoneEvent() if conv.compaction is not None:
            return _on_summary(conv, input_, event, hooks)
        case DoneEvent():
            return _on_done(conv, pending, input_, event, hooks)
        case ErrorEvent():
            return _on_error(conv, event)
        case _:
            assert_never(event)
    # A summary streams for history, not for the reader: nothing is passed on.
    emit: tuple[Emit, ...] = () if conv.compaction is not None else (event,)
    # Most events change nothing the rules keep: the state is not copied then.
    after = state if pending is state.pending else RuntimeState(conv, pending)
    return Transition(after, emit, _WAIT, commit=False)


def _on_done(
    conv: ConversationState,
    pending: PendingResponse,
    input_: LLMEvent,
    event: DoneEvent,
    hooks: Hooks,
) -> Transition:
    message = event.message
    problem = _invalid_response(pending, message.tool_calls)
    if problem is not None:
        failed = replace(message, stop_reason="error", error_message=problem)
        return _on_error(conv, ErrorEvent("error", failed))
    # A message without content is a notice the server wrote (no key, a
    # refusal note): the client saw it streamed, the history never has it.
    kept = message if message.content else None
    conv = append(conv, (message,) if kept else (), call_id=None)
    ended: tuple[Record, ...] = (CallEnded(input_.call_id, "committed", kept),)
    tool_calls = message.tool_calls
    if tool_calls and event.reason == "length":
        # Cut off by the output limit: the arguments may be incomplete, so the
        # calls are not run (a half-written file is worse than none). Each
        # gets an error result, keeping the transcript valid, and the turn ends.
        unrun = tuple(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=(TextContent(TRUNCATED_CALL),),
                is_error=True,
                timestamp=message.timestamp,
            )
            for call in tool_calls
        )
        conv = append(conv, unrun, status=Status.FINAL)
        return Transition(RuntimeState(conv), (event,), Final(message), records=ended)
    if tool_calls:
        waiting = WaitingClient(tool_calls, 0, operation_id_for(conv, tool_calls[0]))
        conv = replace(conv, status=Status.WAITING_CLIENT, waiting=waiting)
        command = CallClient(waiting.operation_id, waiting.current)
        records = (*ended, operation(conv, waiting, "waiting"))
        return Transition(RuntimeState(conv), (event,), command, records=records)
    if conv.queued or event.reason == "pause":
        # A paused response is history already; the next request, ending with
        # it, lets the provider go on (the per-turn call limit still holds).
        return call_llm(append(conv, conv.queued), input_, hooks, (event,), ended)
    conv = replace(conv, status=Status.FINAL)
    return Transition(RuntimeState(conv), (event,), Final(message), records=ended)


def _invalid_response(pending: PendingResponse, tool_calls: tuple[ToolCall, ...]) -> str | None:
    """The loop matches results to calls by id, so ids must be present and
    unique, and every call that was streamed must be in the final message."""
    ids = [call.id for call in tool_calls]
    if any(not call_id for call_id in ids):
        return "invalid model response: a tool call has no id"
    if len(set(ids)) != len(ids):
        return "invalid model response: duplicate tool call id"
    final_ids = set(ids)
    for streamed in pending.tool_call_ids:
        if streamed not in final_ids:
            return f"invalid model response: tool call {streamed!r} missing at done"
    return None


def _on_error(conv: ConversationState, event: ErrorEvent) -> Transition:
    reason = event.message.error_message or event.reason
    conv = replace(conv, compaction=None)
    call_id = conv.call_id or ""
    if event.reason == "aborted":
        conv = replace(conv, status=Status.CANCELED, call_id=None, last_error=reason)
        ended = CallEnded(call_id, "canceled", error=event.message.error_message)
        return Transition(RuntimeState(conv), (event,), Canceled(reason), records=(ended,))
    failed = event.message
    repair = repair_for(conv.messages, event)
    if repair is not None:
        conv = append(conv, (repair,))
        failed = replace(failed, error_message=banner_text(repair.reason))
    conv = replace(conv, status=Status.FAILED, call_id=None, last_error=reason)
    ended = CallEnded(call_id, "failed", error=event.message.error_message)
    return Transition(RuntimeState(conv), (event,), Failed(failed), records=(ended,))


# -- compaction -------------------------------------------------------------------------------


def _on_compact(state: RuntimeState, input_: Compact, hooks: Hooks) -> Transition:
    """The client asks for a summary now: only between turns, and only when
    there is something to summarize."""
    conv = state.committed
    if conv.status not in IDLE_STATUSES:
        return ignore(state, "summary asked for during a turn")
    if len(conv.window) < 2:
        return ignore(state, "nothing to summarize")
    conv = replace(
        conv, turn_seq=conv.turn_seq + 1, turn_calls=0, last_error=None, interrupted_call=None
    )
    return call_llm(conv, input_, hooks, _todos_shown(conv), requested_summary=True)


def _todos_shown(conv: ConversationState) -> tuple[Emit, ...]:
    """A turn begins by passing on the to-do list it starts from (the
    client's stream may not know it yet)."""
    return (TodosChanged(conv.todos),) if conv.todos else ()


def _on_summary(
    conv: ConversationState, input_: LLMEvent, event: DoneEvent, hooks: Hooks
) -> Transition:
    """Append the summary and record the reset; then end the turn (asked
    for) or go on with the request that did not fit, now from the summary."""
    message = event.message
    summary = message.text.strip()
    if not summary:
        failed = replace(message, stop_reason="error", error_message="the summary came back empty")
        return _on_error(conv, ErrorEvent("error", failed))
    requested = conv.compaction is not None and conv.compaction.requested
    reset = len(conv.messages)
    conv = append(conv, (summary_message(summary, message.timestamp),))
    conv = replace(conv, resets=(*conv.resets, reset), compaction=None, call_id=None)
    ended = (CallEnded(input_.call_id, "committed", message),)
    done = SummaryDone(summary)
    if requested:
        conv = replace(conv, status=Status.FINAL)
        return Transition(RuntimeState(conv), (done,), Final(message), records=ended)
    return call_llm(append(conv, conv.queued), input_, hooks, (done,), ended)


# -- the client's tools ------------------------------------------------------------------


def _on_tool_result(state: RuntimeState, input_: ToolResult, hooks: Hooks) -> Transition:
    conv = state.committed
    waiting = conv.waiting
    if (
        conv.status is not Status.WAITING_CLIENT
        or waiting is None
        or input_.message.tool_call_id != waiting.current.id
    ):
        return ignore(state, "tool result nobody waits for")
    done = operation(conv, waiting, "completed", input_.message)
    conv = append(conv, (input_.message,))
    if input_.model_calls:
        conv = replace(conv, turn_calls=conv.turn_calls + input_.model_calls)
    emit: tuple[Emit, ...] = ()
    if input_.todos is not None:
        conv = replace(conv, todos=input_.todos)
        emit = (TodosChanged(input_.todos),)
    following = waiting.next + 1
    if following < len(waiting.tool_calls):
        call = waiting.tool_calls[following]
        waiting = WaitingClient(waiting.tool_calls, following, operation_id_for(conv, call))
        conv = replace(conv, waiting=waiting)
        records = (done, operation(conv, waiting, "waiting"))
        command = CallClient(waiting.operation_id, call)
        return Transition(RuntimeState(conv), emit, command, records=records)
    return call_llm(append(conv, conv.queued), input_, hooks, emit, records=(done,))
