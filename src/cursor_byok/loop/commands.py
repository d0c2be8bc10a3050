"""What the loop asks the runner to do next. Plain data only (no closures,
connections or queues), so a command can be stored, replayed and compared."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import AssistantMessage, RequestMessages, ToolCall, UserMessage
from cursor_byok.loop.records import Record
from cursor_byok.loop.state import RuntimeState
from cursor_byok.loop.todos import TodoItem


@dataclass(frozen=True, slots=True)
class CallLLM:
    """Open a model call. A retry reuses `call_id` and the stored request."""

    call_id: str
    model: str
    request: RequestMessages
    messages_hash: str


@dataclass(frozen=True, slots=True)
class CallClient:
    """Ask the client to run one tool; its result comes back as a new input.
    `again`: it was asked before, by a process that has stopped since, so
    the client may have run it already (the runner resuming a turn)."""

    operation_id: str
    tool_call: ToolCall
    again: bool = False


@dataclass(frozen=True, slots=True)
class StopCall:
    """Stop the model call: its last word (the partial response) is the
    next input, and ends the turn canceled."""

    call_id: str


@dataclass(frozen=True, slots=True)
class WaitInput:
    """Nothing to do until the next input (a client message or the next
    event of the open model stream)."""


@dataclass(frozen=True, slots=True)
class Ignored:
    """The input changed nothing (a duplicate, a late event of a finished
    call, a result nobody waits for). `reason` is a short fixed phrase, fit
    for a counter's label; the runner counts and logs it."""

    reason: str


@dataclass(frozen=True, slots=True)
class Final:
    """The turn ended normally. `message` is what the client was last shown:
    the model's final message, or a notice the server wrote (not history)."""

    message: AssistantMessage


@dataclass(frozen=True, slots=True)
class Failed:
    """The turn failed; `message` describes it and is never history."""

    message: AssistantMessage


@dataclass(frozen=True, slots=True)
class Canceled:
    reason: str


Command: TypeAlias = (
    CallLLM | CallClient | StopCall | WaitInput | Ignored | Final | Failed | Canceled
)


@dataclass(frozen=True, slots=True)
class SummaryStarted:
    """A compaction began: the model is asked for a summary."""


@dataclass(frozen=True, slots=True)
class SummaryDone:
    """The summary is in history; requests start from it from now on."""

    summary: str


@dataclass(frozen=True, slots=True)
class QueuedEntered:
    """Messages queued during the turn entered history: each with the
    client's name for it, to be acknowledged."""

    messages: tuple[tuple[str, UserMessage], ...]


@dataclass(frozen=True, slots=True)
class TodosChanged:
    """The conversation's to-do list as committed: a tool result changed
    it, or a turn begins with it."""

    todos: tuple[TodoItem, ...]


Emit: TypeAlias = ResponseEvent | SummaryStarted | SummaryDone | QueuedEntered | TodosChanged
"""What a transition passes on: the model's events and the loop's own."""


@dataclass(frozen=True, slots=True)
class Transition:
    """The new state, the events to pass on, the next command, and whether
    the committed state changed (`commit`), with the records that go into
    the same transaction."""

    state: RuntimeState
    emit: tuple[Emit, ...]
    command: Command
    commit: bool = True
    records: tuple[Record, ...] = ()
