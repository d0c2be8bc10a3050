"""The pure loop: state, inputs, commands and the one transition function.

Nothing here performs I/O or imports runtime, transport, store, protobuf,
HTTP or a provider adapter; the runner in `runtime` drives it.
"""

from cursor_byok.loop.commands import (
    CallClient,
    CallLLM,
    Canceled,
    Command,
    Emit,
    Failed,
    Final,
    Ignored,
    QueuedEntered,
    StopCall,
    SummaryDone,
    SummaryStarted,
    Transition,
    WaitInput,
)
from cursor_byok.loop.inputs import (
    Cancel,
    Compact,
    Input,
    LLMEvent,
    Start,
    ToolInterrupted,
    ToolProgress,
    ToolResult,
    UserInput,
)
from cursor_byok.loop.records import CallEnded, CallPlanned, OperationChanged, Record
from cursor_byok.loop.state import (
    Compaction,
    ConversationState,
    PendingResponse,
    RuntimeState,
    Status,
    TurnSettings,
    WaitingClient,
)
from cursor_byok.loop.transition import DEFAULT_HOOKS, Hooks, transition

__all__ = [
    "DEFAULT_HOOKS",
    "CallClient",
    "CallEnded",
    "CallLLM",
    "CallPlanned",
    "Cancel",
    "Canceled",
    "Command",
    "Compact",
    "Compaction",
    "ConversationState",
    "Emit",
    "Failed",
    "Final",
    "Hooks",
    "Ignored",
    "Input",
    "LLMEvent",
    "OperationChanged",
    "PendingResponse",
    "QueuedEntered",
    "Record",
    "RuntimeState",
    "Start",
    "Status",
    "StopCall",
    "SummaryDone",
    "SummaryStarted",
    "ToolInterrupted",
    "ToolProgress",
    "ToolResult",
    "Transition",
    "TurnSettings",
    "UserInput",
    "WaitInput",
    "WaitingClient",
    "transition",
]
