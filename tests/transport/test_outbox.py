"""The stream outbox: order kept, unsent items back at the head, one waiter
woken by an item or by `wake()`."""

from __future__ import annotations

import asyncio

from cursor_byok.transport.cursor.outbox import Outbox


def test_items_come_out_in_order_and_unsent_ones_go_back_first() -> None:
    outbox: Outbox[int] = Outbox()
    for n in range(5):
        outbox.put_nowait(n)
    assert outbox.take(2) == [0, 1]
    outbox.put_back([0, 1])
    assert outbox.qsize() == 5
    assert outbox.take(10) == [0, 1, 2, 3, 4]
    assert outbox.empty()


async def test_the_waiter_wakes_for_an_item_and_for_a_wake_call() -> None:
    outbox: Outbox[str] = Outbox()
    waiting = asyncio.ensure_future(outbox.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    outbox.put_nowait("a")
    await asyncio.wait_for(waiting, 1)
    assert outbox.get_nowait() == "a"
    woken = asyncio.ensure_future(outbox.wait())
    await asyncio.sleep(0)
    outbox.wake()
    await asyncio.wait_for(woken, 1)
    assert outbox.empty()
    outbox.put_nowait("b")
    await asyncio.wait_for(outbox.wait(), 1)  # something queued: no wait at all
