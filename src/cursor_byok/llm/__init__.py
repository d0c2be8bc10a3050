"""Native LLM contracts and provider adapters.

`types` and `events` are the contracts every other package speaks;
`serialize` is the one canonical byte form used for storage and hashing.
"""

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    ResponseStream,
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
from cursor_byok.llm.types import (
    AssistantMessage,
    Cost,
    ImageContent,
    Message,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = [
    "AssistantMessage",
    "Cost",
    "DoneEvent",
    "ErrorEvent",
    "ImageContent",
    "Message",
    "RequestMessages",
    "ResponseEvent",
    "ResponseStream",
    "StartEvent",
    "TextContent",
    "TextDelta",
    "TextEnd",
    "TextStart",
    "ThinkingContent",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolDefinition",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
]
