"""The steps the transition rules share: ids, appending, timestamps, and
opening a model call (which stops at the turn's call limit, and becomes a
compaction first when the request would not fit the context window).

Pure like the rules themselves: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, assert_never

from cursor_byok.llm.events import DoneEvent, ErrorEvent, TextDelta, TextEnd, TextStart
from cursor_byok.llm.serialize import extend_messages_hash, message_hash, messages_hash
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.llm.types import (
    AssistantMessage,
    Message,
    RequestMessages,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
)
from cursor_byok.loop.commands import (
    CallLLM,
    Emit,
    Final,
    Ignored,
    QueuedEntered,
    SummaryStarted,
    Transition,
)
from cursor_byok.loop.compaction import over_threshold, summary_request
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
from cursor_byok.loop.records import CallPlanned, OperationChanged, OperationStatusName, Record
from cursor_byok.loop.state import (
    Compaction,
    ConversationState,
    RuntimeState,
    Status,
    WaitingClient,
)


def limit_text(limit: int) -> str:
    return (
        f"Stopped: this turn reached the limit of {limit} model calls. Send a message to continue."
    )


def default_build_prompt(_input: Input, state: ConversationState) -> str | None:
    return state.settings.system_prompt


def default_build_tools(_input: Input, state: ConversationState) -> tuple[ToolDefinition, ...]:
    return state.settings.tools


@dataclass(frozen=True, slots=True)
class Hooks:
    """Builders for the per-request parts of a model call. They must be pure
    and may read the state, but they never touch `messages`: history only
    grows through the rules above."""

    build_prompt: Callable[[Input, ConversationState], str | None] = default_build_prompt
    build_tools: Callable[[Input, ConversationState], tuple[ToolDefinition, ...]] = (
        default_build_tools
    )


DEFAULT_HOOKS = Hooks()


def call_id_for(conversation_id: str, call_seq: int) -> str:
    return f"{conversation_id}:call:{call_seq}"


def operation_id_for(state: ConversationState, tool_call: ToolCall) -> str:
    """Conversation + turn + model call + tool call id: the same tool call
    always maps to the same operation, so the client runs it once; the model
    call is part of it because some providers reuse ids across responses."""
    return f"{state.turn_id}:call:{state.call_seq}:tool:{tool_call.id}"


def operation(
    state: ConversationState,
    waiting: WaitingClient,
    status: OperationStatusName,
    result: ToolResultMessage | None = None,
) -> OperationChanged:
    """The record of the waited-for tool call's new status."""
    return OperationChanged(
        waiting.operation_id, state.turn_id, waiting.next, waiting.current, status, result
    )


def append(
    state: ConversationState, messages: tuple[Message, ...], **changes: Any
) -> ConversationState:
    """`state` with `messages` added to history and any other `changes` made
    with them (one copy of the state, not one per change). The history is a
    `SharedTuple`: the append costs what it appends, not what came before."""
    if not messages:
        return replace(state, **changes) if changes else state
    chain = state.messages_hash
    for message in messages:
        chain = extend_messages_hash(chain, message_hash(message))
    grown = SharedTuple.of(state.messages) + messages
    return replace(state, messages=grown, messages_hash=chain, **changes)


def ignore(state: RuntimeState, reason: str) -> Transition:
    return Transition(state, (), Ignored(reason), commit=False)


def timestamp_of(input_: Input) -> int:
    """When the input's message was made: the loop reads no clock."""
    match input_:
        case Start(user_message=message) | UserInput(message=message) | ToolResult(message=message):
            return message.timestamp
        case LLMEvent(event=event):
            return event.message.timestamp if isinstance(event, DoneEvent | ErrorEvent) else 0
        case Cancel(timestamp=timestamp) | ToolInterrupted(timestamp=timestamp):
            return timestamp
        case Compact() | ToolProgress() | Fork():
            return 0
        case _:
            assert_never(input_)


def call_llm(
    state: ConversationState,
    input_: Input,
    hooks: Hooks,
    emit: tuple[Emit, ...] = (),
    records: tuple[Record, ...] = (),
    requested_summary: bool = False,
) -> Transition:
    """Open the next model call: the turn's next request or, when it would
    overflow the context window (or the client asked), the summary call."""
    if not requested_summary:  # the queued messages are in history now
        state, emit = _queue_entered(state, emit)
    if state.turn_calls >= state.settings.max_model_calls:
        return _stop_at_limit(state, input_, emit, records)
    seq = state.call_seq + 1
    call_id = call_id_for(state.conversation_id, seq)
    state = replace(
        state,
        status=Status.WAITING_LLM,
        call_seq=seq,
        turn_calls=state.turn_calls + 1,
        call_id=call_id,
        waiting=None,
    )
    prompt = hooks.build_prompt(input_, state)
    tools = hooks.build_tools(input_, state)
    if requested_summary or over_threshold(state, prompt, tools):
        state = replace(state, compaction=Compaction(requested=requested_summary))
        request = summary_request(state, prompt, tools)
        emit = (*emit, SummaryStarted())
    else:
        request = RequestMessages(system_prompt=prompt, messages=state.window, tools=tools)
    # The history's chain identifies a request of the whole history; any
    # other request (after a reset, a summary call) is identified by its own.
    whole = request.messages is state.messages
    chain = state.messages_hash if whole else messages_hash(request.messages)
    command = CallLLM(call_id, state.settings.model, request, chain)
    planned = CallPlanned(call_id, command.model, request, chain)
    return Transition(RuntimeState(state), emit, command, records=(*records, planned))


def _queue_entered(
    state: ConversationState, emit: tuple[Emit, ...]
) -> tuple[ConversationState, tuple[Emit, ...]]:
    """Empty the queue (its messages were just appended); the ones the
    client named are acknowledged, after the commit that appends them."""
    if not state.queued and not state.queued_refs:
        return state, emit
    named = tuple((ref, state.queued[index]) for ref, index in state.queued_refs)
    state = replace(state, queued=(), queued_refs=())
    return state, (*emit, QueuedEntered(named)) if named else emit


def _stop_at_limit(
    state: ConversationState,
    input_: Input,
    emit: tuple[Emit, ...],
    records: tuple[Record, ...],
) -> Transition:
    """End the turn softly: the client sees why as text and a normal end (an
    error end would drop the turn's partial UI); history gets nothing."""
    text = limit_text(state.settings.max_model_calls)
    notice = AssistantMessage(
        content=(TextContent(text),),
        api="cursor-byok",
        provider="cursor-byok",
        model="notice",
        timestamp=timestamp_of(input_),
    )
    state = replace(state, status=Status.FINAL, call_id=None, waiting=None)
    shown = (*emit, TextStart(0), TextDelta(0, text), TextEnd(0, text))
    return Transition(RuntimeState(state), shown, Final(notice), records=records)
