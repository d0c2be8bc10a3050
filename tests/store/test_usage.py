"""Usage per user, model and day, and budget reservations, in the store: a
call's usage is added once whatever is written twice, its reservation goes
with its end, a budget admits a call only while spend and what other calls
hold are below it, and the reads page through a year in key order. On every
backend."""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.store.base import CallStatus, CallStatusUpdate, LLMCallRecord
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.tokens import new_token
from cursor_byok.store.usage import BudgetPeriod, CallUsage
from tests.store.conftest import Backend

DAY_MS = 86_400_000
JAN_10 = 1_768_003_200_000
"""2026-01-10 00:00 UTC, a Saturday."""
HOUR_MS = 3_600_000


def saved_call(store: SQLStore, call_id: str) -> None:
    record = LLMCallRecord(call_id, "conv-1", "m", "r", "h", 1, None, CallStatus.PLANNED)
    store.save_llm_call(record)


def usage(
    call_id: str,
    user_id: int = 1,
    model: str = "sonnet",
    day: str = "2026-01-10",
    cost_usd: float | None = 0.5,
    ttft_ms: int | None = 30,
) -> CallUsage:
    return CallUsage(
        call_id, user_id, model, day, 100, 10, 1000, 50, 4, cost_usd, ttft_ms, duration_ms=40
    )


def ended(store: SQLStore, recorded: CallUsage) -> None:
    """The call is saved, then ends with `recorded` (as a commit writes it)."""
    saved_call(store, recorded.call_id)
    store.save_llm_call(CallStatusUpdate(recorded.call_id, CallStatus.COMMITTED, 1, usage=recorded))


def budgeted(store: SQLStore, name: str, budget: float, period: BudgetPeriod = "month") -> int:
    made = new_token()
    return store.add_user(name, made.token_id, made.token_hash, None, budget, period).id


def test_a_call_is_counted_once_however_often_its_end_is_written(store: SQLStore) -> None:
    recorded = usage("c1")
    ended(store, recorded)
    again = CallStatusUpdate("c1", CallStatus.COMMITTED, 1, usage=recorded)
    store.save_llm_call(again)
    store.save_llm_call(again)
    (row,) = store.usage_rows("2026-01-01", "2026-01-31")
    assert (row.day, row.user_id, row.model, row.calls) == ("2026-01-10", 1, "sonnet", 1)
    assert (row.input, row.output, row.cache_read, row.cache_write, row.reasoning) == (
        100,
        10,
        1000,
        50,
        4,
    )
    assert (row.cost_usd, row.unpriced_calls, row.ttft_ms_total, row.ttft_calls) == (0.5, 0, 30, 1)
    assert row.duration_ms_total == 40


def test_calls_of_one_user_model_and_day_add_up_and_an_unknown_price_stays_unknown(
    store: SQLStore,
) -> None:
    ended(store, usage("c1"))
    ended(store, usage("c2", cost_usd=None, ttft_ms=None))
    ended(store, usage("c3", model="local"))
    rows = store.usage_rows("2026-01-10", "2026-01-10")
    assert [(r.model, r.calls) for r in rows] == [("local", 1), ("sonnet", 2)]
    sonnet = rows[1]
    # the unpriced call adds its tokens, not a cost of zero presented as known
    assert (sonnet.input, sonnet.cost_usd, sonnet.unpriced_calls) == (200, 0.5, 1)
    assert (sonnet.ttft_ms_total, sonnet.ttft_calls) == (30, 1)


def test_summaries_group_by_day_model_or_user_within_the_dates(store: SQLStore) -> None:
    ana = budgeted(store, "ana", 100)
    ended(store, usage("c1", day="2026-01-09"))
    ended(store, usage("c2", day="2026-01-10", model="gpt"))
    ended(store, usage("c3", ana, day="2026-01-10"))
    ended(store, usage("c4", ana, day="2026-02-01"))
    by_day = store.usage_summary("day", "2026-01-01", "2026-01-31")
    assert [(r.day, r.calls, r.cost_usd) for r in by_day] == [
        ("2026-01-09", 1, 0.5),
        ("2026-01-10", 2, 1.0),
    ]
    by_model = store.usage_summary("model", "2026-01-01", "2026-12-31")
    assert [(r.model, r.calls) for r in by_model] == [("gpt", 1), ("sonnet", 3)]
    by_user = store.usage_summary("user", "2026-01-01", "2026-12-31")
    assert [(r.user_id, r.calls, r.input) for r in by_user] == [(1, 2, 200), (ana, 2, 200)]
    only_ana = store.usage_summary("day", "2026-01-01", "2026-12-31", ana)
    assert [r.day for r in only_ana] == ["2026-01-10", "2026-02-01"]
    assert store.spent(ana, "2026-02-01").cost_usd == 0.5


def test_rows_page_through_in_key_order(store: SQLStore) -> None:
    for n in range(7):
        ended(store, usage(f"c{n}", day=f"2026-01-{10 + n % 3:02d}", model=f"m{n}"))
    seen: list[tuple[str, int, str]] = []
    after = None
    while True:
        page = store.usage_rows("2026-01-01", "2026-01-31", after=after, limit=3)
        if not page:
            break
        seen += [(r.day, r.user_id, r.model) for r in page]
        after = seen[-1]
    assert seen == sorted(seen) and len(seen) == 7


def test_a_budget_admits_calls_while_spend_and_holds_are_below_it(store: SQLStore) -> None:
    ana = budgeted(store, "ana", 1.0)
    expires = JAN_10 + HOUR_MS
    first = store.reserve_budget("c1", ana, 0.6, JAN_10, expires)
    assert first.admitted and (first.budget_usd, first.period, first.since_day) == (
        1.0,
        "month",
        "2026-01-01",
    )
    assert (first.spent_usd, first.held_usd) == (0.0, 0.0)
    # another call in flight: 0.6 held is below 1.0, so it goes too
    second = store.reserve_budget("c2", ana, 0.6, JAN_10, expires)
    assert second.admitted and second.held_usd == 0.6
    # now 1.2 is held: a third waits for nothing, it is refused
    third = store.reserve_budget("c3", ana, 0.6, JAN_10, expires)
    assert not third.admitted and third.held_usd == 1.2
    # a call that holds one already (a retry, a resume) keeps it
    assert store.reserve_budget("c1", ana, 0.6, JAN_10, expires).admitted
    # c1 ends having cost 0.2: settled, its hold gone
    ended(store, usage("c1", ana, cost_usd=0.2))
    check = store.reserve_budget("c4", ana, 0.6, JAN_10, expires)
    assert check.admitted and (check.spent_usd, check.held_usd) == (0.2, 0.6)


def test_spend_at_the_budget_refuses_and_a_new_period_admits_again(store: SQLStore) -> None:
    ana = budgeted(store, "ana", 1.0, "day")
    ended(store, usage("c1", ana, cost_usd=1.0))
    refused = store.reserve_budget("c2", ana, 0.1, JAN_10 + HOUR_MS, JAN_10 + 2 * HOUR_MS)
    assert not refused.admitted and refused.spent_usd == 1.0
    assert refused.since_day == "2026-01-10"
    tomorrow = JAN_10 + DAY_MS
    assert store.reserve_budget("c2", ana, 0.1, tomorrow, tomorrow + HOUR_MS).admitted


def test_an_expired_hold_stops_counting(store: SQLStore, backend: Backend) -> None:
    ana = budgeted(store, "ana", 1.0)
    assert store.reserve_budget("dead", ana, 5.0, JAN_10, JAN_10 + HOUR_MS).admitted
    assert not store.reserve_budget("c2", ana, 0.1, JAN_10 + 1, JAN_10 + HOUR_MS).admitted
    later = JAN_10 + HOUR_MS + 1
    assert store.reserve_budget("c2", ana, 0.1, later, later + HOUR_MS).admitted
    assert backend.rows("SELECT call_id FROM budget_reservations") == [("c2",)]


def test_a_user_without_a_budget_holds_nothing(store: SQLStore, backend: Backend) -> None:
    check = store.reserve_budget("c1", 1, 5.0, JAN_10, JAN_10 + HOUR_MS)
    assert check.admitted and check.budget_usd is None
    assert backend.rows("SELECT count(*) FROM budget_reservations") == [(0,)]


def test_a_released_or_failed_call_holds_nothing(store: SQLStore, backend: Backend) -> None:
    ana = budgeted(store, "ana", 10.0)
    for call_id in ("c1", "c2"):
        assert store.reserve_budget(call_id, ana, 1.0, JAN_10, JAN_10 + HOUR_MS).admitted
    store.release_budget("c1")
    saved_call(store, "c2")
    store.save_llm_call(CallStatusUpdate("c2", CallStatus.FAILED, 1, error="boom"))
    assert backend.rows("SELECT count(*) FROM budget_reservations") == [(0,)]
    assert store.usage_rows("2026-01-01", "2026-12-31") == []


def test_a_budget_check_waits_for_one_in_progress_and_sees_what_it_held(
    store: SQLStore, backend: Backend
) -> None:
    """Another process checks the same user's budget: it holds the user's
    row (PostgreSQL) or the write lock (SQLite) and adds its reservation;
    this check waits for it, then counts it. Without the wait both would
    read the same balance and both be admitted."""
    ana = budgeted(store, "ana", 1.0)
    hold = (
        "INSERT INTO budget_reservations (call_id, user_id, amount_usd, expires_at_ms)"
        f" VALUES ('other', {ana}, 1.0, {JAN_10 + HOUR_MS})"
    )
    other: Any
    if isinstance(backend.database, Path):
        other = sqlite3.connect(backend.database, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
    else:
        import psycopg  # noqa: PLC0415

        other = psycopg.connect(backend.database.url)
        other.execute(f"SELECT 1 FROM users WHERE user_id = {ana} FOR UPDATE")
    with ThreadPoolExecutor(1) as pool:
        checking = pool.submit(store.reserve_budget, "mine", ana, 0.5, JAN_10, JAN_10 + HOUR_MS)
        time.sleep(0.3)
        assert not checking.done()  # waiting for the other check
        other.execute(hold)
        other.execute("COMMIT") if isinstance(other, sqlite3.Connection) else other.commit()
        check = checking.result(timeout=10)
    other.close()
    assert not check.admitted and check.held_usd == pytest.approx(1.0)
