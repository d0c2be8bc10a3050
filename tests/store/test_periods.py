"""Budget periods in UTC: where one starts and when it resets."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from cursor_byok.store.periods import day_of, period_end, period_start
from cursor_byok.store.usage import BudgetPeriod


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


@pytest.mark.parametrize(
    ("period", "now", "start", "reset"),
    [
        ("day", "2026-12-31T23:59:59", date(2026, 12, 31), "2027-01-01T00:00:00"),
        ("day", "2027-01-01T00:00:00", date(2027, 1, 1), "2027-01-02T00:00:00"),
        # ISO weeks start on Monday; 2026-12-06 is a Sunday
        ("week", "2026-12-06T12:00:00", date(2026, 11, 30), "2026-12-07T00:00:00"),
        ("week", "2026-12-07T00:00:00", date(2026, 12, 7), "2026-12-14T00:00:00"),
        ("month", "2026-12-06T12:00:00", date(2026, 12, 1), "2027-01-01T00:00:00"),
        ("month", "2028-02-29T23:00:00", date(2028, 2, 1), "2028-03-01T00:00:00"),
        ("month", "2026-01-31T08:00:00", date(2026, 1, 1), "2026-02-01T00:00:00"),
    ],
)
def test_a_period_starts_and_resets_at_utc_midnight(
    period: BudgetPeriod, now: str, start: date, reset: str
) -> None:
    assert period_start(period, ms(now)) == start
    assert period_end(period, ms(now)) == datetime.fromisoformat(reset).replace(tzinfo=UTC)


def test_a_day_is_named_by_its_utc_date() -> None:
    assert day_of(ms("2026-12-06T23:59:59")) == "2026-12-06"
    assert day_of(ms("2026-12-07T00:00:00")) == "2026-12-07"
