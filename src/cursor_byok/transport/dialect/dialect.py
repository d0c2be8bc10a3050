"""The Cursor dialect: protobuf <-> the loop's inputs and the model's events.

Decode and encode only (seed §9). The dialect adds the protocol's
correlation ids (exec numbers, tool call ids, model call ids) but never
edits history, guesses tool calls from text, decides retries, runs tools or
keeps loop state. Order of a turn on the wire (protocol reference §3):
deltas -> tool_call_started -> checkpoint -> exec request -> (client result)
-> tool_call_completed -> ... -> checkpoint with token details ->
turn_ended with usage -> end of stream.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import assert_never

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
from cursor_byok.llm.image_fit import tool_image
from cursor_byok.llm.notice import BUDGET, BUDGET_UNCHECKED, is_server_error
from cursor_byok.llm.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage
from cursor_byok.loop.commands import (
    CallClient,
    Canceled,
    Emit,
    Failed,
    Final,
    QueuedEntered,
    SummaryDone,
    SummaryStarted,
    TodosChanged,
)
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.dialect import checkpoints, meter, modes
from cursor_byok.transport.dialect.acknowledgements import user_messages_appended

# What the client sends, decoded (named here too, as the session reads them).
from cursor_byok.transport.dialect.client_events import BlobArrived as BlobArrived
from cursor_byok.transport.dialect.client_events import CancelRequested as CancelRequested
from cursor_byok.transport.dialect.client_events import ClientEvent as ClientEvent
from cursor_byok.transport.dialect.client_events import ContextArrived as ContextArrived
from cursor_byok.transport.dialect.client_events import ExecReply as ExecReply
from cursor_byok.transport.dialect.client_events import ExecThrown as ExecThrown
from cursor_byok.transport.dialect.client_events import FollowUp as FollowUp
from cursor_byok.transport.dialect.client_events import Ignored as Ignored
from cursor_byok.transport.dialect.client_events import KvAnswered as KvAnswered
from cursor_byok.transport.dialect.client_events import QueryAnswered as QueryAnswered
from cursor_byok.transport.dialect.client_events import (
    decode_client_message as decode_client_message,
)
from cursor_byok.transport.dialect.meter import add_usage, turn_ended
from cursor_byok.transport.dialect.partial_cards import PartialCards
from cursor_byok.transport.dialect.provider_cards import provider_searches
from cursor_byok.transport.dialect.run_request import error_banner
from cursor_byok.transport.dialect.todo_tool import item_to_pb
from cursor_byok.transport.dialect.tools import NativeTool, Tool, ToolOutcome, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb


def tool_result_message(call: ToolCall, outcome: ToolOutcome, now_ms: int) -> ToolResultMessage:
    """The outcome as history keeps it: its text, then each image it returned
    (typed by its bytes, or a note when they are no image a model takes)."""
    images = tuple(tool_image(data) for data in outcome.images)
    text = (TextContent(outcome.text),) if outcome.text or not images else ()
    return ToolResultMessage(call.id, call.name, (*text, *images), outcome.is_error, now_ms)


# -- encoding: what the client is sent -----------------------------------------------


@dataclass(slots=True)
class StreamContext:
    """Per-stream protocol state: exec numbering, the turn's usage, timings."""

    stream_id: str = ""
    model_call_id: str = ""
    model_calls: int = 0
    context_window: int = 200_000
    next_exec: int = 1
    usage: Usage = field(default_factory=Usage)
    last_prompt_tokens: int = 0
    thinking_started: float | None = None
    tool_names: dict[str, str] = field(default_factory=dict)
    characters: dict[str, int] = field(default_factory=dict)
    """Characters of the prompt by meter category, as far as known."""
    streamed_chars: int = 0
    streamed_tokens: int = 0
    """Text and thinking of the current model call, for the live token counter."""
    unsent_tokens: int = 0
    """How far the live token counter moved that no token_delta carries yet:
    the session adds it to its outbox (`Outbox.add_tokens`) when `token_step`
    says it is due."""
    tokens_shown_at: float = float("-inf")
    """When the counter last moved on the client (the session's clock)."""
    turn: checkpoints.TurnBlobs = field(default_factory=checkpoints.TurnBlobs)
    typed: list[pb.UserMessage] = field(default_factory=list)
    """Messages typed during the turn on this stream, queued by the loop and
    not yet acknowledged: each is echoed as it came when it enters history."""
    partials: PartialCards = field(default_factory=PartialCards)
    """Tool calls whose card grows while their arguments stream."""
    mode: str = "agent"
    """The conversation's mode (`modes`): the run's, or the one a switch the
    user approved made; every checkpoint names it."""
    project_folder: str = ""
    """The client's folder for the project (`RunStarted.project_folder`)."""

    def current_model_call(self) -> str:
        """The id cards carry. A stream opened by a resume may re-send a pending
        call before any model call of its own; the CLI drops a card with an
        empty id, so such cards get this stream's own (model call 0)."""
        if not self.model_call_id:
            self.model_call_id = f"{self.stream_id}:model:{self.model_calls}"
        return self.model_call_id

    def exec_number(self) -> int:
        number = self.next_exec
        self.next_exec += 1
        return number


def _update(**branch: object) -> pb.AgentServerMessage:
    return pb.AgentServerMessage(interaction_update=pb.InteractionUpdate(**branch))  # type: ignore[arg-type]


def heartbeat() -> pb.AgentServerMessage:
    return _update(heartbeat=pb.HeartbeatUpdate())


def checkpoint(
    context: StreamContext, pending: tuple[ToolCall, ...] = ()
) -> list[pb.AgentServerMessage]:
    """The blobs the client lacks, then the checkpoint (turns, token details,
    the tool calls still pending)."""
    return checkpoints.checkpoint(
        context.turn,
        meter.checkpoint(context.last_prompt_tokens, context.context_window, context.characters),
        pending,
        modes.ENUM.get(context.mode, 0),
    )


def encode_event(
    event: Emit, context: StreamContext, tools: ToolSet, now: float
) -> list[pb.AgentServerMessage]:
    """A model or loop event as the messages Cursor renders; most events map
    to one update, bookkeeping events (start, text start/end) to none. The
    live token counter's step is left in `context.unsent_tokens`. (A text
    delta, by far the most frequent event, is matched first.)"""
    match event:
        case TextDelta(delta=delta) if delta:
            _count_tokens(context, delta)
            return [_text_delta(delta)]
        case SummaryStarted():
            return [_update(summary_started=pb.SummaryStartedUpdate())]
        case SummaryDone(summary=summary):
            # Requests now start from the summary: the meter drops to it.
            characters = context.characters
            characters.update({meter.SUMMARY: len(summary), meter.CONVERSATION: 0})
            context.last_prompt_tokens = meter.estimated_tokens(characters)
            return [
                _update(summary=pb.SummaryUpdate(summary=summary)),
                _update(summary_completed=pb.SummaryCompletedUpdate()),
            ]
        case StartEvent():
            context.model_calls += 1
            context.model_call_id = f"{context.stream_id}:model:{context.model_calls}"
            context.streamed_chars = context.streamed_tokens = 0
            context.partials.clear()
            return []
        case QueuedEntered(messages=entered):
            return user_messages_appended(context.typed, entered)
        case ThinkingStart():
            context.thinking_started = now
            return []
        case ThinkingDelta(delta=delta) if delta:
            update = pb.ThinkingDeltaUpdate(text=delta, thinking_style=pb.THINKING_STYLE_DEFAULT)
            _count_tokens(context, delta)
            return [_update(thinking_delta=update)]
        case ThinkingEnd():
            started = context.thinking_started if context.thinking_started is not None else now
            context.thinking_started = None
            duration = int((now - started) * 1000)
            return [
                _update(
                    thinking_completed=pb.ThinkingCompletedUpdate(thinking_duration_ms=duration)
                )
            ]
        case ToolCallStart(content_index=index, id=call_id, name=name):
            context.tool_names[call_id] = name
            tool = tools.get(name)
            if tool is None:
                return []
            context.partials.start(index, call_id, tool)
            return [_partial(call_id, tool.card(ToolCall(call_id, name, {}), None), context)]
        case ToolCallDelta(content_index=index, delta=delta) if context.partials:
            grown = context.partials.grow(index, delta)
            return [] if grown is None else [_partial(grown[0], grown[1], context)]
        case TodosChanged(todos=todos):
            # Committed: a checkpoint names a list the client lacks at once.
            named = context.turn.todos
            context.turn.set_todos(map(item_to_pb, todos))
            return [] if context.turn.todos == named else checkpoint(context)
        case DoneEvent(message=message):
            context.partials.clear()
            usage = message.usage
            context.usage = add_usage(context.usage, usage)
            context.last_prompt_tokens = usage.input + usage.cache_read + usage.cache_write
            context.turn.add_answer(message)
            searched = _searched(message, context)
            # The provider's count replaces the estimate: send what is missing.
            rest = usage.output - context.streamed_tokens
            if rest > 0:
                context.streamed_tokens = usage.output
                context.unsent_tokens += rest
            return searched
        case (
            TextStart()
            | TextDelta()
            | TextEnd()
            | ThinkingDelta()
            | ToolCallDelta()
            | ToolCallEnd()
            | ErrorEvent()
        ):
            return []  # bookkeeping, or shown otherwise (an error ends the stream)
        case _:
            assert_never(event)


def _searched(message: AssistantMessage, context: StreamContext) -> list[pb.AgentServerMessage]:
    """The cards of the searches the provider ran itself in `message`."""
    out: list[pb.AgentServerMessage] = []
    for call, started, done in provider_searches(message):
        model_call = context.current_model_call()
        update = pb.ToolCallStartedUpdate(
            call_id=call.id, tool_call=started, model_call_id=model_call
        )
        out.append(_update(tool_call_started=update))
        out.extend(tool_completed(call, done, context))
    return out


def _partial(call_id: str, card: pb.ToolCall, context: StreamContext) -> pb.AgentServerMessage:
    partial = pb.PartialToolCallUpdate(
        call_id=call_id, tool_call=card, model_call_id=context.model_call_id
    )
    return _update(partial_tool_call=partial)


CHARS_PER_TOKEN = 4
"""A rough count while streaming; the usage at the end of the call corrects it."""


def _text_delta(text: str) -> pb.AgentServerMessage:
    """Set in place rather than built from nested constructors (each of which
    copies): a third of the cost, on the path of every streamed delta."""
    message = pb.AgentServerMessage()
    message.interaction_update.text_delta.text = text
    return message


MAX_TOKEN_DELTA = 2**31 - 1
"""`token_delta.tokens` is an int32."""


def token_delta(tokens: int) -> pb.AgentServerMessage:
    """A step of the live token counter (see `Outbox.add_tokens`)."""
    message = pb.AgentServerMessage()  # in place, as `_text_delta`
    set_tokens(message, tokens)
    return message


def set_tokens(message: pb.AgentServerMessage, tokens: int) -> None:
    """Make a `token_delta` message carry a step of `tokens`."""
    message.interaction_update.token_delta.tokens = min(tokens, MAX_TOKEN_DELTA)


TOKEN_STEP_S = 0.1
"""While text or thinking streams, the live counter moves at most this often.
It is cosmetic (the usage at the end of the call is what counts), and a
token_delta per streamed piece doubled the messages of every answer: each
costs the server an encode and a frame, and the client a decode."""

_STREAMED = (TextDelta, ThinkingDelta)


def token_step(context: StreamContext, event: Emit, now: float) -> int:
    """The counter's step to send after `event` (0: none now). A streamed
    piece holds it back until `TOKEN_STEP_S` have passed since the last step;
    any other event (the end of the model call among them, which brings the
    provider's own count) sends what is held, so the counter ends exact. A
    clock set back since the last step counts as time passed."""
    tokens = context.unsent_tokens
    if not tokens:
        return 0
    if isinstance(event, _STREAMED) and 0 <= now - context.tokens_shown_at < TOKEN_STEP_S:
        return 0
    context.unsent_tokens = 0
    context.tokens_shown_at = now
    return tokens


def _count_tokens(context: StreamContext, delta: str) -> None:
    """The live token counter's step for one streamed piece, if it moved."""
    context.streamed_chars += len(delta)
    estimate = -(-context.streamed_chars // CHARS_PER_TOKEN)
    step = estimate - context.streamed_tokens
    if step > 0:
        context.streamed_tokens = estimate
        context.unsent_tokens += step


def tool_started(call: ToolCall, tool: Tool, context: StreamContext) -> pb.AgentServerMessage:
    started = pb.ToolCallStartedUpdate(
        call_id=call.id, tool_call=tool.card(call, None), model_call_id=context.current_model_call()
    )
    return _update(tool_call_started=started)


def encode_call_client(
    command: CallClient, tool: Tool, context: StreamContext, request: pb.ExecServerMessage
) -> list[pb.AgentServerMessage]:
    """tool_call_started -> checkpoint -> the exec request (built by the exec
    tracker) -> checkpoint naming the pending call (a client may surface the
    call only after that one)."""
    call = command.tool_call
    return [
        tool_started(call, tool, context),
        *checkpoint(context),
        pb.AgentServerMessage(exec_server_message=request),
        *checkpoint(context, (call,)),
    ]


def encode_tool_completed(
    call: ToolCall, tool: NativeTool, result: pb.ExecClientMessage | None, context: StreamContext
) -> list[pb.AgentServerMessage]:
    return tool_completed(call, tool.card(call, result), context, tool.card_blobs(result))


def tool_completed(
    call: ToolCall, card: pb.ToolCall, context: StreamContext, blobs: Iterable[bytes] = ()
) -> list[pb.AgentServerMessage]:
    """The completed card, after `set_blob` of what it names by blob id (an
    image a read returned), so the client holds it before the card names it;
    the card also becomes a step of the turn's blobs."""
    for data in blobs:
        context.turn.keep(data)
    checkpoints.note_completed(context.turn, call.id, card)
    stored = context.turn.flush()
    context.turn.add_step(pb.ConversationStep(tool_call=card))
    completed = pb.ToolCallCompletedUpdate(
        call_id=call.id, tool_call=card, model_call_id=context.current_model_call()
    )
    return [*stored, _update(tool_call_completed=completed)]


def encode_final(command: Final, context: StreamContext) -> list[pb.AgentServerMessage]:
    """The closing sequence: checkpoint with token details, then turn_ended."""
    del command
    return [*checkpoint(context), turn_ended(context.usage)]


USER_ABORTED = "User aborted request"
"""The detail the official client reads as "the user stopped it" (no error banner)."""


def error_for(outbound: Failed | Canceled) -> WireError:
    """What ends a failed or canceled stream: a Connect error whose details
    give Cursor's banner a title, a detail and a retry button."""
    if isinstance(outbound, Canceled):
        aborted = error_banner(
            errors_pb.ErrorDetails.ERROR_USER_ABORTED_REQUEST, "Canceled", USER_ABORTED, False
        )
        return WireError(Code.CANCELED, f"[canceled] {outbound.reason}", (aborted,))
    text = outbound.message.error_message or "the model call failed"
    kind = errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE
    if is_server_error(outbound.message, BUDGET):  # no retry button: it would fail alike
        budget = error_banner(kind, "Budget reached", text, False)
        return WireError(Code.RESOURCE_EXHAUSTED, text, (budget,))
    if is_server_error(outbound.message, BUDGET_UNCHECKED):  # the database, for now
        unchecked = error_banner(kind, "Budget not checked", text, True)
        return WireError(Code.UNAVAILABLE, text, (unchecked,))
    banner = error_banner(
        errors_pb.ErrorDetails.ERROR_PROVIDER_ERROR,
        "The model provider returned an error",
        text,
        True,
    )
    return WireError(Code.UNAVAILABLE, text, (banner,))
