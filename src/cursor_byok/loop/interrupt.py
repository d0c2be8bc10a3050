"""What an interrupted response leaves in history.

When a turn is canceled while the model streams (by the user, or because the
client stayed away past the reconnect grace period), the stopped stream ends
with its partial response (the adapter's `aborted` event). What it holds is
kept: appended as a new assistant message marked `interrupted`, never merged
into an earlier one, and shaped so the next request stays valid for every
provider:

- reasoning without a signature is dropped: providers reject unsigned
  reasoning sent back to them (signed reasoning is kept verbatim);
- each tool call gets a synthetic error result right after the message
  (Anthropic wants a tool_result for every tool_use, OpenAI a tool message
  for every call);
- nothing is appended when nothing visible had streamed.
"""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    Message,
    ProviderBlock,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)

INTERRUPTED_CALL = "Not run: the response was interrupted ({reason}) before this call ran."


def _kept(block: AssistantContent) -> bool:
    match block:
        case TextContent(text=text):
            return bool(text)
        case ThinkingContent(thinking_signature=signature):
            return bool(signature)
        case ToolCall():
            return True
        case ProviderBlock():
            return False  # a provider's search cut short: its result may be missing


def interrupted_messages(partial: AssistantMessage, reason: str) -> tuple[Message, ...]:
    """The interrupted assistant message and one error result per tool call."""
    content = tuple(block for block in partial.content if _kept(block))
    if not any(isinstance(block, TextContent | ToolCall) for block in content):
        return ()
    message = replace(
        partial, content=content, stop_reason="aborted", error_message=None, interrupted=True
    )
    results = tuple(
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=(TextContent(INTERRUPTED_CALL.format(reason=reason)),),
            is_error=True,
            timestamp=partial.timestamp,
        )
        for call in message.tool_calls
    )
    return (message, *results)
