"""Where Anthropic cache breakpoints go: only where they write an entry a
later request reads, or read the entry the previous request wrote.

Anthropic's rules, as documented: a `cache_control` marker on a block asks
for the prefix up to that block to be cached; the server looks for an
earlier entry at that block and at the block boundaries shortly before it
(about 20 blocks back); a prefix shorter than the model's minimum cacheable
length is never cached; at most four markers per request.

A conversation only appends, so the previous request ended right before the
last assistant message (the response to it). The plan:

- the last block gets a marker (it writes the entry the next request reads),
  when the prefix up to it can be cached at all;
- the previous request's last block gets one too, but only when the last
  block is too far from it for the lookback to find that entry;
- a request without any assistant message (a conversation's first request,
  or the first after a compaction reset) also marks the end of the fixed
  part (tools and system prompt), which other conversations and later resets
  share;
- a request no later request extends (a compaction's summary call) writes
  nothing: it only marks the previous request's end, to read it.

Nothing else is marked: a marker on a prefix that is already cached, or too
short to cache, costs a breakpoint and buys nothing. Markers are placed on
the freshly rendered request in place (one shallow block copy per marker);
the history is never copied to place them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

EPHEMERAL: dict[str, Any] = {"type": "ephemeral"}
LOOKBACK_BLOCKS = 20
READ_REACH = LOOKBACK_BLOCKS - 2
"""How far back from a marker an entry is surely found: under the lookback,
with slack for how the server counts boundaries."""
UNMARKABLE = frozenset({"thinking", "redacted_thinking"})
BYTES_PER_TOKEN = 4
"""A conservative token estimate: Claude's tokenizer averages 3.5-4 bytes of
English or code per token."""

# Published minimum cacheable prompt lengths, by model family (most specific
# first). Unknown models get the smallest current minimum: a marker below the
# real minimum is only a wasted breakpoint, a missing one is a lost cache.
MINIMUM_BY_FAMILY: tuple[tuple[str, int], ...] = (
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-sonnet-4-6", 2048),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
    ("claude-sonnet-4-5", 1024),
    ("claude-opus-4-1", 1024),
    ("claude-opus-4", 1024),
    ("claude-sonnet-4", 1024),
    ("claude-3-7-sonnet", 1024),
    ("claude-3-opus", 1024),
)
DEFAULT_MINIMUM = 1024


def minimum_cacheable_tokens(model: str) -> int:
    """The model's minimum cacheable prefix, in tokens."""
    name = model.lower().rsplit("/", 1)[-1]
    for family, minimum in MINIMUM_BY_FAMILY:
        if name.startswith(family):
            return minimum
    return DEFAULT_MINIMUM


def estimate_tokens(block: Any) -> int:
    """Tokens of one rendered block, estimated from its JSON size."""
    size = len(json.dumps(block, ensure_ascii=False, separators=(",", ":")).encode())
    return size // BYTES_PER_TOKEN


def _first_cacheable(fixed: Sequence[Sequence[Any]], blocks: Sequence[Any], minimum: int) -> int:
    """Index of the first message block whose prefix reaches `minimum`
    (-1: the fixed part alone does; len(blocks): none). Stops summing as
    soon as the minimum is reached, so the cost does not grow with history."""
    total = 0
    for part in fixed:
        for item in part:
            total += estimate_tokens(item)
    if total >= minimum:
        return -1
    for index, block in enumerate(blocks):
        total += estimate_tokens(block)
        if total >= minimum:
            return index
    return len(blocks)


def _mark(content: list[Any], position: int) -> None:
    content[position] = {**content[position], "cache_control": dict(EPHEMERAL)}


def place_breakpoints(
    fixed: Sequence[list[dict[str, Any]]],
    messages: list[dict[str, Any]],
    minimum: int,
    extended: bool = True,
) -> int:
    """Mark the rendered `messages` in place, and the last block of `fixed`
    (the tools, then the system blocks: prompt order) when the plan says so;
    returns the number of markers."""
    slots: list[tuple[list[Any], int]] = []  # (content list, index) per message block
    last_assistant = -1
    for message in messages:
        if message["role"] == "assistant":
            last_assistant = len(slots)
        content = message["content"]
        slots.extend((content, index) for index in range(len(content)))
    blocks = [content[index] for content, index in slots]
    first = _first_cacheable(fixed, blocks, minimum)
    marks = 0
    owners = [part for part in fixed if part]
    if last_assistant < 0 and owners and first < 0:
        _mark(owners[-1], len(owners[-1]) - 1)
        marks += 1
    end = len(blocks) - 1
    if not extended:
        end = -1  # nothing written: the read below needs its own marker
    elif end < 0 or end < first or blocks[end].get("type") in UNMARKABLE:
        return marks
    else:
        _mark(*slots[end])
        marks += 1
    previous_end = last_assistant - 1
    if (
        previous_end >= 0
        and previous_end >= first
        and (end < 0 or end - previous_end > READ_REACH)
        and blocks[previous_end].get("type") not in UNMARKABLE
    ):
        _mark(*slots[previous_end])
        marks += 1
    return marks
