"""Cancel: what a turn stopped midway keeps (the rules of `transition`
for a cancel, and for the last word of the model call it stopped).

A call that streams is stopped first, and nothing is committed until its
last word (the adapter's `aborted` event with the partial response) comes:
then what had streamed is committed with the cancel, in one commit, and
only after it does the turn end canceled. So a crash between the two loses
neither: the call is still in flight, and is made again. A tool call the
client runs gets an error result, with the output that had arrived.
"""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.events import DoneEvent, ErrorEvent
from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop.commands import Canceled, StopCall, Transition, WaitInput
from cursor_byok.loop.inputs import Cancel
from cursor_byok.loop.interrupt import interrupted_messages
from cursor_byok.loop.records import CallEnded
from cursor_byok.loop.state import ConversationState, PendingResponse, RuntimeState, Status
from cursor_byok.loop.steps import append, ignore, operation
from cursor_byok.loop.tool_runs import OUTPUT_ARRIVED


def on_cancel(state: RuntimeState, input_: Cancel) -> Transition:
    conv = state.committed
    if conv.status is Status.WAITING_LLM and conv.compaction is None and conv.call_id:
        # Nothing is committed yet: the stopped stream's partial response
        # comes next, and is committed with the cancel (`on_stopped`).
        pending = state.pending
        if pending is None or pending.call_id != conv.call_id:
            pending = PendingResponse(conv.call_id)
        pending = replace(pending, stop_reason=input_.reason, stop_timestamp=input_.timestamp)
        return Transition(RuntimeState(conv, pending), (), StopCall(conv.call_id), commit=False)
    if conv.status is Status.WAITING_LLM:
        # A summary cut short is not part of the conversation: nothing to keep.
        ended = CallEnded(conv.call_id or "", "canceled", error="canceled")
        conv = replace(
            conv,
            status=Status.CANCELED,
            call_id=None,
            compaction=None,
            interrupted_call=None,
            last_error=input_.reason,
        )
        return Transition(RuntimeState(conv), (), Canceled(input_.reason), records=(ended,))
    if conv.status is Status.WAITING_CLIENT and conv.waiting is not None:
        # Every tool call in history needs a result, or the next request is
        # rejected by the providers; a canceled call gets an error result.
        waiting = conv.waiting
        text = f"Tool call canceled: {input_.reason}"
        shown = f"{text}\n{OUTPUT_ARRIVED}\n{waiting.output}" if waiting.output else text
        results = tuple(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=(TextContent(shown if index == waiting.next else text),),
                is_error=True,
                timestamp=input_.timestamp,
            )
            for index, call in enumerate(waiting.tool_calls)
            if index >= waiting.next
        )
        stopped = operation(conv, waiting, "canceled")
        conv = replace(
            append(conv, results),
            status=Status.CANCELED,
            waiting=None,
            last_error=input_.reason,
        )
        return Transition(RuntimeState(conv), (), Canceled(input_.reason), records=(stopped,))
    return ignore(state, "nothing to cancel")


def on_stopped(
    conv: ConversationState, pending: PendingResponse, event: DoneEvent | ErrorEvent
) -> Transition:
    """The last word of a call a cancel stopped: what had streamed becomes a
    new message, marked interrupted, committed with the cancel itself; only
    then does the turn end canceled."""
    reason = pending.stop_reason or "canceled"
    message = event.message
    if not message.timestamp:
        message = replace(message, timestamp=pending.stop_timestamp)
    kept = interrupted_messages(message, reason)
    ended = CallEnded(conv.call_id or "", "canceled", error="canceled")
    conv = append(conv, kept, status=Status.CANCELED, call_id=None, last_error=reason)
    return Transition(RuntimeState(conv), (), Canceled(reason), records=(ended,))


def on_interrupted(conv: ConversationState, event: ErrorEvent) -> Transition:
    """The partial response of a call whose cancel an earlier version
    committed first (`interrupted_call` in a stored state): what had
    streamed becomes a new message, marked interrupted."""
    kept = interrupted_messages(event.message, conv.last_error or "canceled")
    conv = append(conv, kept, interrupted_call=None)
    return Transition(RuntimeState(conv), (), WaitInput())
