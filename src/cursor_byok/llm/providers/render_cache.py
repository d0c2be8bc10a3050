"""Render only what is new: a conversation's history, as one provider sees
it, is rendered once and reused by the next call, which renders only the
messages appended since.

History is append-only, so a call's messages start with the previous call's
(the very same objects, in this process). A cut is an index where rendering
`messages[:cut]` and `messages[cut:]` apart gives the same list as rendering
all at once, in every adapter. Two kinds of index are cuts:

- right after a user message that renders something: orphaned tool calls
  are settled before it, images of tool results are placed before it, and
  nothing after it merges into it;
- right before a message that renders something of its own (a user message,
  or an answer with text or tool calls) once every tool call made before it
  has its result: nothing is left to settle, images go before it, and tool
  results after it cannot merge into what precedes it.

Whether the end of the previous call is a cut is only known once the next
message is: the previous rendering is reused whole when it is (the usual
case: a call renders just its new messages), and up to the last cut it
contained otherwise. A `HistoryRepair` changes how everything before it
renders, so a cut is only taken after the last repair. Entries are bounded
(least recently used go). What is handed out are the cached messages
themselves, as `FrozenMessage`s, in a `RenderedHistory`: a caller that
marks a message (cache breakpoints) replaces it there with a marked copy.

The rendered messages up to the cut are kept as a `SharedTuple` and their
bytes in a `Spool` (`spool.py`), both extended by what a call adds, so a
call costs what it adds, and its body is written from the spool's chunks.
A history that is itself a `SharedTuple` (the loop's) tells in O(1) that it
extends the cached one.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable, Hashable, MutableSequence, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.spool import RenderedHistory, Spool
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.llm.types import (
    AssistantMessage,
    HistoryRepair,
    ImageContent,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

Rendered = list[dict[str, Any]]
Render = Callable[[Sequence[Message]], Rendered]

DEFAULT_ENTRIES = 256


class FrozenMessage(dict[str, Any]):
    """A cached rendered message, shared by every later request of its
    conversation, so it must never change: it keeps its own canonical bytes
    (`encoded`), and a request body made of them is written without
    serializing the history again (see `common.encode_body`)."""

    __slots__ = ("_encoded",)

    def __init__(self, message: dict[str, Any]) -> None:
        super().__init__(message)
        self._encoded: bytes | None = None

    def __setitem__(self, key: str, value: Any) -> None:
        raise TypeError("a cached rendered message is never changed")

    def encoded(self) -> bytes:
        if self._encoded is None:
            self._encoded = canonical_dumps(self)
        return self._encoded


def encoded_items(items: Sequence[Any]) -> list[bytes]:
    """Each item's canonical bytes, in one pass: a frozen message's kept
    bytes are read without a call (a long history has hundreds of them in
    every request), any other item (a marked copy, a plain dict) is
    encoded now."""
    return [
        item._encoded
        if type(item) is FrozenMessage and item._encoded is not None
        else _encode_item(item)
        for item in items
    ]


def _encode_item(item: Any) -> bytes:
    return item.encoded() if type(item) is FrozenMessage else canonical_dumps(item)


def _spooled(item: FrozenMessage) -> bytes:
    """The item's bytes, handed to a spool: the item lets go of its own copy
    (a body covered by the spool never asks it; another makes it again)."""
    data = item.encoded()
    item._encoded = None
    return data


@dataclass(slots=True)
class _Entry:
    messages: Sequence[Message]
    cut: int
    rendered: SharedTuple[FrozenMessage]
    """`messages[:cut]`, rendered."""
    spool: Spool
    """The bytes of `rendered`."""
    tail: list[FrozenMessage]
    """`messages[cut:]`, rendered."""


def _renders_something(message: UserMessage) -> bool:
    content = message.content
    if isinstance(content, str):
        return bool(content)
    return any(isinstance(block, ImageContent) or block.text for block in content)


def _kept(message: AssistantMessage) -> bool:
    """Whether `prepare_history` keeps this answer (a failed one is dropped)."""
    return message.stop_reason not in ("error", "aborted") or message.interrupted


def _stands_alone(message: Message) -> bool:
    """Whether `message` renders an item of its own in every adapter."""
    match message:
        case UserMessage():
            return _renders_something(message)
        case AssistantMessage():
            return _kept(message) and any(
                isinstance(block, ToolCall) or (isinstance(block, TextContent) and block.text)
                for block in message.content
            )
    return False


def _all_answered(messages: Sequence[Message], index: int) -> bool:
    """Whether every tool call made before `messages[index]` has its result
    (same id: the ids a provider sees are a function of these). Only the
    last kept answer's calls can be open: a user message or a later answer
    settles them."""
    answered: set[str] = set()
    for earlier in (messages[i] for i in range(index - 1, -1, -1)):
        match earlier:
            case ToolResultMessage(tool_call_id=call_id):
                answered.add(call_id)
            case AssistantMessage() if _kept(earlier):
                return all(call.id in answered for call in earlier.tool_calls)
            case AssistantMessage():
                continue
            case _:  # a user message settled every call; a repair starts anew
                return True
    return True


def is_cut(messages: Sequence[Message], index: int) -> bool:
    """Whether rendering `messages[:index]` and `messages[index:]` apart
    gives the rendering of `messages` (see the module's docstring)."""
    before = messages[index - 1] if index > 0 else None
    if isinstance(before, UserMessage) and _renders_something(before):
        return True
    return (
        index < len(messages) and _stands_alone(messages[index]) and _all_answered(messages, index)
    )


def last_cut(messages: Sequence[Message], start: int) -> int:
    """The last cut after `start` and after the last repair; `start` when
    there is none."""
    for index in range(len(messages) - 1, start - 1, -1):
        message = messages[index]
        if isinstance(message, HistoryRepair):
            return start
        if isinstance(message, UserMessage) and _renders_something(message):
            return index + 1
        if index > start and _stands_alone(message) and _all_answered(messages, index):
            return index
    return start


def _frozen(rendered: Rendered) -> list[FrozenMessage]:
    return [FrozenMessage(m) for m in rendered]


def _listed(
    head: Sequence[Any],
    rendered: SharedTuple[FrozenMessage],
    spool: Spool,
    tail: list[FrozenMessage],
) -> RenderedHistory:
    return RenderedHistory(head, rendered, spool, tail)


class RenderCache:
    """One adapter's renderings, per conversation and model (`cache_key`)."""

    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        self._limit = entries
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def render(
        self,
        key: Hashable | None,
        messages: Sequence[Message],
        render: Render,
        head: Sequence[Any] = (),
    ) -> MutableSequence[Any]:
        """`head` then `render(messages)`, rendering only what the cached
        rendering lacks: a `RenderedHistory`, or a list for a call outside
        a conversation (nothing cached)."""
        if key is None:
            return [*head, *render(messages)]
        entry = self._entries.get(key)
        start, prefix, spool = 0, SharedTuple[FrozenMessage](), Spool()
        if entry is not None:
            end = len(entry.messages)
            if len(messages) == end and _starts_with(messages, entry.messages, end):
                self._entries.move_to_end(key)
                return _listed(head, entry.rendered, entry.spool, entry.tail)  # the same again
            start, prefix, spool = _reusable(messages, entry)
        if any(isinstance(m, HistoryRepair) for m in messages[start:]):
            start, prefix, spool = 0, SharedTuple(), Spool()  # a new repair re-renders it all
        cut = last_cut(messages, start)
        if cut > start:
            added = _frozen(render(messages[start:cut]))
            prefix = prefix + added
            spool = spool.extended(map(_spooled, added))
        # A history that ends at a cut (a user's message last: every turn's
        # first call) has no tail, and rendering nothing is not free.
        tail = _frozen(render(messages[cut:])) if cut < len(messages) else []
        self._entries[key] = _Entry(messages, cut, prefix, spool, tail)
        self._entries.move_to_end(key)
        while len(self._entries) > self._limit:
            self._entries.popitem(last=False)
        return _listed(head, prefix, spool, tail)


def _reusable(
    messages: Sequence[Message], entry: _Entry
) -> tuple[int, SharedTuple[FrozenMessage], Spool]:
    """How much of `entry` renders the start of `messages`: all of it when
    `messages` extends its history at a cut, up to its cut when `messages`
    extends only that far, nothing otherwise."""
    end = len(entry.messages)
    extended = len(messages) > end and _starts_with(messages, entry.messages, end)
    if extended and is_cut(messages, end):
        spool = entry.spool.extended(map(_spooled, entry.tail))
        return end, entry.rendered + entry.tail, spool
    if _starts_with(messages, entry.messages, entry.cut):
        return entry.cut, entry.rendered, entry.spool
    return 0, SharedTuple(), Spool()


def _starts_with(messages: Sequence[Message], prefix: Sequence[Message], count: int) -> bool:
    """Whether `messages` starts with the first `count` of `prefix`: the same
    objects (an identity test, not a comparison of contents; O(1) for the
    loop's history, a `SharedTuple`)."""
    if isinstance(messages, SharedTuple):
        return messages.extends(prefix, count)
    if len(messages) < count:
        return False
    return all(map(operator.is_, islice(messages, count), islice(prefix, count)))


def cache_key(api: str, spec: ModelSpec, ctx: CallContext | None) -> Hashable | None:
    """One entry per conversation and model (a rendering depends on both);
    None, so nothing is cached, for a call outside a conversation."""
    if ctx is None or not ctx.session_id:
        return None
    return (api, spec.provider, spec.model, ctx.session_id)


def image_key(key: Hashable | None, left_out: frozenset[int]) -> Hashable | None:
    """`key` for a rendering that leaves out the oldest `left_out` images:
    when that number changes, earlier messages render otherwise, so the
    rendering is made anew (rarely: the images go in steps)."""
    if key is None or not left_out:
        return key
    return (key, len(left_out))
