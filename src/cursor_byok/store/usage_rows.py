"""Usage and budgets in the SQL both databases take (a part of `SQLStore`).

A call's usage is added to its (user, day, model) row by the transaction
that commits the call's end, and only if its `llm_calls` row has no
`usage_day` yet, so a call is counted once whatever is sent twice. The same
transaction drops the call's budget reservation: the estimate is settled to
what the call cost.

A budget check locks the user's row (`FOR UPDATE` on PostgreSQL; SQLite has
one writer), reads what the user spent this period and what other calls
hold in one statement (one snapshot: a call settling meanwhile is seen
either held or spent, never neither), and holds the call's estimate only if
the two are below the budget. So with any number of processes a budget is
overrun by at most the cost of the last call it admitted, as long as what a
call holds is at least what it costs (`runtime.accounting` holds an upper
bound). A reservation a dead process left expires.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any, ClassVar, cast

from cursor_byok.store.executor import Executor
from cursor_byok.store.periods import DEFAULT_PERIOD, period_start
from cursor_byok.store.usage import BudgetCheck, BudgetPeriod, CallUsage, UsageGroup, UsageRow

TERMINAL = ("committed", "failed", "canceled")

_SUMS = (
    "sum(calls), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),"
    " sum(cache_write_tokens), sum(reasoning_tokens), sum(cost_usd), sum(unpriced_calls),"
    " sum(ttft_ms_total), sum(ttft_calls), sum(duration_ms_total)"
)
_COLUMNS = (
    "calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,"
    " reasoning_tokens, cost_usd, unpriced_calls, ttft_ms_total, ttft_calls, duration_ms_total"
)
_ADD_USAGE = (
    f"INSERT INTO usage_daily (user_id, day, model, {_COLUMNS})"
    " VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (user_id, day, model) DO UPDATE SET"
    + ",".join(
        f" {name} = usage_daily.{name} + excluded.{name}"
        for name in (column.strip() for column in _COLUMNS.split(","))
    )
)
# Spent this period and held by other calls, read in one statement.
_BALANCE = (
    "SELECT (SELECT coalesce(sum(cost_usd), 0) FROM usage_daily WHERE user_id = ? AND day >= ?),"
    " (SELECT coalesce(sum(amount_usd), 0) FROM budget_reservations"
    "  WHERE user_id = ? AND call_id <> ? AND expires_at_ms >= ?),"
    " (SELECT count(*) FROM budget_reservations WHERE call_id = ?)"
)
_GROUP_KEYS: dict[UsageGroup, str] = {
    "day": "day, 0, ''",
    "model": "'', 0, model",
    "user": "'', user_id, ''",
}
_GROUP_BY: dict[UsageGroup, str] = {"day": "day", "model": "model", "user": "user_id"}


def usage_params(usage: CallUsage) -> tuple[object, ...]:
    """`_ADD_USAGE`'s parameters, in its order."""
    priced = usage.cost_usd is not None
    return (
        usage.user_id,
        usage.day,
        usage.model,
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.reasoning,
        usage.cost_usd if priced else 0.0,
        0 if priced else 1,
        usage.ttft_ms or 0,
        0 if usage.ttft_ms is None else 1,
        usage.duration_ms,
    )


def _row(row: Any) -> UsageRow:
    """A row of a key (day, user, model) and the `_COLUMNS` (sums are NULL
    over no rows, and PostgreSQL's are numeric)."""
    counts = [int(value or 0) for value in row[3:14]]
    return UsageRow(
        str(row[0]),
        int(row[1]),
        str(row[2]),
        calls=counts[0],
        input=counts[1],
        output=counts[2],
        cache_read=counts[3],
        cache_write=counts[4],
        reasoning=counts[5],
        cost_usd=float(row[9] or 0.0),
        unpriced_calls=counts[7],
        ttft_ms_total=counts[8],
        ttft_calls=counts[9],
        duration_ms_total=counts[10],
    )


class UsageRows(ABC):
    """`store.usage.Accounts` over the shared SQL."""

    lock_row: ClassVar[str] = ""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    @abstractmethod
    def _transaction(self, flush: bool = True) -> AbstractContextManager[Executor]: ...

    @staticmethod
    def _settle(db: Executor, call_id: str, status: str, usage: CallUsage | None) -> None:
        """With a call's end (inside its commit): record its usage once, and
        drop what its budget check held."""
        if status in TERMINAL:
            db.execute("DELETE FROM budget_reservations WHERE call_id = ?", (call_id,))
        if usage is None:
            return
        first = db.execute(
            "UPDATE llm_calls SET usage_day = ? WHERE call_id = ? AND usage_day IS NULL",
            (usage.day, call_id),
        )
        if first.rowcount == 1:
            db.execute(_ADD_USAGE, usage_params(usage))

    def reserve_budget(
        self, call_id: str, user_id: int, amount_usd: float, now_ms: int, expires_at_ms: int
    ) -> BudgetCheck:
        # Not flushed: a reservation a crash loses only frees its budget sooner.
        with self._transaction(flush=False) as db:
            user = db.execute(
                "SELECT budget_usd, budget_period FROM users WHERE user_id = ?" + self.lock_row,
                (user_id,),
            ).fetchone()
            if user is None or user[0] is None:
                return BudgetCheck(admitted=True)
            budget = float(user[0])
            period = cast(BudgetPeriod, user[1] or DEFAULT_PERIOD)
            since = period_start(period, now_ms).isoformat()
            db.execute(
                "DELETE FROM budget_reservations WHERE user_id = ? AND expires_at_ms < ?",
                (user_id, now_ms),
            )
            found = db.execute(
                _BALANCE, (user_id, since, user_id, call_id, now_ms, call_id)
            ).fetchone()
            spent, held, mine = float(found[0]), float(found[1]), int(found[2])
            check = BudgetCheck(True, budget, period, since, spent, held)
            if mine:
                db.execute(
                    "UPDATE budget_reservations SET expires_at_ms = ? WHERE call_id = ?",
                    (expires_at_ms, call_id),
                )
                return check
            if spent + held >= budget:
                return BudgetCheck(False, budget, period, since, spent, held)
            db.execute(
                "INSERT INTO budget_reservations (call_id, user_id, amount_usd, expires_at_ms)"
                " VALUES (?, ?, ?, ?)",
                (call_id, user_id, amount_usd, expires_at_ms),
            )
            return check

    def release_budget(self, call_id: str) -> None:
        with self._transaction(flush=False) as db:
            db.execute("DELETE FROM budget_reservations WHERE call_id = ?", (call_id,))

    def renew_budget(self, call_id: str, expires_at_ms: int) -> None:
        with self._transaction(flush=False) as db:
            db.execute(
                "UPDATE budget_reservations SET expires_at_ms = ? WHERE call_id = ?",
                (expires_at_ms, call_id),
            )

    def spent(self, user_id: int, since_day: str) -> UsageRow:
        with self._read() as db:
            row = db.execute(
                f"SELECT '', ?, '', {_SUMS} FROM usage_daily WHERE user_id = ? AND day >= ?",
                (user_id, user_id, since_day),
            ).fetchone()
        return _row(row)

    def usage_summary(
        self, by: UsageGroup, since_day: str, until_day: str, user_id: int | None = None
    ) -> list[UsageRow]:
        mine = "" if user_id is None else " AND user_id = ?"
        group = _GROUP_BY[by]
        with self._read() as db:
            rows = db.execute(
                f"SELECT {_GROUP_KEYS[by]}, {_SUMS} FROM usage_daily"
                f" WHERE day >= ? AND day <= ?{mine} GROUP BY {group} ORDER BY {group}",
                (since_day, until_day) if user_id is None else (since_day, until_day, user_id),
            ).fetchall()
        return [_row(row) for row in rows]

    def usage_rows(
        self,
        since_day: str,
        until_day: str,
        user_id: int | None = None,
        after: tuple[str, int, str] | None = None,
        limit: int = 1000,
    ) -> list[UsageRow]:
        # A page after `after` starts the index range at its day: with the
        # row comparison alone SQLite walks from `since_day` on.
        start = since_day if after is None else max(since_day, after[0])
        where = ["day >= ?", "day <= ?"]
        params: list[object] = [start, until_day]
        if user_id is not None:
            where.append("user_id = ?")
            params.append(user_id)
        if after is not None:
            where.append("(day, user_id, model) > (?, ?, ?)")
            params.extend(after)
        order = "day, user_id, model" if user_id is None else "user_id, day, model"
        with self._read() as db:
            rows = db.execute(
                f"SELECT day, user_id, model, {_COLUMNS} FROM usage_daily"
                f" WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [_row(row) for row in rows]
