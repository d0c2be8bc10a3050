"""What the loop asks the runner to do next. Plain data only (no closures,
connections or queues), so a command can be stored, replayed and compared."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import AssistantMessage, RequestMessages, ToolCall
from cursor_byok.loop.state import RuntimeState


@dataclass(frozen=True, slots=True)
class ContinueLLM:
    """Read the next event of the open stream."""


@dataclass(frozen=True, slots=True)
class CallLLM:
    """Open a model call. A retry reuses `call_id` and the stored request."""

    call_id: str
    model: str
    request: RequestMessages
    messages_hash: str


@dataclass(frozen=True, slots=True)
class CallClient:
    """Ask the client to run one tool; its result comes back as a new input."""

    operation_id: str
    tool_call: ToolCall


@dataclass(frozen=True, slots=True)
class WaitInput:
    """Nothing to do until the next external input."""


@dataclass(frozen=True, slots=True)
class Final:
    message: AssistantMessage


@dataclass(frozen=True, slots=True)
class Failed:
    """The turn failed; `message` describes it and is never history."""

    message: AssistantMessage


@dataclass(frozen=True, slots=True)
class Canceled:
    reason: str


Command: TypeAlias = ContinueLLM | CallLLM | CallClient | WaitInput | Final | Failed | Canceled


@dataclass(frozen=True, slots=True)
class Transition:
    state: RuntimeState
    emit: tuple[ResponseEvent, ...]
    command: Command
