"""The stream outbox: order kept, unsent items back at the head, parked
writers woken by an item or by `wake()`, a bound that drops what does not
fit but never the end of the stream, token counter steps that join the one
still queued."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.outbox import Direct, EndOfStream, Outbox, QueueItem


async def parked(outbox: Outbox, direct: Direct | None = None) -> asyncio.Future[None]:
    """A writer parked on `outbox` (with `direct`, its direct path), as a stream's writer parks."""
    waiting = asyncio.ensure_future(outbox.wait(direct))
    await asyncio.sleep(0)
    return waiting


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
    waiting = await parked(outbox)
    assert not waiting.done()
    outbox.put_nowait(EndOfStream())
    await asyncio.wait_for(waiting, 1)
    assert outbox.get_nowait() == EndOfStream()
    woken = await parked(outbox)
    assert not woken.done()
    outbox.wake()
    await asyncio.wait_for(woken, 1)
    assert outbox.empty()


async def test_two_parked_writers_are_both_woken() -> None:
    outbox = Outbox()
    first = asyncio.ensure_future(outbox.wait())
    second = await parked(outbox)
    outbox.put_nowait(dialect.heartbeat())
    await asyncio.wait_for(asyncio.gather(first, second), 1)


async def test_a_writer_parks_again_after_a_wake_and_after_a_cancel() -> None:
    outbox = Outbox()
    cancelled = await parked(outbox)
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    for _ in range(2):  # woken once, then parked anew and woken again
        writer = await parked(outbox)
        assert not writer.done()
        outbox.put_nowait(dialect.heartbeat())
        outbox.put_nowait(dialect.heartbeat())  # a second item finds nobody parked
        await asyncio.wait_for(writer, 1)
        assert outbox.take(10) == [dialect.heartbeat()] * 2


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


def _tokens(items: list[QueueItem]) -> list[int]:
    """The token_delta steps among `items`, in order."""
    return [
        item.interaction_update.token_delta.tokens
        for item in items
        if isinstance(item, pb.AgentServerMessage)
        and item.interaction_update.HasField("token_delta")
    ]


def test_tokens_join_the_counter_step_still_queued() -> None:
    outbox = Outbox()
    outbox.add_tokens(2)
    outbox.put_nowait(dialect.heartbeat())
    outbox.add_tokens(3)
    outbox.add_tokens(1)
    assert outbox.qsize() == 2
    assert _tokens(outbox.take(10)) == [6]


def test_a_counter_step_taken_by_a_reader_is_never_changed() -> None:
    for take in (
        lambda outbox: outbox.take(10),
        lambda outbox: outbox.take(1),  # only part of the queue: the step is not added to
        lambda outbox: [outbox.get_nowait()],
        lambda outbox: outbox.clear(),
    ):
        outbox = Outbox()
        outbox.add_tokens(2)
        outbox.put_nowait(dialect.heartbeat())
        taken = take(outbox)
        outbox.add_tokens(5)
        assert _tokens(taken) == [2]
        assert _tokens(taken + outbox.take(10)) == [2, 5]


def test_a_counter_step_that_did_not_fit_is_not_added_to() -> None:
    outbox = Outbox(limit=1)
    outbox.put_nowait(dialect.heartbeat())
    outbox.add_tokens(4)
    assert outbox.overflowed
    outbox.add_tokens(1)
    assert _tokens(outbox.clear()) == []


def test_a_counter_step_stays_an_int32() -> None:
    outbox = Outbox()
    outbox.add_tokens(2**31 - 10)
    outbox.add_tokens(100)
    assert _tokens(outbox.take(10)) == [2**31 - 1]


def recorder(calls: list[list[QueueItem]]) -> Callable[[list[QueueItem]], bool]:
    """A direct path that takes every batch, noting it."""

    def direct(batch: list[QueueItem]) -> bool:
        calls.append(batch)
        return True

    return direct


async def test_a_flush_hands_a_parked_writers_direct_path_the_batch_and_leaves_it_parked() -> None:
    outbox = Outbox()
    sent: list[list[QueueItem]] = []
    waiting = await parked(outbox, recorder(sent))
    update = dialect.heartbeat()
    outbox.put_nowait(update, wake=False)
    outbox.add_tokens(3, wake=False)
    assert not sent  # nothing goes before the flush
    outbox.flush()
    assert len(sent) == 1 and sent[0][0] is update
    counter = sent[0][1]
    assert isinstance(counter, pb.AgentServerMessage)
    assert counter.interaction_update.token_delta.tokens == 3
    assert outbox.empty()
    await asyncio.sleep(0)
    assert not waiting.done()  # not woken: its task had nothing to do
    outbox.put_nowait(EndOfStream())  # an ordinary put still wakes it
    await asyncio.wait_for(waiting, 1)


async def test_a_flush_with_nothing_queued_leaves_the_writer_parked_for_the_next_one() -> None:
    # An event with no update (a text block's start) is shown with a flush
    # too: waking the writer for it would cost the delta after it the direct
    # path, and that delta would wait for the writer's task instead.
    outbox = Outbox()
    sent: list[list[QueueItem]] = []
    waiting = await parked(outbox, recorder(sent))
    outbox.flush()
    await asyncio.sleep(0)
    assert not waiting.done() and not sent
    update = dialect.heartbeat()
    outbox.put_nowait(update, wake=False)
    outbox.flush()
    assert sent == [[update]] and outbox.empty()
    await asyncio.sleep(0)
    assert not waiting.done()
    outbox.wake()
    await asyncio.wait_for(waiting, 1)


async def test_a_batch_the_direct_path_refuses_goes_back_first_and_wakes_the_writer() -> None:
    outbox = Outbox()
    refused: list[list[QueueItem]] = []

    def direct(batch: list[QueueItem]) -> bool:
        refused.append(batch)
        return False

    waiting = await parked(outbox, direct)
    beats = [dialect.heartbeat() for _ in range(3)]
    for beat in beats:
        outbox.put_nowait(beat, wake=False)
    outbox.flush()
    await asyncio.wait_for(waiting, 1)
    assert refused == [beats]
    assert outbox.take(10) == beats


async def test_a_flush_without_a_direct_path_or_with_two_writers_parked_wakes_them() -> None:
    plain = Outbox()
    waiting = await parked(plain)
    plain.put_nowait(dialect.heartbeat(), wake=False)
    await asyncio.sleep(0)
    assert not waiting.done()  # a put that does not wake leaves it parked...
    plain.flush()
    await asyncio.wait_for(waiting, 1)  # ...until the flush

    shared = Outbox()
    calls: list[list[QueueItem]] = []
    first = asyncio.ensure_future(shared.wait(recorder(calls)))
    second = await parked(shared)
    shared.put_nowait(dialect.heartbeat(), wake=False)
    shared.flush()
    await asyncio.wait_for(asyncio.gather(first, second), 1)
    assert not calls and shared.qsize() == 1  # two readers: neither is written to directly


async def test_a_woken_writers_direct_path_is_not_used_again() -> None:
    outbox = Outbox()
    calls: list[list[QueueItem]] = []
    waiting = await parked(outbox, recorder(calls))
    outbox.wake()
    await asyncio.wait_for(waiting, 1)
    later = await parked(outbox)
    outbox.put_nowait(dialect.heartbeat(), wake=False)
    outbox.flush()
    await asyncio.wait_for(later, 1)
    assert not calls and outbox.qsize() == 1


async def test_a_direct_path_that_fails_loses_nothing_and_wakes_the_writer() -> None:
    outbox = Outbox()

    def broken(batch: list[QueueItem]) -> bool:
        raise ValueError("cannot encode")

    waiting = await parked(outbox, broken)
    beat = dialect.heartbeat()
    outbox.put_nowait(beat, wake=False)
    outbox.flush()
    await asyncio.wait_for(waiting, 1)
    assert outbox.take(10) == [beat]


async def test_one_item_goes_to_a_parked_writers_direct_path_without_the_queue() -> None:
    outbox = Outbox()
    sent: list[list[QueueItem]] = []
    waiting = await parked(outbox, recorder(sent))
    first, second = dialect.heartbeat(), dialect.heartbeat()
    outbox.send_one(first)
    outbox.send_one(second)
    assert sent == [[first], [second]] and outbox.empty()
    assert outbox.most == 1  # as if each had been queued a moment
    await asyncio.sleep(0)
    assert not waiting.done()  # still parked for the next one
    outbox.wake()
    await asyncio.wait_for(waiting, 1)


async def test_one_item_behind_queued_ones_keeps_their_order() -> None:
    outbox = Outbox()
    sent: list[list[QueueItem]] = []
    waiting = await parked(outbox, recorder(sent))
    queued = dialect.heartbeat()
    outbox.put_nowait(queued, wake=False)  # not flushed yet
    later = dialect.heartbeat()
    outbox.send_one(later)
    assert sent == [[queued, later]]  # one batch, in the order put
    outbox.wake()
    await asyncio.wait_for(waiting, 1)


@pytest.mark.parametrize("outcome", ["refused", "raised"])
async def test_one_item_the_direct_path_does_not_take_is_queued_and_wakes_the_writer(
    outcome: str,
) -> None:
    outbox = Outbox()
    tried: list[list[QueueItem]] = []

    def direct(batch: list[QueueItem]) -> bool:
        tried.append(batch)
        if outcome == "raised":
            raise ValueError("cannot encode")
        return False

    waiting = await parked(outbox, direct)
    beat = dialect.heartbeat()
    outbox.send_one(beat)
    await asyncio.wait_for(waiting, 1)
    assert tried == [[beat]]  # asked once, not again by a flush
    assert outbox.take(10) == [beat]


async def test_one_item_with_no_direct_path_is_queued_and_wakes_the_writer() -> None:
    outbox = Outbox()
    waiting = await parked(outbox)
    beat = dialect.heartbeat()
    outbox.send_one(beat)
    await asyncio.wait_for(waiting, 1)
    assert outbox.take(10) == [beat]
