"""What enters the loop: semantic inputs only, never bytes or protocol frames.

Anything that creates a message (a user message, a canceled tool's result)
carries its timestamp in, so the pure transition never reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import Message, ToolResultMessage, UserMessage
from cursor_byok.loop.state import ConversationState, TurnSettings
from cursor_byok.loop.todos import TodoItem


@dataclass(frozen=True, slots=True)
class Start:
    """A new turn. `context` holds supplements the model must see (attached
    files, rules), already rendered as messages: they are appended before the
    user message, never merged into older ones. `settings` replaces the
    conversation's settings when given. `history`: a transcript the client
    sent to open the conversation with (`UserMessageAction.conversation_history`):
    it becomes the start of history only when the conversation has none yet;
    otherwise the stored history wins and it is left out."""

    user_message: UserMessage
    context: tuple[UserMessage, ...] = ()
    settings: TurnSettings | None = None
    history: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class LLMEvent:
    call_id: str
    event: ResponseEvent


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool call's result. `todos`: the conversation's to-do list as the
    tool left it (a tool the server runs may change it), None: unchanged."""

    message: ToolResultMessage
    todos: tuple[TodoItem, ...] | None = None
    model_calls: int = 0
    """Model calls the tool made on the turn's behalf (a subagent's own
    turn): counted in the turn's `max_model_calls` as the turn's own are."""


@dataclass(frozen=True, slots=True)
class UserInput:
    """A user message outside a new run (the seed's `Input.UserMessage`),
    e.g. typed while the agent is still working: it is queued until the
    history can take it. `ref` is the client's own name for it, if any:
    kept with it, and acknowledged (`QueuedEntered`) when it enters history."""

    message: UserMessage
    ref: str = ""


@dataclass(frozen=True, slots=True)
class ToolProgress:
    """A piece of a running tool call's output (a shell command's stream),
    kept with the call until its result comes."""

    tool_call_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolInterrupted:
    """The tool call's run was cut off before its result came, and it is not
    run again: its result is `note` and the output that had arrived."""

    tool_call_id: str
    note: str
    timestamp: int = 0


@dataclass(frozen=True, slots=True)
class Cancel:
    reason: str
    timestamp: int = 0


@dataclass(frozen=True, slots=True)
class Compact:
    """The client asks to summarize the conversation now (`/compress`)."""


@dataclass(frozen=True, slots=True)
class Fork:
    """Start this (new, empty) conversation as a branch of `parent`: the
    first `point` of its messages, with the to-do list `todos` it had there
    (`forks`). A client that rewound sends its next message here."""

    parent: ConversationState
    point: int
    todos: tuple[TodoItem, ...] = ()


Input: TypeAlias = (
    Start
    | LLMEvent
    | ToolResult
    | UserInput
    | Cancel
    | Compact
    | ToolProgress
    | ToolInterrupted
    | Fork
)
