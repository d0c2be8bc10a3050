"""A stream's outbox: the ordered messages its one writer sends.

An `asyncio.Queue` makes its getter a new future per item, and waiting on it
with a heartbeat timeout costs a Task and a timer per wait. This outbox has
one long-lived waiter per writer, parked only while the writer is idle:
putting an item wakes it, and so does `wake()` (the client left, a heartbeat
is due). A busy writer takes whatever is queued without waiting at all.
(Two writers may read one session for a moment, when a client reconnects
before the server saw its old connection go: each parks on its own future.)

A session keeps one outbox for its whole life: a reset or a take-over
empties it in place rather than replacing it, so a writer that is parked on
it (or about to be) always sees what is put next, its end-of-stream included.

A bounded outbox (a Run stream's) refuses to grow past `limit`: what does
not fit is dropped (the turn's history keeps it) and `overflowed` is set,
which fails the stream; the end-of-stream always fits.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.wire.errors import WireError


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """The last item of a stream: success (`error` None) or a Connect error."""

    error: WireError | None = None


QueueItem = pb.AgentServerMessage | EndOfStream


class Outbox:
    __slots__ = ("_items", "_on_overflow", "_waiters", "limit", "most", "overflowed")

    def __init__(self, limit: int | None = None) -> None:
        self._items: deque[QueueItem] = deque()
        self._waiters: list[asyncio.Future[None]] = []
        self._on_overflow: Callable[[], None] | None = None
        self.limit = limit
        self.overflowed = False
        self.most = 0
        """The most items it ever held at once: what the bound kept it to."""

    def put_nowait(self, item: QueueItem) -> None:
        items = self._items
        full = self.limit is not None and len(items) >= self.limit
        if full and not isinstance(item, EndOfStream):
            self._overflow()
            return
        items.append(item)
        self.most = max(self.most, len(items))
        if self._waiters:
            self.wake()

    def put_back(self, items: Iterable[QueueItem]) -> None:
        """Items taken but not sent go back to the head, in their order."""
        self._items.extendleft(reversed(list(items)))
        self.wake()

    def get_nowait(self) -> QueueItem:
        """The oldest item; IndexError when empty."""
        return self._items.popleft()

    def take(self, limit: int) -> list[QueueItem]:
        """Up to `limit` items, oldest first."""
        items = self._items
        if len(items) <= limit:
            batch = list(items)
            items.clear()
            return batch
        return [items.popleft() for _ in range(limit)]

    def clear(self) -> list[QueueItem]:
        """Everything queued, oldest first; the outbox is empty (and not
        overflowed) after."""
        taken = list(self._items)
        self._items.clear()
        self.overflowed = False
        return taken

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def wake(self) -> None:
        """Let the parked writers look again (an item, a disconnect, a beat)."""
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    def on_overflow(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` (once per overflow) when an item did not fit."""
        self._on_overflow = callback

    def _overflow(self) -> None:
        if self.overflowed:
            return
        self.overflowed = True
        self.wake()
        if self._on_overflow is not None:
            self._on_overflow()

    async def wait(self) -> None:
        """Until something is queued or `wake()` is called; at once when
        something is queued already."""
        if self._items:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            self._waiters.remove(waiter)
