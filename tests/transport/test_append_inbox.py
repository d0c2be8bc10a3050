"""Append ordering: shuffled windows, duplicates, gaps, reuse of a request id."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from cursor_byok.transport.sessions.append_inbox import MAX_AHEAD, AppendInbox


def payload(n: int) -> bytes:
    return f"message {n}".encode()


@given(st.integers(0, 2**32), st.integers(1, 80))
def test_a_shuffled_window_of_16_is_delivered_in_order_exactly_once(seed: int, total: int) -> None:
    rng = random.Random(seed)
    order: list[int] = []
    for start in range(0, total, 16):
        window = list(range(start, min(start + 16, total)))
        rng.shuffle(window)
        order.extend(window)
    # Sprinkle duplicates of already-sent appends.
    with_dups = [*order, *rng.sample(order, min(5, len(order)))]
    inbox = AppendInbox()
    delivered: list[bytes] = []
    for seqno in with_dups:
        delivered.extend(p for _, p in inbox.offer(seqno, payload(seqno)))
    assert delivered == [payload(n) for n in range(total)]
    assert inbox.stats.duplicates == min(5, len(order))
    assert inbox.pending == {}


def test_a_gap_holds_everything_after_it() -> None:
    inbox = AppendInbox()
    assert inbox.offer(0, payload(0)) == [(0, payload(0))]
    assert inbox.offer(2, payload(2)) == []
    assert inbox.offer(3, payload(3)) == []
    assert inbox.waiting_for == 1
    assert inbox.offer(1, payload(1)) == [(1, payload(1)), (2, payload(2)), (3, payload(3))]
    assert inbox.waiting_for is None


def test_an_append_sent_again_while_it_waits_is_a_duplicate_and_the_first_stays() -> None:
    inbox = AppendInbox()
    assert inbox.offer(2, b"first") == []
    assert inbox.offer(2, b"sent again, different") == []
    assert inbox.stats.duplicates == 1
    assert inbox.pending == {2: b"first"} and inbox.pending_bytes == len(b"first")
    assert inbox.offer(0, b"zero") == [(0, b"zero")]
    assert inbox.offer(1, b"one") == [(1, b"one"), (2, b"first")]
    assert inbox.pending_bytes == 0


def test_a_repeated_first_append_is_a_duplicate() -> None:
    inbox = AppendInbox()
    inbox.offer(0, payload(0))
    inbox.offer(1, payload(1))
    assert inbox.offer(0, payload(0)) == []
    assert inbox.stats.duplicates == 1 and inbox.next_seqno == 2


def test_a_reused_request_id_restarts_at_zero() -> None:
    inbox = AppendInbox()
    inbox.offer(0, payload(0))
    inbox.offer(1, payload(1))
    assert inbox.offer(0, b"a new run") == [(0, b"a new run")]
    assert inbox.offer(1, b"its second message") == [(1, b"its second message")]
    assert inbox.stats.restarts == 1


def test_an_append_absurdly_far_ahead_is_refused_and_counted() -> None:
    inbox = AppendInbox()
    assert inbox.offer(MAX_AHEAD, b"x") == []
    assert inbox.stats.too_far_ahead == 1
    assert inbox.offer(MAX_AHEAD - 1, b"y") == []
    assert inbox.pending == {MAX_AHEAD - 1: b"y"}


def test_clearing_lets_go_of_the_buffered_bytes_and_says_how_many() -> None:
    inbox = AppendInbox()
    assert inbox.offer(1, b"abc") == [] and inbox.offer(3, b"de") == []
    assert inbox.pending_bytes == 5
    assert inbox.clear() == 5
    assert inbox.pending == {} and inbox.pending_bytes == 0 and inbox.waiting_for is None


def test_an_inbox_started_later_delivers_from_there_and_ignores_what_came_before() -> None:
    inbox = AppendInbox()
    inbox.start_at(5)
    assert inbox.offer(6, b"six") == []
    assert inbox.offer(3, b"three") == []  # before the start: applied elsewhere
    assert inbox.offer(5, b"five") == [(5, b"five"), (6, b"six")]
    inbox.start_at(0)  # only a new inbox moves its start
    assert inbox.next_seqno == 7
