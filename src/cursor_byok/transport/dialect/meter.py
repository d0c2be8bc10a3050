"""The client's context meter and usage figures: checkpoint `token_details`
and `turn_ended`.

The meter is `used_tokens / max_tokens`; `used_tokens` is the prompt size
the provider counted on the last call. The breakdown by category follows the
real service's shape (the categories, in its order, with labels, estimated
tokens and character counts): the parts the server builds itself (system
prompt, tool definitions, rules, MCP tools, a compaction summary) are
estimated from their characters, and the conversation is the rest of the
counted total, so the categories always add up to what was counted.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from cursor_byok.llm.serialize import message_bytes
from cursor_byok.llm.types import Message, ToolDefinition, Usage, UserMessage
from cursor_byok.loop.compaction import IMAGE_TOKENS, image_data_chars, summary_of
from cursor_byok.loop.state import ConversationState
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

CATEGORIES: tuple[tuple[str, str], ...] = (
    ("system_prompt", "System prompt"),
    ("tools", "Tool definitions"),
    ("rules", "Rules"),
    ("skills", "Skills"),
    ("mcp", "MCP & dynamic tools"),
    ("subagents", "Subagent definitions"),
    ("summarized_conversation", "Summarized conversation"),
    ("conversation", "Conversation"),
)
CONVERSATION = "conversation"
SUMMARY = "summarized_conversation"
CHARS_PER_TOKEN = 4
UINT32_MAX = 2**32 - 1
SIZES_KEPT = 8192

TOTALS_KEPT = 1024

_sizes: OrderedDict[int, tuple[object, int]] = OrderedDict()
_totals: OrderedDict[str, tuple[Message | None, Message | None, int, int]] = OrderedDict()
"""Conversation id -> the first and last message of its last counted window,
their count and their characters."""
T = TypeVar("T")


def tool_characters(tools: Iterable[ToolDefinition]) -> int:
    """The characters of tool definitions as the model is sent them (a
    schema's measured once per schema object, and a tuple of definitions
    once per tuple: every Run meters them, most often a set's shared one)."""
    if type(tools) is tuple:
        return _measured(tools, _characters_of)
    return _characters_of(tools)


def _characters_of(tools: Iterable[ToolDefinition]) -> int:
    return sum(
        len(t.name) + len(t.description) + _measured(t.parameters, _json_length) for t in tools
    )


def _json_length(schema: object) -> int:
    return len(json.dumps(schema, ensure_ascii=False))


def history_characters(state: ConversationState) -> dict[str, int]:
    """The characters of what requests send of the history: a compaction
    summary, and the conversation after it (once a run)."""
    window = state.window
    summary = summary_of(window[0]) if window and isinstance(window[0], UserMessage) else None
    rest = window[1:] if summary is not None else window
    return {
        SUMMARY: len(summary or ""),
        CONVERSATION: _conversation_characters(state.conversation_id, rest),
    }


def _conversation_characters(conversation_id: str, rest: Sequence[Message]) -> int:
    """The sum of `message_characters` over `rest`, adding only the messages
    since the conversation's last run: history only grows, so a window that
    starts and reaches on with the same message objects as the last one
    holds it whole. Anything else (a compaction, a reload) is summed anew."""
    known = _totals.get(conversation_id)
    start, total = 0, 0
    if known is not None:
        first, last, count, counted = known
        if count and len(rest) >= count and rest[0] is first and rest[count - 1] is last:
            start, total = count, counted
    total += sum(map(message_characters, rest[start:]))
    _totals[conversation_id] = (rest[0], rest[-1], len(rest), total) if rest else (None, None, 0, 0)
    _totals.move_to_end(conversation_id)
    if len(_totals) > TOTALS_KEPT:
        _totals.popitem(last=False)
    return total


def message_characters(message: Message) -> int:
    """`len(message_bytes(message))`, measured once per message object (the
    meter runs on every Run, and history only grows)."""
    return _measured(message, _message_length)


def _message_length(message: Message) -> int:
    """Its bytes, an image counted at what a provider counts for one (not
    the length of its base64 data)."""
    images, chars = image_data_chars(message)
    return len(message_bytes(message)) - chars + images * IMAGE_TOKENS * CHARS_PER_TOKEN


def _measured(thing: T, measure: Callable[[T], int]) -> int:
    """`measure(thing)`, once per object while it is remembered: keyed by
    identity with the object kept, so an id is never reused while its entry
    lives."""
    key = id(thing)
    known = _sizes.get(key)
    if known is not None and known[0] is thing:
        _sizes.move_to_end(key)
        return known[1]
    size = measure(thing)
    _sizes[key] = (thing, size)
    if len(_sizes) > SIZES_KEPT:
        _sizes.popitem(last=False)
    return size


def estimated_tokens(characters: Mapping[str, int]) -> int:
    """A prompt's size from its characters, when nothing was counted yet."""
    return sum(characters.values()) // CHARS_PER_TOKEN


def _u32(value: int) -> int:
    return max(0, min(value, UINT32_MAX))


def breakdown(
    used: int, window: int, characters: Mapping[str, int]
) -> pb.PromptTokenBreakdownSnapshot:
    """Categories that add up to `used` (or to the estimate when 0)."""
    fixed = {
        name: characters.get(name, 0) // CHARS_PER_TOKEN
        for name, _ in CATEGORIES
        if name != CONVERSATION
    }
    known = sum(fixed.values())
    if used <= 0:
        used = known + characters.get(CONVERSATION, 0) // CHARS_PER_TOKEN
    if known > used:  # the estimates overshoot the count: scale them down
        fixed = {name: tokens * used // known for name, tokens in fixed.items()}
        known = sum(fixed.values())
    tokens = {**fixed, CONVERSATION: used - known}
    categories = []
    for name, label in CATEGORIES:
        category = pb.PromptTokenBreakdownCategory(
            id=name, label=label, estimated_tokens=_u32(tokens[name])
        )
        if name in characters or name != CONVERSATION:
            category.character_count = _u32(characters.get(name, 0))
        categories.append(category)
    return pb.PromptTokenBreakdownSnapshot(
        total_used_tokens=_u32(used), max_tokens=_u32(window), categories=categories
    )


def checkpoint(used: int, window: int, characters: Mapping[str, int]) -> pb.AgentServerMessage:
    snapshot = breakdown(used, window, characters)
    details = pb.ConversationTokenDetails(
        used_tokens=snapshot.total_used_tokens, max_tokens=_u32(window), breakdown=snapshot
    )
    state = pb.ConversationStateStructure(token_details=details)
    return pb.AgentServerMessage(conversation_checkpoint_update=state)


def turn_ended(usage: Usage) -> pb.AgentServerMessage:
    update = pb.TurnEndedUpdate(
        input_tokens=usage.input,
        output_tokens=usage.output,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        reasoning_tokens=usage.reasoning,
    )
    return pb.AgentServerMessage(interaction_update=pb.InteractionUpdate(turn_ended=update))


def add_usage(total: Usage, more: Usage) -> Usage:
    return Usage(
        input=total.input + more.input,
        output=total.output + more.output,
        cache_read=total.cache_read + more.cache_read,
        cache_write=total.cache_write + more.cache_write,
        total_tokens=total.total_tokens + more.total_tokens,
        reasoning=total.reasoning + more.reasoning,
    )
