"""`SharedTuple`: an immutable sequence that shares its storage with the
sequences it extends, so that appending costs what is appended.

History only grows (DESIGN.md §3), and a conversation's state is replaced,
never changed, at every step. With a plain tuple each append copies the
whole history: a reference and a reference count per message, four times a
turn, ever more as the session goes on. A `SharedTuple` is a view of a list
that only ever grows at its end: `history + (message,)` appends to the list
when `history` ends where the list does and returns a view one longer, while
`history` itself still sees exactly what it saw. When the list has already
grown past `history`'s end (another sequence extended it first), the result
takes a copy of its own, unless what follows is the very objects being
appended (the same step computed twice, as after a refused commit). No view
ever sees past its end, so a value never changes: code that holds one holds
the same messages for ever, as with a tuple.

Slicing gives a view too (a window of the history costs nothing), and two
views of one list tell in O(1) whether one extends the other (`extends`):
the render cache asks that on every model call. Equality, hashing and
`repr` are a tuple's, so a state holding one compares equal to a state
holding the tuple of the same messages. Appends take a lock (a few tens of
nanoseconds): views may be extended from any thread; reads need none.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

_GROWING = threading.Lock()


class SharedTuple(Sequence[T], Generic[T]):
    """A tuple-like view `items[start:stop]` of a list that only grows."""

    __slots__ = ("_items", "_start", "_stop")

    _items: list[T]
    _start: int
    _stop: int

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items = list(items)
        self._start = 0
        self._stop = len(self._items)

    @classmethod
    def _view(cls, items: list[T], start: int, stop: int) -> SharedTuple[T]:
        view: SharedTuple[T] = cls.__new__(cls)
        view._items, view._start, view._stop = items, start, stop
        return view

    @classmethod
    def of(cls, items: Sequence[T]) -> SharedTuple[T]:
        """`items` as a shared tuple: itself when it is one, else a copy."""
        return items if isinstance(items, SharedTuple) else cls(items)

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> SharedTuple[T]: ...

    def __getitem__(self, index: int | slice) -> T | SharedTuple[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return SharedTuple(tuple(self)[index])
            return self._view(self._items, self._start + start, self._start + max(start, stop))
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("SharedTuple index out of range")
        return self._items[self._start + index]

    def __iter__(self) -> Iterator[T]:
        # Bounded: the list may grow while a view is read. A view that does
        # not start at 0 is read by index: `islice` would step over the
        # items before it one by one.
        if self._start:
            return map(self._items.__getitem__, range(self._start, self._stop))
        return islice(self._items, self._stop)

    def __reversed__(self) -> Iterator[T]:
        items = self._items
        return (items[i] for i in range(self._stop - 1, self._start - 1, -1))

    def __add__(self, other: Sequence[T]) -> SharedTuple[T]:
        """These items, then `other`'s: O(len(other)) unless a copy is due
        (see the module's docstring)."""
        extra = other if isinstance(other, tuple) else tuple(other)
        if not extra:
            return self
        items, stop = self._items, self._stop
        end = stop + len(extra)
        with _GROWING:
            if stop == len(items):
                items.extend(extra)
            elif len(items) < end or not all(map(operator.is_, items[stop:end], extra)):
                return SharedTuple([*self, *extra])
        return self._view(items, self._start, end)

    def extends(self, other: Sequence[T], count: int | None = None) -> bool:
        """Whether this sequence starts with the first `count` items of
        `other` (all of them by default), the same objects: O(1) when both
        are views of one list from the same start, else one identity test
        per item."""
        count = len(other) if count is None else count
        if count > len(self) or count > len(other):
            return False
        if (
            isinstance(other, SharedTuple)
            and other._items is self._items
            and other._start == self._start
        ):
            return True
        return all(map(operator.is_, islice(self, count), islice(other, count)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SharedTuple):
            if len(self) != len(other):
                return False
            if other._items is self._items and other._start == self._start:
                return True
            return tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return len(self) == len(other) and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (SharedTuple, (tuple(self),))
