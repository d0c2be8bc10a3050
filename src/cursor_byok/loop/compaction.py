"""Compaction: when a conversation outgrows the model's window, a summary
takes the place of what came before it, in requests only.

It is a recorded step, never an edit: the model is asked for a summary in a
call of its own (same system prompt, tools and messages as the request it
replaces, plus one instruction, so the provider's prefix cache serves it);
the summary is appended to history as a new user message, and the index of
that message is recorded as a reset. From then on requests send the
messages from the last reset on; older messages stay in the store.

The size of the next request is estimated without rendering it: the last
response's usage counts everything up to it, and what was appended after
it is estimated from its bytes (about four per token).
"""

from __future__ import annotations

from collections.abc import Sequence

from cursor_byok.llm.serialize import message_bytes
from cursor_byok.llm.types import (
    AssistantMessage,
    Message,
    RequestMessages,
    ToolDefinition,
    UserMessage,
)
from cursor_byok.loop.state import ConversationState

BYTES_PER_TOKEN = 4

SUMMARY_INSTRUCTION = (
    "The conversation has grown too long for the context window and will be replaced by "
    "your summary of it. Write that summary now, as plain text, without calling any tool. "
    "Keep everything needed to carry on: the user's requests (the latest one word for word), "
    "decisions taken and why, files read or changed with the facts that matter, commands "
    "run and their outcomes, errors met, and what remains to be done next."
)

SUMMARY_HEADER = (
    "The earlier part of this conversation was summarized to fit the context window. Summary:\n\n"
)


def _tokens(messages: Sequence[Message]) -> int:
    return sum(len(message_bytes(m)) for m in messages) // BYTES_PER_TOKEN


def estimated_tokens(
    window: Sequence[Message], system_prompt: str | None, tools: tuple[ToolDefinition, ...]
) -> int:
    """About how many tokens a request with `window` will take."""
    for index in range(len(window) - 1, -1, -1):
        message = window[index]
        if isinstance(message, AssistantMessage) and not message.interrupted:
            usage = message.usage
            counted = usage.input + usage.cache_read + usage.cache_write + usage.output
            if counted:
                return counted + _tokens(window[index + 1 :])
    fixed = len((system_prompt or "").encode()) + sum(
        len(t.description) + len(t.name) + len(str(t.parameters)) for t in tools
    )
    return _tokens(window) + fixed // BYTES_PER_TOKEN


def over_threshold(
    state: ConversationState, system_prompt: str | None, tools: tuple[ToolDefinition, ...]
) -> bool:
    """Whether the next request should wait for a compaction first. Never
    when there is nothing to shrink (the window holds one message at most)."""
    window = state.settings.context_window
    if not window or len(state.window) < 2:
        return False
    limit = window * state.settings.compact_share
    return estimated_tokens(state.window, system_prompt, tools) > limit


def summary_request(
    state: ConversationState, system_prompt: str | None, tools: tuple[ToolDefinition, ...]
) -> RequestMessages:
    """The request that asks for the summary: the request it replaces plus
    one instruction; no later request extends it."""
    instruction = UserMessage(SUMMARY_INSTRUCTION)
    return RequestMessages(system_prompt, (*state.window, instruction), tools, extended=False)


def summary_message(summary: str, timestamp: int) -> UserMessage:
    """What enters history: the summary, introduced as such."""
    return UserMessage(SUMMARY_HEADER + summary, timestamp)


def summary_of(message: UserMessage) -> str | None:
    """The summary a history message carries, if it is one (for display)."""
    content = message.content
    if isinstance(content, str) and content.startswith(SUMMARY_HEADER):
        return content[len(SUMMARY_HEADER) :]
    return None
