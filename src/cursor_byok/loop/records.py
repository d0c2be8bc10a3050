"""What a committed transition tells the store besides the new state.

The loop names every model call it plans or ends and every client operation
it starts, finishes or cancels; the runner writes these in the same
transaction as the state. Plain data, like the commands: nothing here is
inferred afterwards by comparing states.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from cursor_byok.llm.types import AssistantMessage, RequestMessages, ToolCall, ToolResultMessage


@dataclass(frozen=True, slots=True)
class CallPlanned:
    """A model call about to be opened; its exact request is saved first."""

    call_id: str
    model: str
    request: RequestMessages
    messages_hash: str


@dataclass(frozen=True, slots=True)
class CallEnded:
    """A model call is over. `assistant` is the message it added to history
    (None when it added nothing, e.g. a server notice or a failure)."""

    call_id: str
    outcome: Literal["committed", "failed", "canceled"]
    assistant: AssistantMessage | None = None
    error: str | None = None


OperationStatusName: TypeAlias = Literal["waiting", "completed", "canceled"]


@dataclass(frozen=True, slots=True)
class OperationChanged:
    """A client operation (one tool call run by the client) changed status."""

    operation_id: str
    turn_id: str
    tool_index: int
    tool_call: ToolCall
    status: OperationStatusName
    result: ToolResultMessage | None = None


@dataclass(frozen=True, slots=True)
class ForkMade:
    """The conversation was made a branch of `parent`, keeping its first
    `point` messages (the store lists a conversation's forks from these)."""

    parent: str
    point: int


Record: TypeAlias = CallPlanned | CallEnded | OperationChanged | ForkMade
