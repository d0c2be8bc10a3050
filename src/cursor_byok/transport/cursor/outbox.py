"""A stream's outbox: the ordered messages its one writer sends.

An `asyncio.Queue` costs its waiter a new future per item, and waiting on it
with a heartbeat timeout costs a Task and a timer per item too. This outbox
has one waiter at a time, parked while the writer is idle; putting an item
wakes it, and so does `wake()` (a disconnect, a heartbeat due). A busy writer
takes whatever is queued without waiting at all.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class Outbox(Generic[T]):
    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        self.wake()

    def put_back(self, items: Sequence[T]) -> None:
        """Items taken but not sent go back to the head, in their order."""
        self._items.extendleft(reversed(items))
        self.wake()

    def get_nowait(self) -> T:
        """The oldest item; IndexError when empty."""
        return self._items.popleft()

    def take(self, limit: int) -> list[T]:
        """Up to `limit` items, oldest first."""
        items = self._items
        if len(items) <= limit:
            batch = list(items)
            items.clear()
            return batch
        return [items.popleft() for _ in range(limit)]

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def wake(self) -> None:
        """Let the waiting writer look again (an item, a disconnect, a beat)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> None:
        """Until something is queued or `wake()` is called."""
        if self._items:
            return
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        try:
            await waiter
        finally:
            self._waiter = None
