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

A writer may park with a direct path (`wait(direct=...)`): a synchronous
send it can make without its task (an HTTP/2 stream's DATA framed at once).
Items put without waking (`put_nowait(..., wake=False)`) and then `flush()`ed
go out through it while that writer is the only one parked, with no wake-up
of the writer's task in between; if the direct path cannot take them (a
window spent, the client gone) they go back to the head and the writer is
woken as usual.

The live token counter is cosmetic and additive: while a `token_delta` is
still queued, more tokens are added to it rather than queued as another
message (`add_tokens`), so a batch carries one however many deltas it holds,
and the client's counter ends exactly where it would have. (The session
also paces its steps while an answer streams: `dialect.token_step`.)
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cursor_byok.transport.connect.errors import WireError
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """The last item of a stream: success (`error` None) or a Connect error."""

    error: WireError | None = None


QueueItem = pb.AgentServerMessage | EndOfStream
Direct = Callable[[list[QueueItem]], bool]
"""A parked writer's synchronous send of a batch: True if it was sent."""


class Outbox:
    __slots__ = (
        "_counted",
        "_counter",
        "_direct",
        "_items",
        "_on_overflow",
        "_waiters",
        "_written",
        "limit",
        "most",
        "overflowed",
    )

    def __init__(self, limit: int | None = None) -> None:
        self._items: deque[QueueItem] = deque()
        self._waiters: list[asyncio.Future[None]] = []
        self._direct: tuple[asyncio.Future[None], Direct] | None = None
        """The parked waiter that may be sent to directly, and how."""
        self._on_overflow: Callable[[], None] | None = None
        self._counter: pb.AgentServerMessage | None = None
        """The queued token_delta later tokens are added to; None once a reader
        may have taken it (a message taken is never changed)."""
        self._counted = 0
        """The tokens `_counter` stands for: written into it when a reader
        comes, not on every delta."""
        self._written = 0
        """The tokens `_counter` was made with."""
        self.limit = limit
        self.overflowed = False
        self.most = 0
        """The most items it ever held at once: what the bound kept it to."""

    def put_nowait(self, item: QueueItem, wake: bool = True) -> bool:
        """Queue `item`; False when it did not fit (and was dropped). With
        `wake` False a parked writer is left parked: `flush()` must follow."""
        items = self._items
        size = len(items)
        if self.limit is not None and size >= self.limit and not isinstance(item, EndOfStream):
            self._overflow()
            return False
        items.append(item)
        if size >= self.most:
            self.most = size + 1
        if wake and self._waiters:
            self.wake()
        return True

    def add_tokens(self, tokens: int, wake: bool = True) -> None:
        """Move the client's live token counter by `tokens`: onto the
        token_delta still queued if there is one, else as a new one."""
        if self._counter is not None:
            self._counted += tokens
            return
        message = dialect.token_delta(tokens)
        if self.put_nowait(message, wake):
            self._counter = message
            self._counted = self._written = tokens

    def flush(self) -> None:
        """After puts that did not wake: what is queued goes out through the
        parked writer's direct path if it takes it, else the writer is woken.
        With nothing queued the writer stays parked, its direct path kept for
        the next item (a wake-up here would send that item through the
        writer's task, a loop step later)."""
        if not self._waiters or not self._items:
            return
        direct = self._free_direct()
        if direct is not None:
            batch = self.take(len(self._items))
            if _sent(direct, batch):
                return
            self._items.extendleft(reversed(batch))
        self.wake()

    def send_one(self, item: QueueItem) -> None:
        """`put_nowait(item, wake=False)` and `flush()`, for one item: with
        nothing queued and the parked writer's direct path free, the item is
        handed to it without passing through the queue (the path of nearly
        every streamed delta)."""
        direct = None if self._items or self.limit == 0 else self._free_direct()
        if direct is None:
            self.put_nowait(item, wake=False)
            self.flush()
            return
        if not self.most:
            self.most = 1
        if not _sent(direct, [item]):
            self._items.append(item)
            self.wake()

    def _free_direct(self) -> Direct | None:
        """The parked writer's direct path, if that writer is the only one parked."""
        direct = self._direct
        waiters = self._waiters
        if direct is not None and len(waiters) == 1 and waiters[0] is direct[0]:
            return direct[1]
        return None

    def _settle(self) -> None:
        """A reader comes: the queued counter step gets its sum and is no
        longer added to."""
        counter = self._counter
        if counter is not None:
            self._counter = None
            if self._counted != self._written:  # (a lone delta's step is in it already)
                dialect.set_tokens(counter, self._counted)

    def put_back(self, items: Iterable[QueueItem]) -> None:
        """Items taken but not sent go back to the head, in their order."""
        self._items.extendleft(reversed(list(items)))
        self.wake()

    def get_nowait(self) -> QueueItem:
        """The oldest item; IndexError when empty."""
        self._settle()
        return self._items.popleft()

    def take(self, limit: int) -> list[QueueItem]:
        """Up to `limit` items, oldest first."""
        items = self._items
        self._settle()
        if len(items) <= limit:
            batch = list(items)
            items.clear()
            return batch
        return [items.popleft() for _ in range(limit)]

    def clear(self) -> list[QueueItem]:
        """Everything queued, oldest first; the outbox is empty (and not
        overflowed) after."""
        self._settle()
        taken = list(self._items)
        self._items.clear()
        self.overflowed = False
        return taken

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def wake(self) -> None:
        """Let the parked writers look again (an item, a disconnect, a beat).
        A woken writer is no longer parked: the items put before it runs
        do not look at it again."""
        waiters = self._waiters
        if waiters:
            self._waiters = []
            for waiter in waiters:
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

    async def wait(self, direct: Direct | None = None) -> None:
        """Until something is queued or `wake()` is called; at once when
        something is queued already. Meanwhile `direct` (True: sent) may be
        handed what `flush()` finds queued, in place of a wake-up."""
        if self._items:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        if direct is not None:
            self._direct = (waiter, direct)
        try:
            await waiter
        finally:
            if self._direct is not None and self._direct[0] is waiter:
                self._direct = None
            if waiter in self._waiters:  # not woken (the writer was cancelled)
                self._waiters.remove(waiter)


def _sent(direct: Direct, batch: list[QueueItem]) -> bool:
    """Whether the direct path took `batch`; one that fails has not (the
    writer's own path meets the failure, as it did before)."""
    try:
        return direct(batch)
    except Exception:  # noqa: BLE001
        return False
