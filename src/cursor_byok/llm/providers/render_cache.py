"""Render only what is new: a conversation's history, as one provider sees
it, is rendered once up to its last user message and reused by the next call.

History is append-only, so a call's messages start with the previous call's
(the very same objects, in this process). A user message is a clean cut in
every adapter's rendering: orphaned tool calls are settled before it, images
of tool results are placed before it, and nothing after it merges into it. So
rendering `messages[:cut]` and `messages[cut:]` apart gives the same list as
rendering all at once, and only the part after the last cut is new work. A
`HistoryRepair` changes how everything before it renders, so a cut is only
taken after the last repair. Entries are bounded (least recently used go),
and what is handed out is a fresh list of fresh message dicts with fresh
content lists (unless the adapter never edits a rendering): a caller that
marks blocks in place (cache breakpoints) never changes the cached rendering.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import HistoryRepair, ImageContent, Message, UserMessage

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


@dataclass(slots=True)
class _Entry:
    messages: Sequence[Message]
    cut: int
    rendered: Rendered


def _renders_something(message: UserMessage) -> bool:
    content = message.content
    if isinstance(content, str):
        return bool(content)
    return any(isinstance(block, ImageContent) or block.text for block in content)


def last_cut(messages: Sequence[Message], start: int) -> int:
    """The index after the last non-empty user message at or after `start`
    and after the last repair; `start` when there is none."""
    for index in range(len(messages) - 1, start - 1, -1):
        message = messages[index]
        if isinstance(message, HistoryRepair):
            return start
        if isinstance(message, UserMessage) and _renders_something(message):
            return index + 1
    return start


def _fresh(rendered: Rendered) -> Rendered:
    return [{**message, "content": _copied(message.get("content"))} for message in rendered]


def _copied(content: Any) -> Any:
    return list(content) if isinstance(content, list) else content


class RenderCache:
    """`copies=False` hands out the cached messages themselves, as
    `FrozenMessage`s: only for an adapter that never changes a rendered
    message after rendering."""

    def __init__(self, entries: int = DEFAULT_ENTRIES, copies: bool = True) -> None:
        self._limit = entries
        self._copies = copies
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def render(self, key: Hashable | None, messages: Sequence[Message], render: Render) -> Rendered:
        """`render(messages)`, rendering only what follows the cached cut."""
        if key is None:
            return render(messages)
        entry = self._entries.get(key)
        start, prefix = 0, []
        if entry is not None and self._extends(messages, entry):
            start, prefix = entry.cut, entry.rendered
        if any(isinstance(m, HistoryRepair) for m in islice(messages, start, None)):
            start, prefix = 0, []  # a new repair re-renders what precedes it
        cut = last_cut(messages, start)
        if cut > start:
            fresh = render(messages[start:cut])
            prefix = prefix + (fresh if self._copies else [FrozenMessage(m) for m in fresh])
        self._entries[key] = _Entry(messages, cut, prefix)
        self._entries.move_to_end(key)
        while len(self._entries) > self._limit:
            self._entries.popitem(last=False)
        return (_fresh(prefix) if self._copies else list(prefix)) + render(messages[cut:])

    @staticmethod
    def _extends(messages: Sequence[Message], entry: _Entry) -> bool:
        """Whether `messages` starts with the entry's messages up to its cut
        (the same objects: an identity test, not a comparison of contents)."""
        cut = entry.cut
        if len(messages) < cut:
            return False
        return all(map(operator.is_, islice(messages, cut), islice(entry.messages, cut)))


def cache_key(api: str, spec: ModelSpec, ctx: CallContext | None) -> Hashable | None:
    """One entry per conversation and model (a rendering depends on both);
    None, so nothing is cached, for a call outside a conversation."""
    if ctx is None or not ctx.session_id:
        return None
    return (api, spec.provider, spec.model, ctx.session_id)
