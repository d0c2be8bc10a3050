"""Loop state: the committed conversation and the in-memory pending response.

`ConversationState` is what the store commits. `PendingResponse` exists only
in memory while a model call streams; it is dropped on error, abort or crash
and never becomes history. Only a `done` event's complete message is appended
(the adapters' assembler builds it; the loop does not aggregate deltas again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from cursor_byok.llm.serialize import EMPTY_MESSAGES_HASH
from cursor_byok.llm.types import Message, ToolCall, ToolDefinition, UserMessage
from cursor_byok.loop.todos import TodoItem


class Status(StrEnum):
    READY = "ready"
    WAITING_LLM = "waiting_llm"
    WAITING_CLIENT = "waiting_client"
    FINAL = "final"
    FAILED = "failed"
    CANCELED = "canceled"


IDLE_STATUSES = frozenset({Status.READY, Status.FINAL, Status.FAILED, Status.CANCELED})

DEFAULT_MAX_MODEL_CALLS = 100


@dataclass(frozen=True, slots=True)
class SubagentOf:
    """The conversation whose Task call started this one as its subagent."""

    conversation_id: str
    """The parent's conversation ("" when this process could not tell)."""
    tool_call_id: str
    """The parent's Task call."""
    request_id: str = ""
    """The parent's request, as the child's client named it."""


@dataclass(frozen=True, slots=True)
class TurnSettings:
    """What the client chose for the conversation: the model to call, the
    system prompt and the tools it offers. Requests are rebuilt from these."""

    model: str = ""
    system_prompt: str | None = None
    tools: tuple[ToolDefinition, ...] = ()
    max_model_calls: int = DEFAULT_MAX_MODEL_CALLS
    """A turn that keeps calling tools without end stops softly after this
    many model calls, with a notice instead of another call."""
    context_window: int | None = None
    """The model's context window in tokens; None: never compact on its own."""
    compact_share: float = 0.9
    """Compact when the next request would fill more than this share of it."""
    parent: SubagentOf | None = None
    """Set when the conversation is a subagent's (never part of a request)."""


@dataclass(frozen=True, slots=True)
class WaitingClient:
    """The tool calls of the last assistant message, dispatched one at a time
    in content order; `next` indexes the one the client is running now."""

    tool_calls: tuple[ToolCall, ...]
    next: int
    operation_id: str
    output: str = ""
    """What arrived of the current call's output while it ran (a shell
    command's, streamed): committed piece by piece, so that if its run is
    cut off (a lost connection, a restart) the result can say what arrived."""

    @property
    def current(self) -> ToolCall:
        return self.tool_calls[self.next]


@dataclass(frozen=True, slots=True)
class Compaction:
    """A summary call in flight. `requested`: the client asked for it (the
    turn ends with the summary); otherwise the turn goes on after it."""

    requested: bool


@dataclass(frozen=True, slots=True)
class ConversationState:
    """The committed state of one conversation.

    `messages` only ever grows by whole messages (appended as a
    `SharedTuple`, so an append costs what it appends; any sequence is
    taken, a tuple as well); `messages_hash` is the chain hash of
    `messages`, extended on every append. `call_seq` and
    `turn_seq` make call and operation ids deterministic on replay.
    `turn_calls` counts the model calls of the current turn, so the per-turn
    limit holds across a restart. `resets` are the indexes of compaction
    summaries: requests start at the last one (the messages before it stay,
    they are only no longer sent). `todos` is the conversation's to-do list
    (see `todos`), which only a tool result changes.
    """

    conversation_id: str
    turn_seq: int = 0
    messages: Sequence[Message] = ()
    messages_hash: str = EMPTY_MESSAGES_HASH
    status: Status = Status.READY
    settings: TurnSettings = field(default_factory=TurnSettings)
    call_seq: int = 0
    turn_calls: int = 0
    call_id: str | None = None
    waiting: WaitingClient | None = None
    queued: tuple[UserMessage, ...] = ()
    queued_refs: tuple[tuple[str, int], ...] = ()
    """The client's names for messages in `queued` (with their index there):
    each is acknowledged once the message enters history, after a restart too."""
    last_error: str | None = None
    resets: tuple[int, ...] = ()
    compaction: Compaction | None = None
    interrupted_call: str | None = None
    """A call canceled while it streamed, whose partial response (the
    adapter's last word, an `aborted` event) is still to be kept."""
    todos: tuple[TodoItem, ...] = ()

    @property
    def turn_id(self) -> str:
        return f"{self.conversation_id}:turn:{self.turn_seq}"

    @property
    def window_start(self) -> int:
        """Index of the first message requests send."""
        return self.resets[-1] if self.resets else 0

    @property
    def window(self) -> Sequence[Message]:
        """The messages requests send: all of them, or those from the last
        reset (a view, not a copy, of a `SharedTuple`)."""
        start = self.window_start
        return self.messages[start:] if start else self.messages


@dataclass(frozen=True, slots=True)
class PendingResponse:
    """What the rules read of one streaming attempt of call `call_id`: the
    ids of the tool calls it has started (each must be in the final message).
    Text and arguments are aggregated by the adapter's assembler, not here."""

    call_id: str
    tool_call_ids: tuple[str, ...] = ()
    stop_reason: str | None = None
    """A cancel is stopping the call: its partial response, when it comes,
    is committed with the cancel (`stop_timestamp` its time)."""
    stop_timestamp: int = 0


@dataclass(frozen=True, slots=True)
class RuntimeState:
    committed: ConversationState
    pending: PendingResponse | None = None
