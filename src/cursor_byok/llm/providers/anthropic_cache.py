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
short to cache, costs a breakpoint and buys nothing. A marked message is
replaced, in the request's own list, by a copy with a marked copy of the
block: the rendered messages are shared with later requests (the render
cache) and never changed. Only the end of the history is looked at (and its
start, until the minimum cacheable length is reached), so placing markers
costs the same at message 50 and at message 5,000.
"""

from __future__ import annotations

import json
from collections.abc import MutableSequence, Sequence
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


Position = tuple[int, int]
"""A message block: (message index, block index); (-1, 0) is the fixed part."""


def _first_cacheable(
    fixed: Sequence[Sequence[Any]], messages: Sequence[dict[str, Any]], minimum: int
) -> Position:
    """The first block whose prefix reaches `minimum`: (-1, 0) when the
    fixed part alone does, (len(messages), 0) when none does. Stops summing
    as soon as the minimum is reached, so the cost does not grow with history."""
    total = 0
    for part in fixed:
        for item in part:
            total += estimate_tokens(item)
    if total >= minimum:
        return (-1, 0)
    for index, message in enumerate(messages):
        for position, block in enumerate(message["content"]):
            total += estimate_tokens(block)
            if total >= minimum:
                return (index, position)
    return (len(messages), 0)


def _last_block_before(messages: Sequence[dict[str, Any]], stop: int) -> Position | None:
    """The last block of `messages[:stop]`, if any."""
    for index in range(stop - 1, -1, -1):
        size = len(messages[index]["content"])
        if size:
            return (index, size - 1)
    return None


def _block(messages: Sequence[dict[str, Any]], at: Position) -> Any:
    return messages[at[0]]["content"][at[1]]


def _mark(messages: MutableSequence[dict[str, Any]], at: Position) -> None:
    """Replace the message holding `at` by a copy with that block marked."""
    index, position = at
    content = list(messages[index]["content"])
    content[position] = {**content[position], "cache_control": dict(EPHEMERAL)}
    messages[index] = {**messages[index], "content": content}


def place_breakpoints(
    fixed: Sequence[list[dict[str, Any]]],
    messages: MutableSequence[dict[str, Any]],
    minimum: int,
    extended: bool = True,
) -> int:
    """Mark the last block of `fixed` (the tools, then the system blocks:
    prompt order) in place, and blocks of `messages` by replacing their
    message in the list, when the plan says so; returns the number of markers."""
    last_assistant = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant"), -1
    )
    first = _first_cacheable(fixed, messages, minimum)
    marks = 0
    owners = [part for part in fixed if part]
    if last_assistant < 0 and owners and first < (0, 0):
        owners[-1][-1] = {**owners[-1][-1], "cache_control": dict(EPHEMERAL)}
        marks += 1
    end = _last_block_before(messages, len(messages)) if extended else None
    if extended and (end is None or end < first or _block(messages, end).get("type") in UNMARKABLE):
        return marks
    if end is not None:
        _mark(messages, end)
        marks += 1
    previous_end = _last_block_before(messages, last_assistant) if last_assistant >= 0 else None
    if (
        previous_end is not None
        and previous_end >= first
        and (end is None or _blocks_from(messages, last_assistant) > READ_REACH)
        and _block(messages, previous_end).get("type") not in UNMARKABLE
    ):
        _mark(messages, previous_end)
        marks += 1
    return marks


def _blocks_from(messages: Sequence[dict[str, Any]], start: int) -> int:
    """How many blocks `messages[start:]` hold."""
    return sum(len(messages[i]["content"]) for i in range(start, len(messages)))
