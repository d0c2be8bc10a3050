"""What an interrupted response leaves in history.

When a turn is canceled while the model streams (by the user, or because the
client stayed away past the reconnect grace period), what had already
streamed is kept: it is appended as a new assistant message marked
`interrupted`, never merged into an earlier one. So the next request stays
valid for every provider:

- reasoning is dropped: a streamed reasoning block carries no signature, and
  providers reject unsigned reasoning sent back to them;
- each tool call gets a synthetic error result right after the message
  (Anthropic wants a tool_result for every tool_use, OpenAI a tool message
  for every call); a call whose arguments were still streaming is kept with
  empty arguments (half an object is not what the model meant);
- nothing is appended when nothing visible had streamed.
"""

from __future__ import annotations

import json
from typing import Any

from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
)
from cursor_byok.loop.state import PendingResponse

INTERRUPTED_CALL = "Not run: the response was interrupted ({reason}) before this call ran."


def _arguments(raw: str) -> dict[str, Any]:
    """The call's arguments if they form a JSON object that can be stored
    again (no NaN or infinity), else none."""
    try:
        value = json.loads(raw) if raw.strip() else {}
        json.dumps(value, allow_nan=False)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def interrupted_messages(
    pending: PendingResponse | None, model: str, reason: str, timestamp: int
) -> tuple[Message, ...]:
    """The interrupted assistant message and one error result per tool call."""
    if pending is None:
        return ()
    content: list[AssistantContent] = []
    for block in pending.blocks:
        if block.kind == "text":
            text = block.text()
            if text:
                content.append(TextContent(text))
        elif block.kind == "toolCall" and block.tool_call_id:
            arguments = _arguments(block.text()) if block.closed else {}
            content.append(ToolCall(block.tool_call_id, block.tool_name or "", arguments))
    if not content:
        return ()
    message = AssistantMessage(
        content=tuple(content),
        api="",
        provider="",
        model=model,
        stop_reason="aborted",
        timestamp=timestamp,
        interrupted=True,
    )
    results = tuple(
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=(TextContent(INTERRUPTED_CALL.format(reason=reason)),),
            is_error=True,
            timestamp=timestamp,
        )
        for call in message.tool_calls
    )
    return (message, *results)
