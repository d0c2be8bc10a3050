"""A Run stream's request messages taken in the step that read them
(`direct_receive`), on a real asyncio.Queue as hypercorn hands them over:
in order, one at a time, and back to the queue the moment the reader is
done."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from cursor_byok.transport.http.direct_receive import SETTLE, DirectReceive
from cursor_byok.transport.http.run_messages import Taken

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the direct path needs Python 3.12's eager tasks"
)


def body(text: str, more: bool = True) -> dict[str, Any]:
    return {"type": "http.request", "body": text.encode(), "more_body": more}


class Taker:
    """Takes messages as the stream's reader would: each one's hand-on
    waits until the test lets it go (`release`)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.finished: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.ends_with: str | None = None

    async def take(self, message: Mapping[str, Any]) -> Taken:
        text = message["body"].decode()
        self.started.append(text)
        await self.gates.setdefault(text, asyncio.Event()).wait()
        self.finished.append(text)
        return Taken.ENDED if text == self.ends_with else Taken.MORE

    def release(self, text: str) -> None:
        self.gates.setdefault(text, asyncio.Event()).set()


async def reader(queue: asyncio.Queue[Any], taker: Taker, direct: DirectReceive) -> list[str]:
    """`run_stream`'s loop, over the queue: what it took itself."""
    own: list[str] = []
    taken = Taken.MORE
    try:
        while taken is Taken.MORE:
            direct.waiting = True
            message = await queue.get()
            direct.waiting = False
            taken = await direct.settle()
            if taken is not Taken.MORE or message is SETTLE:
                continue
            own.append(message["body"].decode())
            taken = await taker.take(message)
    finally:
        direct.close()
    return own


def installed(taker: Taker) -> tuple[asyncio.Queue[Any], DirectReceive]:
    """A queue as hypercorn makes one for a stream, the direct path on it."""
    queue: asyncio.Queue[Any] = asyncio.Queue(10)
    direct = DirectReceive.behind(queue.get, taker.take)
    assert direct is not None
    return queue, direct


async def reading_from(taker: Taker) -> tuple[asyncio.Queue[Any], asyncio.Future[list[str]]]:
    """The queue and its reader, waiting on it."""
    queue, direct = installed(taker)
    reading = asyncio.ensure_future(reader(queue, taker, direct))
    await asyncio.sleep(0)  # the reader waits
    return queue, reading


async def test_a_message_that_finds_the_reader_waiting_is_taken_in_the_putting_step() -> None:
    taker = Taker()
    queue, reading = await reading_from(taker)
    await queue.put(body("run"))
    assert taker.started == ["run"]  # begun before the put returned: no step between
    assert queue.empty()
    taker.release("run")
    for _ in range(3):  # handed on, and its end seen
        await asyncio.sleep(0)
    assert taker.finished == ["run"]
    await queue.put(body("next"))  # the reader waits again: taken directly too
    assert taker.started == ["run", "next"]
    taker.ends_with = "last"
    taker.release("next")
    for _ in range(3):
        await asyncio.sleep(0)
    await queue.put(body("last", more=False))
    taker.release("last")
    assert await asyncio.wait_for(reading, 5) == []  # all three taken directly
    assert taker.finished == ["run", "next", "last"]


async def test_messages_that_come_while_one_is_taken_wait_for_it_in_order() -> None:
    taker = Taker()
    queue, reading = await reading_from(taker)
    await queue.put(body("1"))  # taken directly, held
    await queue.put(body("2"))  # queued: one is in hand
    await queue.put(body("3"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert taker.started == ["1"]  # "2" waits for "1" to be handed on
    taker.release("1")
    for _ in range(5):
        await asyncio.sleep(0)
    assert taker.started == ["1", "2"]
    taker.ends_with = "3"
    taker.release("2")
    taker.release("3")
    assert await asyncio.wait_for(reading, 5) == ["2", "3"]
    assert taker.finished == ["1", "2", "3"]


async def test_a_message_taken_directly_that_ends_the_stream_stops_the_reader() -> None:
    taker = Taker()
    taker.ends_with = "bad"
    queue, reading = await reading_from(taker)
    await queue.put(body("bad"))
    taker.release("bad")
    assert await asyncio.wait_for(reading, 5) == []  # woken to settle it, and done


async def test_once_the_reader_is_done_messages_go_to_the_queue_again() -> None:
    taker = Taker()
    queue, direct = installed(taker)
    direct.waiting = True
    await queue.put(body("held"))  # taken directly and never let go
    taking = direct._taking
    assert taking is not None and not taking.done()
    direct.close()
    await asyncio.sleep(0)
    assert taking.cancelled()  # stopped, as the reader's own would be
    assert "put_nowait" not in vars(queue)
    await queue.put(body("late"))
    assert queue.get_nowait() == body("late")
    assert taker.started == ["held"]


async def test_a_disconnect_or_a_busy_reader_goes_through_the_queue() -> None:
    taker = Taker()
    queue, direct = installed(taker)
    await queue.put(body("not waiting"))  # the reader is busy elsewhere
    direct.waiting = True
    await queue.put({"type": "http.disconnect"})
    assert taker.started == []
    assert [queue.get_nowait(), queue.get_nowait()] == [
        body("not waiting"),
        {"type": "http.disconnect"},
    ]
    direct.close()


async def test_a_receive_that_is_not_a_queue_has_no_direct_path() -> None:
    async def receive() -> dict[str, Any]:
        return body("x")

    assert DirectReceive.behind(receive, Taker().take) is None
