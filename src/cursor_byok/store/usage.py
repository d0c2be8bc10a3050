"""What the store keeps of usage and budgets: each ended model call's usage,
summed per user, model and UTC day (`usage_daily`), and the budget
reservations of calls in flight (`budget_reservations`); `store.usage_rows`
writes and reads them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

BudgetPeriod = Literal["day", "week", "month"]


@dataclass(frozen=True, slots=True)
class CallUsage:
    """What one ended model call used, added to its user's, model's and
    day's row (`usage_daily`) in the transaction that commits its end, once
    per call id. `day` is the UTC date the call ended, `YYYY-MM-DD`;
    `cost_usd` None: the model has no price (the cost is unknown)."""

    call_id: str
    user_id: int
    model: str
    day: str
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cost_usd: float | None = None
    ttft_ms: int | None = None
    duration_ms: int = 0


@dataclass(frozen=True, slots=True)
class UsageRow:
    """Usage summed over one (day, user, model), or over a group of them
    (`Accounts.usage_summary`: the fields it does not group by are empty).
    `cost_usd` sums the priced calls; `unpriced_calls` had no price."""

    day: str
    user_id: int
    model: str
    calls: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    ttft_ms_total: int = 0
    ttft_calls: int = 0
    duration_ms_total: int = 0


UsageGroup = Literal["day", "model", "user"]


@dataclass(frozen=True, slots=True)
class BudgetCheck:
    """A model call's budget check (`Accounts.reserve_budget`). `budget_usd`
    None: the user has none (admitted, nothing held). `spent_usd` is the
    user's recorded cost since `since_day`, `held_usd` what other calls in
    flight have reserved."""

    admitted: bool
    budget_usd: float | None = None
    period: BudgetPeriod | None = None
    since_day: str = ""
    spent_usd: float = 0.0
    held_usd: float = 0.0


class Accounts(Protocol):
    """Usage per user, model and day, and budgets (`store.usage_rows`)."""

    def reserve_budget(
        self, call_id: str, user_id: int, amount_usd: float, now_ms: int, expires_at_ms: int
    ) -> BudgetCheck:
        """Check the user's budget and, if what they spent this period plus
        what other calls in flight hold is below it, hold `amount_usd` for
        the call until `expires_at_ms`, atomically (users serialized, on
        every process). A call that holds a reservation already (a retry, a
        resume) keeps it, renewed, and is admitted."""
        ...

    def release_budget(self, call_id: str) -> None:
        """Drop the call's reservation (the call was never made)."""
        ...

    def renew_budget(self, call_id: str, expires_at_ms: int) -> None:
        """Keep the call's reservation, if it has one, until `expires_at_ms`
        (a call still running); never makes one."""
        ...

    def spent(self, user_id: int, since_day: str) -> UsageRow:
        """The user's usage from `since_day` on, summed."""
        ...

    def usage_summary(
        self, by: UsageGroup, since_day: str, until_day: str, user_id: int | None = None
    ) -> list[UsageRow]:
        """Usage from `since_day` to `until_day` (inclusive), one row per day,
        model or user."""
        ...

    def usage_rows(
        self,
        since_day: str,
        until_day: str,
        user_id: int | None = None,
        after: tuple[str, int, str] | None = None,
        limit: int = 1000,
    ) -> list[UsageRow]:
        """The per-day, per-user, per-model rows in (day, user, model) order,
        a page at a time: `after` is the last key of the page before."""
        ...
