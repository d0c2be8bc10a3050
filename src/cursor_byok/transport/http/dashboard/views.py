"""What the overview and users pages show, read from the store. These run
in a worker thread (the store's calls block) and return HTML."""

from __future__ import annotations

from datetime import date, timedelta
from html import escape

from cursor_byok.store.base import Store, User
from cursor_byok.store.periods import DEFAULT_PERIOD, day_of, period_start
from cursor_byok.store.usage import UsageRow
from cursor_byok.transport.http.dashboard.chart import bars, columns
from cursor_byok.transport.http.dashboard.layout import (
    cache_share,
    dollars,
    hidden_csrf,
    total,
    usage_table,
    when,
)

DAYS = 30
"""The overview's window, in UTC days, today included."""


def overview(store: Store, viewer: User, in_flight: int, now_ms: int) -> str:
    """Spend and tokens over the last `DAYS` days: per day, per model, and
    for the administrator per user; cache hits; turns streaming now."""
    until = date.fromisoformat(day_of(now_ms))
    since = until - timedelta(days=DAYS - 1)
    who = None if viewer.is_admin else viewer.id
    span = (since.isoformat(), until.isoformat())
    daily = {row.day: row for row in store.usage_summary("day", *span, user_id=who)}
    by_model = store.usage_summary("model", *span, user_id=who)
    days = [(since + timedelta(days=n)).isoformat() for n in range(DAYS)]
    spent = total(list(daily.values()))
    parts = [
        f"<p>{escape(span[0])} to {escape(span[1])} (UTC){'' if who is None else ', yours'}: "
        f"<strong>{dollars(spent)}</strong> over {spent.calls:,} model calls, "
        f"{spent.input + spent.cache_read + spent.cache_write:,} prompt tokens and "
        f"{spent.output:,} output tokens; cache hits <strong>{cache_share(spent)}</strong> "
        "(cache reads of all prompt tokens).</p>",
        f"<p>Turns streaming on this process now: <strong>{in_flight}</strong>.</p>",
        "<h2>Spend per day</h2>",
        columns("Spend per day (US dollars)", [(d, _cost(daily.get(d))) for d in days], _usd),
        "<h2>Tokens per day</h2>",
        columns("Tokens per day", [(d, _tokens(daily.get(d))) for d in days], _count),
        "<h2>Per model</h2>",
        bars("Spend per model (US dollars)", [(r.model, r.cost_usd) for r in by_model], _usd),
        bars("Tokens per model", [(r.model, _tokens(r)) for r in by_model], _count),
        usage_table("Model", by_model, [r.model for r in by_model]),
    ]
    if who is None:
        names = {user.id: user.name for user in store.users()}
        by_user = store.usage_summary("user", *span)
        labels = [names.get(r.user_id, f"user {r.user_id}") for r in by_user]
        parts += [
            "<h2>Per user</h2>",
            bars(
                "Spend per user (US dollars)",
                [(n, r.cost_usd) for n, r in zip(labels, by_user, strict=True)],
                _usd,
            ),
            usage_table("User", by_user, labels),
        ]
    return "".join(parts)


def users_page(store: Store, now_ms: int, csrf: str) -> str:
    """Every user with their spend this period and budget, and the buttons
    that revoke a token or hand out a new one."""
    rows = []
    for user in store.users():
        since = period_start(user.budget_period or DEFAULT_PERIOD, now_ms).isoformat()
        spent = dollars(store.spent(user.id, since))
        budget = (
            "-" if user.budget_usd is None else f"${user.budget_usd:,.2f} a {user.budget_period}"
        )
        status = "administrator" if user.is_admin else ("revoked" if user.revoked else "active")
        actions = (
            ""
            if user.is_admin
            else (
                _button("/ui/users/rotate", user.name, "Rotate token", csrf)
                + ("" if user.revoked else _button("/ui/users/revoke", user.name, "Revoke", csrf))
            )
        )
        rows.append(
            f"<tr><td>{escape(user.name)}</td><td>{when(user.created_at_ms)}</td>"
            f"<td>{when(user.last_used_at_ms)}</td><td class=n>{spent}</td>"
            f"<td class=n>{escape(budget)}</td><td>{status}</td><td>{actions}</td></tr>"
        )
    return (
        "<p>Spend is this period's: the user's budget period, else this calendar month "
        "(UTC). Times are UTC.</p><table><tr><th>Name</th><th>Created</th><th>Last used</th>"
        "<th class=n>Spend this period</th><th class=n>Budget</th><th>Status</th><th></th></tr>"
        + "".join(rows)
        + "</table>"
    )


def _button(action: str, name: str, label: str, csrf: str) -> str:
    return (
        f'<form method="post" action="{action}" style="display:inline">{hidden_csrf(csrf)}'
        f'<input type="hidden" name="name" value="{escape(name)}">'
        f'<button type="submit">{label}</button></form>'
    )


def _cost(row: UsageRow | None) -> float:
    return 0.0 if row is None else row.cost_usd


def _tokens(row: UsageRow | None) -> float:
    if row is None:
        return 0.0
    return float(row.input + row.cache_read + row.cache_write + row.output)


def _usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:,.4f}"


def _count(value: float) -> str:
    return f"{value:,.0f}"
