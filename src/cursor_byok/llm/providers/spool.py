"""A conversation's rendered history as request bytes that only grow.

Every model call sends the whole history, so its body grows with the
session; what should not grow is the work of making it. The render cache
keeps, beside each conversation's rendered messages, their canonical bytes
in a `Spool`: each message's bytes followed by a comma, in a few large
immutable chunks. A call appends the bytes of its new messages only, and its
body is written from the chunks as they are (`BodyParts`: no join, no copy
of the history in Python). So that the chunks stay few without copying much,
a new chunk is merged into the one before it while that one is less than
twice its size: sizes halve from the first chunk on, there are O(log n) of
them, and each byte is copied O(log n) times over the whole session.

A request's rendered history is a `RenderedHistory`: a mutable sequence to
the adapters (Anthropic's cache markers replace an item), made of the cached
messages and the call's own, never copied into one list, whose bytes are
the spool's where it has them, so the bytes written are always the items'.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, MutableSequence
from itertools import chain
from typing import Any, overload

from cursor_byok.llm.shared_tuple import SharedTuple

Buffer = bytes | memoryview


class Spool:
    """The canonical bytes of a run of rendered items, each followed by a
    comma; `ends[i]` is where item i's comma ends. Immutable: `extended`
    makes a new spool (the chunks are shared, the offsets a shared tuple)."""

    __slots__ = ("chunks", "ends")

    def __init__(self, chunks: tuple[bytes, ...] = (), ends: SharedTuple[int] | None = None):
        self.chunks = chunks
        self.ends: SharedTuple[int] = SharedTuple() if ends is None else ends

    def __len__(self) -> int:
        return len(self.ends)

    @property
    def size(self) -> int:
        return self.ends[-1] if self.ends else 0

    def extended(self, items: Iterable[bytes]) -> Spool:
        """This spool with `items` (each one's canonical bytes) after it."""
        pieces: list[bytes] = []
        ends: list[int] = []
        size = self.size
        for data in items:
            pieces += (data, b",")
            size += len(data) + 1
            ends.append(size)
        if not ends:
            return self
        chunks = [*self.chunks, b"".join(pieces)]
        while len(chunks) > 1 and len(chunks[-2]) < 2 * len(chunks[-1]):
            last = chunks.pop()
            chunks[-1] += last
        return Spool(tuple(chunks), self.ends + tuple(ends))

    def run(self, first: int, stop: int) -> list[Buffer]:
        """The bytes of items `first` to `stop`, a comma after each: whole
        chunks, and views of those the run starts or ends in."""
        if stop <= first:
            return []
        begin = self.ends[first - 1] if first else 0
        end = self.ends[stop - 1]
        out: list[Buffer] = []
        at = 0
        for chunk in self.chunks:
            after = at + len(chunk)
            if after > begin and at < end:
                whole = at >= begin and after <= end
                out.append(chunk if whole else memoryview(chunk)[max(begin - at, 0) : end - at])
            at = after
        return out


class RenderedHistory(MutableSequence[Any]):
    """A request's rendered history: `head` (the adapter's own first items,
    a system message), the cached rendered messages (`prefix`, whose bytes
    `spool` holds) and `tail`, seen as one sequence without being copied
    into one: a copy would touch every cached message, and at thousands of
    them scattered in memory that costs more than the rest of the call.

    An item replaced inside the prefix (Anthropic's cache markers) is kept
    beside it and written in its place. Any other change (an insert, a
    delete) first copies everything into a plain list, and the body is then
    written item by item (no adapter does that; it only has to be right)."""

    __slots__ = ("_head", "_list", "_prefix", "_replaced", "_tail", "spool")

    def __init__(
        self,
        head: Iterable[Any],
        prefix: SharedTuple[Any],
        spool: Spool,
        tail: Iterable[Any],
    ) -> None:
        self._head = list(head)
        self._prefix = prefix
        self._tail = list(tail)
        self._replaced: dict[int, Any] = {}
        self._list: list[Any] | None = None
        self.spool: Spool | None = spool

    def _plain(self) -> list[Any]:
        """Everything in one list, from now on (the spool no longer used)."""
        if self._list is None:
            self._list = list(iter(self))
            self.spool = None
        return self._list

    def __len__(self) -> int:
        if self._list is not None:
            return len(self._list)
        return len(self._head) + len(self._prefix) + len(self._tail)

    def _locate(self, index: int) -> tuple[int, int]:
        """(0: head, 1: prefix, 2: tail), and the index there."""
        size = len(self)
        at = index + size if index < 0 else index
        if not 0 <= at < size:
            raise IndexError("RenderedHistory index out of range")
        if at < len(self._head):
            return 0, at
        at -= len(self._head)
        if at < len(self._prefix):
            return 1, at
        return 2, at - len(self._prefix)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if self._list is not None:
            return self._list[index]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        part, at = self._locate(index)
        if part == 1:
            return self._replaced.get(at, self._prefix[at]) if self._replaced else self._prefix[at]
        return self._head[at] if part == 0 else self._tail[at]

    @overload
    def __setitem__(self, index: int, value: Any) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[Any]) -> None: ...

    def __setitem__(self, index: int | slice, value: Any) -> None:
        if self._list is not None or isinstance(index, slice):
            self._plain()[index] = value
            return
        part, at = self._locate(index)
        if part == 1:
            self._replaced[at] = value
        elif part == 0:
            self._head[at] = value
        else:
            self._tail[at] = value

    def __delitem__(self, index: int | slice) -> None:
        del self._plain()[index]

    def insert(self, index: int, value: Any) -> None:
        self._plain().insert(index, value)

    def append(self, value: Any) -> None:
        (self._list if self._list is not None else self._tail).append(value)

    def extend(self, values: Iterable[Any]) -> None:
        (self._list if self._list is not None else self._tail).extend(values)

    def reverse(self) -> None:
        self._plain().reverse()

    def clear(self) -> None:
        self._plain().clear()

    def __iter__(self) -> Iterator[Any]:
        if self._list is not None:
            return iter(self._list)
        prefix: Iterable[Any] = self._prefix
        if self._replaced:
            replaced = self._replaced
            prefix = (replaced.get(i, item) for i, item in enumerate(self._prefix))
        return chain(self._head, prefix, self._tail)

    def __reversed__(self) -> Iterator[Any]:
        items = self._list
        if items is not None:
            return iter(items[::-1])
        return (self[i] for i in range(len(self) - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list | RenderedHistory):
            return len(self) == len(other) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RenderedHistory({list(self)!r})"

    def parts(self, encode: Callable[[list[Any]], list[Buffer]]) -> list[Buffer]:
        """The items' bytes, a comma after each: the spool's chunks for the
        cached ones (with a replaced one's own bytes in its place), `encode`
        for the others."""
        if self.spool is None or self._list is not None:
            return encode(list(self))
        spool, pieces = self.spool, encode(self._head)
        at = 0
        for index in sorted(self._replaced):
            pieces += spool.run(at, index)
            pieces += encode([self._replaced[index]])
            at = index + 1
        pieces += spool.run(at, len(self._prefix))
        pieces += encode(self._tail)
        return pieces
