"""The stream outbox: order kept, unsent items back at the head, parked
writers woken by an item or by `wake()`, a bound that drops what does not
fit but never the end of the stream."""

from __future__ import annotations

import asyncio

from cursor_byok.transport.cursor import dialect
from cursor_byok.transport.cursor.outbox import EndOfStream, Outbox


def test_items_come_out_in_order_and_unsent_ones_go_back_first() -> None:
    outbox = Outbox()
    beats = [dialect.heartbeat() for _ in range(5)]
    for beat in beats:
        outbox.put_nowait(beat)
    taken = outbox.take(2)
    assert taken == beats[:2]
    outbox.put_back(taken)
    assert outbox.qsize() == 5
    assert outbox.take(10) == beats
    assert outbox.empty()


async def test_a_parked_writer_wakes_for_an_item_and_for_a_wake_call() -> None:
    outbox = Outbox()
    waiting = asyncio.ensure_future(outbox.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    outbox.put_nowait(EndOfStream())
    await asyncio.wait_for(waiting, 1)
    assert outbox.get_nowait() == EndOfStream()
    woken = asyncio.ensure_future(outbox.wait())
    await asyncio.sleep(0)
    assert not woken.done()
    outbox.wake()
    await asyncio.wait_for(woken, 1)
    assert outbox.empty()


async def test_two_parked_writers_are_both_woken() -> None:
    outbox = Outbox()
    first = asyncio.ensure_future(outbox.wait())
    second = asyncio.ensure_future(outbox.wait())
    await asyncio.sleep(0)
    outbox.put_nowait(dialect.heartbeat())
    await asyncio.wait_for(asyncio.gather(first, second), 1)


async def test_a_wait_with_something_queued_returns_at_once() -> None:
    outbox = Outbox()
    outbox.put_nowait(dialect.heartbeat())
    await asyncio.wait_for(outbox.wait(), 0.001)


def test_a_bounded_outbox_drops_what_does_not_fit_but_keeps_the_end() -> None:
    outbox = Outbox(limit=2)
    overflows: list[bool] = []
    outbox.on_overflow(lambda: overflows.append(True))
    for _ in range(4):
        outbox.put_nowait(dialect.heartbeat())
    outbox.put_nowait(EndOfStream())
    assert outbox.overflowed
    assert overflows == [True]  # once per overflow, not once per dropped item
    assert outbox.qsize() == outbox.most == 3
    assert isinstance(outbox.take(3)[-1], EndOfStream)
    assert outbox.most == 3  # the high-water mark stays


def test_clear_empties_the_same_outbox_and_returns_what_it_held() -> None:
    outbox = Outbox(limit=1)
    outbox.put_nowait(dialect.heartbeat())
    outbox.put_nowait(dialect.heartbeat())
    assert outbox.overflowed
    assert outbox.clear() == [dialect.heartbeat()]
    assert outbox.empty() and not outbox.overflowed
