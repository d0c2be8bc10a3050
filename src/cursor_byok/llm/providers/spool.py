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

A request's rendered list is a `RenderedList`: a plain list to the adapters
(which may replace an item, as Anthropic's cache markers do), which also
knows which of its items the spool's bytes stand for. Changing an item, or
moving items, at or before the end of that run shortens the run to what is
still untouched, so the bytes written are always those of the list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, SupportsIndex, overload

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

    def parts(self, count: int, last_comma: bool) -> list[Buffer]:
        """The bytes of the first `count` items, a comma after each, the last
        one's left off unless `last_comma`: whole chunks, and a view of the
        one the run ends in."""
        stop = self.ends[count - 1] if count else 0
        if count and not last_comma:
            stop -= 1
        out: list[Buffer] = []
        at = 0
        for chunk in self.chunks:
            if at >= stop:
                break
            end = at + len(chunk)
            out.append(chunk if end <= stop else memoryview(chunk)[: stop - at])
            at = end
        return out


class RenderedList(list[Any]):
    """A request's rendered items. Items `first` to `first + covered` are the
    first `covered` items of `spool`, byte for byte, as long as nobody
    changes them: a change at or before one of them shortens the run."""

    __slots__ = ("covered", "first", "spool")

    def __init__(
        self, items: Iterable[Any] = (), spool: Spool | None = None, first: int = 0
    ) -> None:
        super().__init__(items)
        self.spool = spool
        self.first = first
        self.covered = len(spool) if spool is not None else 0

    def _touch(self, index: int, moves: bool) -> None:
        """Item `index` changes (`moves`: and those after it change places)."""
        if index < self.first:
            if moves:
                self.covered = 0
            return
        self.covered = max(0, min(self.covered, index - self.first))

    def _at(self, index: SupportsIndex) -> int:
        at = index.__index__()
        return at + len(self) if at < 0 else at

    @overload
    def __setitem__(self, index: SupportsIndex, value: Any, /) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[Any], /) -> None: ...

    def __setitem__(self, index: SupportsIndex | slice, value: Any, /) -> None:
        if isinstance(index, slice):
            self._touch(0 if index.step not in (None, 1) else index.indices(len(self))[0], True)
        else:
            self._touch(self._at(index), False)
        super().__setitem__(index, value)

    def __delitem__(self, index: SupportsIndex | slice, /) -> None:
        if isinstance(index, slice):
            self._touch(0 if index.step not in (None, 1) else index.indices(len(self))[0], True)
        else:
            self._touch(self._at(index), True)
        super().__delitem__(index)

    def insert(self, index: SupportsIndex, value: Any, /) -> None:
        self._touch(max(0, self._at(index)), True)
        super().insert(index, value)

    def pop(self, index: SupportsIndex = -1, /) -> Any:
        self._touch(self._at(index), True)
        return super().pop(index)

    def remove(self, value: Any, /) -> None:
        self._touch(self.index(value), True)
        super().remove(value)

    def reverse(self) -> None:
        self._touch(0, True)
        super().reverse()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._touch(0, True)
        super().sort(*args, **kwargs)

    def clear(self) -> None:
        self._touch(0, True)
        super().clear()

    def __imul__(self, times: SupportsIndex, /) -> RenderedList:
        if times.__index__() <= 0:
            self._touch(0, True)
        super().__imul__(times)
        return self
