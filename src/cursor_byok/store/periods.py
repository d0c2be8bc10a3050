"""Budget periods, in UTC: a day from midnight, a week from Monday's
midnight (ISO weeks), a month from the 1st's midnight. Usage is kept per UTC
day, so a period is a range of whole days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from cursor_byok.store.usage import BudgetPeriod

DEFAULT_PERIOD: BudgetPeriod = "month"


def day_of(ms: int) -> str:
    """The UTC date of a time in milliseconds, as usage rows name days."""
    return datetime.fromtimestamp(ms / 1000, UTC).date().isoformat()


def period_start(period: BudgetPeriod, ms: int) -> date:
    """The first day of the period that holds `ms`."""
    today = datetime.fromtimestamp(ms / 1000, UTC).date()
    if period == "day":
        return today
    if period == "week":
        return today - timedelta(days=today.weekday())
    return today.replace(day=1)


def period_end(period: BudgetPeriod, ms: int) -> datetime:
    """When the period that holds `ms` ends and the next starts: the reset."""
    start = period_start(period, ms)
    if period == "day":
        following = start + timedelta(days=1)
    elif period == "week":
        following = start + timedelta(days=7)
    else:
        following = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
    return datetime(following.year, following.month, following.day, tzinfo=UTC)
