"""The pure loop: state, inputs, commands and the one transition function.

Nothing here performs I/O or imports transport, store, protobuf, HTTP or a
provider adapter; the runner in `transport` drives it.
"""

from cursor_byok.loop.commands import (
    CallClient,
    CallLLM,
    Canceled,
    Command,
    ContinueLLM,
    Failed,
    Final,
    Transition,
    WaitInput,
)
from cursor_byok.loop.inputs import Cancel, Input, LLMEvent, Start, ToolResult, UserInput
from cursor_byok.loop.state import (
    ConversationState,
    PendingBlock,
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
    "CallLLM",
    "Cancel",
    "Canceled",
    "Command",
    "ContinueLLM",
    "ConversationState",
    "Failed",
    "Final",
    "Hooks",
    "Input",
    "LLMEvent",
    "PendingBlock",
    "PendingResponse",
    "RuntimeState",
    "Start",
    "Status",
    "ToolResult",
    "Transition",
    "TurnSettings",
    "UserInput",
    "WaitInput",
    "WaitingClient",
    "transition",
]
