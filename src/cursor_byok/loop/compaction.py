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
it is estimated from its bytes (about four per token), an image at what a
provider counts for one (`IMAGE_TOKENS`), not its base64 length.
"""

from __future__ import annotations

from collections.abc import Sequence

from cursor_byok.llm.serialize import message_bytes
from cursor_byok.llm.types import (
    AssistantMessage,
    ImageContent,
    Message,
    RequestMessages,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.loop.state import ConversationState
from cursor_byok.loop.todos import TodoItem, lines, unfinished

BYTES_PER_TOKEN = 4
IMAGE_TOKENS = 1600
"""About what one image costs in a prompt, whatever its size: providers
scale an image down before they count it (Anthropic to 1568 px on the long
side, about 1,600 tokens; OpenAI at most about 1,100; Gemini 258 to 1,120).
Estimates of a prompt's size count this, not the image's base64 length."""

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


def image_data_chars(message: Message) -> tuple[int, int]:
    """How many images `message` carries and the base64 characters of
    their data, which a size estimate takes out of the message's length."""
    content = message.content if isinstance(message, UserMessage | ToolResultMessage) else ""
    if isinstance(content, str):
        return 0, 0
    images = [block for block in content if isinstance(block, ImageContent)]
    return len(images), sum(len(image.data) for image in images)


def _tokens(messages: Sequence[Message]) -> int:
    size = images = 0
    for message in messages:
        count, chars = image_data_chars(message)
        size += len(message_bytes(message)) - chars
        images += count
    return size // BYTES_PER_TOKEN + images * IMAGE_TOKENS


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
    one instruction; no later request extends it. The instruction carries
    the to-dos not finished yet, so the summary keeps them (and their ids,
    which the next write of the list merges by)."""
    instruction = UserMessage(SUMMARY_INSTRUCTION + todo_note(state.todos))
    return RequestMessages(system_prompt, (*state.window, instruction), tools, extended=False)


def todo_note(todos: tuple[TodoItem, ...]) -> str:
    """What the summary must carry of the to-do list: the unfinished items."""
    open_items = unfinished(todos)
    if not open_items:
        return ""
    return (
        "\n\nThe to-do list still has these items open; keep each one in the summary "
        "with its id and status:\n" + lines(open_items)
    )


def summary_message(summary: str, timestamp: int) -> UserMessage:
    """What enters history: the summary, introduced as such."""
    return UserMessage(SUMMARY_HEADER + summary, timestamp)


def summary_of(message: UserMessage) -> str | None:
    """The summary a history message carries, if it is one (for display)."""
    content = message.content
    if isinstance(content, str) and content.startswith(SUMMARY_HEADER):
        return content[len(SUMMARY_HEADER) :]
    return None
