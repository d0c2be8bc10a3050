"""The pure transition: `transition(state, input) -> Transition`.

This module is the loop's only judge. It performs no I/O, reads no clock and
draws no random numbers: the same state and input always give the same new
state, events and command. The runner in `transport` does everything else.

The rules, top to bottom (seed §7.3, §10, §11):

    input            state              effect                                  command
    ---------------  -----------------  --------------------------------------  -----------
    Start/UserInput  idle               append queued + context + user message  CallLLM
    Start/UserInput  busy               queue the messages (nothing is lost)    WaitInput
    LLMEvent         other call / idle  ignored, state unchanged                WaitInput
    LLMEvent start   waiting LLM        new pending (a retry never merges)      ContinueLLM
    LLMEvent block   waiting LLM        aggregate into pending, re-emit         ContinueLLM
    LLMEvent done    waiting LLM        append the one assistant message;
                                        tool calls -> dispatch the first        CallClient
                                        (cut off by length: error results)      Final
                                        queued user messages -> next call       CallLLM
                                        otherwise                               Final
    LLMEvent error   waiting LLM        drop pending, append nothing            Failed
    LLMEvent aborted waiting LLM        drop pending, append nothing            Canceled
    ToolResult       current call's id  append; next call, or all in ->        CallClient/CallLLM
    ToolResult       any other id       ignored (duplicate or unknown)          WaitInput
    Cancel           waiting LLM        drop pending                            Canceled
    Cancel           waiting client     append an is_error result per
                                        unfinished tool call                    Canceled
    Cancel           idle               nothing to stop                         Canceled
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

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
from cursor_byok.llm.serialize import extend_messages_hash, message_hash
from cursor_byok.llm.types import (
    Message,
    RequestMessages,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.loop.commands import (
    CallClient,
    CallLLM,
    Canceled,
    ContinueLLM,
    Failed,
    Final,
    Transition,
    WaitInput,
)
from cursor_byok.loop.inputs import Cancel, Input, LLMEvent, Start, ToolResult, UserInput
from cursor_byok.loop.state import (
    IDLE_STATUSES,
    BlockKind,
    ConversationState,
    PendingBlock,
    PendingResponse,
    RuntimeState,
    Status,
    TurnSettings,
    WaitingClient,
)

TRUNCATED_CALL = (
    "Not run: the response hit the output token limit, so this call's arguments may be "
    "incomplete. Make the call again with a smaller output."
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


def transition(state: RuntimeState, input: Input, hooks: Hooks = DEFAULT_HOOKS) -> Transition:
    match input:
        case Start(user_message=user_message, context=context, settings=settings):
            return _on_user_messages(state, input, (*context, user_message), settings, hooks)
        case UserInput(message=message):
            return _on_user_messages(state, input, (message,), None, hooks)
        case LLMEvent():
            return _on_llm_event(state, input, hooks)
        case ToolResult():
            return _on_tool_result(state, input, hooks)
        case Cancel():
            return _on_cancel(state, input)


# -- ids -------------------------------------------------------------------------


def call_id_for(conversation_id: str, call_seq: int) -> str:
    return f"{conversation_id}:call:{call_seq}"


def operation_id_for(state: ConversationState, tool_call: ToolCall) -> str:
    """Conversation + turn + model call + tool call id: the same tool call
    always maps to the same operation, so the client runs it once; the model
    call is part of it because some providers reuse ids across responses."""
    return f"{state.turn_id}:call:{state.call_seq}:tool:{tool_call.id}"


# -- helpers -----------------------------------------------------------------------


def _append(state: ConversationState, messages: tuple[Message, ...]) -> ConversationState:
    if not messages:
        return state
    chain = state.messages_hash
    for message in messages:
        chain = extend_messages_hash(chain, message_hash(message))
    return replace(state, messages=state.messages + messages, messages_hash=chain)


def _ignore(state: RuntimeState) -> Transition:
    return Transition(state, (), WaitInput())


def _call_llm(
    state: ConversationState, input: Input, hooks: Hooks, emit: tuple[DoneEvent, ...] = ()
) -> Transition:
    seq = state.call_seq + 1
    call_id = call_id_for(state.conversation_id, seq)
    state = replace(
        state, status=Status.WAITING_LLM, call_seq=seq, call_id=call_id, waiting=None, queued=()
    )
    request = RequestMessages(
        system_prompt=hooks.build_prompt(input, state),
        messages=state.messages,
        tools=hooks.build_tools(input, state),
    )
    command = CallLLM(call_id, state.settings.model, request, state.messages_hash)
    return Transition(RuntimeState(state), emit, command)


# -- user messages -------------------------------------------------------------------


def _on_user_messages(
    state: RuntimeState,
    input: Input,
    messages: tuple[UserMessage, ...],
    settings: TurnSettings | None,
    hooks: Hooks,
) -> Transition:
    conv = state.committed
    if settings is not None:
        conv = replace(conv, settings=settings)
    if conv.status not in IDLE_STATUSES:
        conv = replace(conv, queued=conv.queued + messages)
        return Transition(RuntimeState(conv, state.pending), (), WaitInput())
    conv = _append(conv, (*conv.queued, *messages))
    conv = replace(conv, turn_seq=conv.turn_seq + 1, last_error=None)
    return _call_llm(conv, input, hooks)


# -- the model's stream ----------------------------------------------------------------


def _on_llm_event(state: RuntimeState, input: LLMEvent, hooks: Hooks) -> Transition:
    conv = state.committed
    if conv.status is not Status.WAITING_LLM or input.call_id != conv.call_id:
        return _ignore(state)
    pending = state.pending
    if pending is None or pending.call_id != input.call_id:
        pending = PendingResponse(input.call_id)
    event = input.event
    match event:
        case StartEvent():
            pending = PendingResponse(input.call_id)
        case TextStart(content_index=index):
            pending = _open(pending, PendingBlock("text", index))
        case ThinkingStart(content_index=index):
            pending = _open(pending, PendingBlock("thinking", index))
        case ToolCallStart(content_index=index, id=call_id, name=name):
            pending = _open(pending, PendingBlock("toolCall", index, call_id, name))
        case TextDelta(content_index=index, delta=delta):
            pending = _add(pending, "text", index, delta)
        case ThinkingDelta(content_index=index, delta=delta):
            pending = _add(pending, "thinking", index, delta)
        case ToolCallDelta(content_index=index, delta=delta):
            pending = _add(pending, "toolCall", index, delta)
        case TextEnd(content_index=index):
            pending = _close(pending, "text", index)
        case ThinkingEnd(content_index=index):
            pending = _close(pending, "thinking", index)
        case ToolCallEnd(content_index=index):
            pending = _close(pending, "toolCall", index)
        case DoneEvent():
            return _on_done(conv, pending, input, event, hooks)
        case ErrorEvent():
            return _on_error(conv, event)
    pending = replace(pending, event_count=pending.event_count + 1)
    return Transition(RuntimeState(conv, pending), (event,), ContinueLLM())


def _on_done(
    conv: ConversationState,
    pending: PendingResponse,
    input: LLMEvent,
    event: DoneEvent,
    hooks: Hooks,
) -> Transition:
    message = event.message
    problem = _invalid_response(pending, message.tool_calls)
    if problem is not None:
        failed = replace(message, stop_reason="error", error_message=problem)
        return _on_error(conv, ErrorEvent("error", failed))
    conv = replace(_append(conv, (message,)), call_id=None)
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
        conv = replace(_append(conv, unrun), status=Status.FINAL)
        return Transition(RuntimeState(conv), (event,), Final(message))
    if tool_calls:
        waiting = WaitingClient(tool_calls, 0, operation_id_for(conv, tool_calls[0]))
        conv = replace(conv, status=Status.WAITING_CLIENT, waiting=waiting)
        command = CallClient(waiting.operation_id, waiting.current)
        return Transition(RuntimeState(conv), (event,), command)
    if conv.queued:
        return _call_llm(_append(conv, conv.queued), input, hooks, (event,))
    conv = replace(conv, status=Status.FINAL)
    return Transition(RuntimeState(conv), (event,), Final(message))


def _invalid_response(pending: PendingResponse, tool_calls: tuple[ToolCall, ...]) -> str | None:
    """The loop matches results to calls by id, so ids must be present and
    unique, and every call that was streamed must be in the final message."""
    ids = [call.id for call in tool_calls]
    if any(not call_id for call_id in ids):
        return "invalid model response: a tool call has no id"
    if len(set(ids)) != len(ids):
        return "invalid model response: duplicate tool call id"
    final_ids = set(ids)
    for block in pending.blocks:
        if block.kind == "toolCall" and block.tool_call_id not in final_ids:
            return f"invalid model response: tool call {block.tool_call_id!r} missing at done"
    return None


def _on_error(conv: ConversationState, event: ErrorEvent) -> Transition:
    reason = event.message.error_message or event.reason
    if event.reason == "aborted":
        conv = replace(conv, status=Status.CANCELED, call_id=None, last_error=reason)
        return Transition(RuntimeState(conv), (event,), Canceled(reason))
    conv = replace(conv, status=Status.FAILED, call_id=None, last_error=reason)
    return Transition(RuntimeState(conv), (event,), Failed(event.message))


def _find(pending: PendingResponse, index: int) -> int:
    for position in range(len(pending.blocks) - 1, -1, -1):
        if pending.blocks[position].content_index == index:
            return position
    return -1


def _put(pending: PendingResponse, position: int, block: PendingBlock) -> PendingResponse:
    blocks = pending.blocks
    if position < 0:
        return replace(pending, blocks=(*blocks, block))
    return replace(pending, blocks=(*blocks[:position], block, *blocks[position + 1 :]))


def _open(pending: PendingResponse, block: PendingBlock) -> PendingResponse:
    return _put(pending, _find(pending, block.content_index), block)


def _add(pending: PendingResponse, kind: BlockKind, index: int, delta: str) -> PendingResponse:
    position = _find(pending, index)
    block = pending.blocks[position] if position >= 0 else PendingBlock(kind, index)
    return _put(pending, position, replace(block, chunks=(delta, block.chunks)))


def _close(pending: PendingResponse, kind: BlockKind, index: int) -> PendingResponse:
    position = _find(pending, index)
    block = pending.blocks[position] if position >= 0 else PendingBlock(kind, index)
    return _put(pending, position, replace(block, closed=True))


# -- the client's tools ------------------------------------------------------------------


def _on_tool_result(state: RuntimeState, input: ToolResult, hooks: Hooks) -> Transition:
    conv = state.committed
    waiting = conv.waiting
    if (
        conv.status is not Status.WAITING_CLIENT
        or waiting is None
        or input.message.tool_call_id != waiting.current.id
    ):
        return _ignore(state)
    conv = _append(conv, (input.message,))
    following = waiting.next + 1
    if following < len(waiting.tool_calls):
        call = waiting.tool_calls[following]
        waiting = WaitingClient(waiting.tool_calls, following, operation_id_for(conv, call))
        conv = replace(conv, waiting=waiting)
        return Transition(RuntimeState(conv), (), CallClient(waiting.operation_id, call))
    return _call_llm(_append(conv, conv.queued), input, hooks)


# -- cancel ----------------------------------------------------------------------------------


def _on_cancel(state: RuntimeState, input: Cancel) -> Transition:
    conv = state.committed
    if conv.status is Status.WAITING_LLM:
        conv = replace(conv, status=Status.CANCELED, call_id=None, last_error=input.reason)
    elif conv.status is Status.WAITING_CLIENT and conv.waiting is not None:
        # Every tool call in history needs a result, or the next request is
        # rejected by the providers; a canceled call gets an error result.
        results = tuple(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=(TextContent(f"Tool call canceled: {input.reason}"),),
                is_error=True,
                timestamp=input.timestamp,
            )
            for call in conv.waiting.tool_calls[conv.waiting.next :]
        )
        conv = replace(
            _append(conv, results),
            status=Status.CANCELED,
            waiting=None,
            last_error=input.reason,
        )
    else:
        return Transition(state, (), Canceled(input.reason))
    return Transition(RuntimeState(conv), (), Canceled(input.reason))
