"""`cursor-byok usage`: what the model calls used and cost, per day, model
or user (UTC days), read from the database every server process writes it
to. A model without a price shows its tokens; its cost is unknown, and is
neither counted as zero nor added to the dollars shown."""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from cursor_byok.cli.base import EXIT_OK, EXIT_USAGE, fail
from cursor_byok.cli.conversations_command import as_user, open_for_reading
from cursor_byok.cli.terminal import Printer

if TYPE_CHECKING:
    from collections.abc import Callable

    from cursor_byok.config.settings import Config
    from cursor_byok.store.base import Store, User
    from cursor_byok.store.usage import UsageRow

ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)

GROUPS = ("day", "model", "user")
UNPRICED_MARK = "*"


def add_usage_parser(
    commands: argparse._SubParsersAction[ParserT],
    database: Callable[[str], object],
    database_help: str,
) -> None:
    usage = commands.add_parser(
        "usage",
        help="tokens, time and cost of the model calls, per day, model or user",
        description=(
            "What the model calls used: calls, input, output, cache read, cache write and "
            "reasoning tokens, the average time to the first token and duration, and the "
            "cost in US dollars at each model's price (days in UTC). A model without a price "
            "shows its tokens and no cost: give it a price in the configuration."
        ),
        epilog="Example: cursor-byok usage --user ana --since 2026-12-01 --by model --json",
    )
    usage.add_argument("--user", metavar="NAME", help="that user's calls alone")
    usage.add_argument(
        "--since", type=_date, metavar="DATE", help="first day, YYYY-MM-DD (default: the 1st)"
    )
    usage.add_argument("--until", type=_date, metavar="DATE", help="last day (default: today)")
    usage.add_argument("--by", choices=GROUPS, default="day", help="one row per (default: day)")
    usage.add_argument("--json", action="store_true", help="print JSON instead of a table")
    usage.add_argument("--database", type=database, help=database_help)


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None


def run_usage(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    today = datetime.now(UTC).date()
    since: date = args.since or today.replace(day=1)
    until: date = args.until or today
    if since > until:
        return fail(f"usage: --since {since} is after --until {until}", EXIT_USAGE)
    store = open_for_reading(args.database or config.server.database)
    if isinstance(store, int):
        return store
    try:
        user = as_user(store, args.user)
        if isinstance(user, int):
            return user
        user_id = None if user is None else user.id
        rows = store.usage_summary(args.by, since.isoformat(), until.isoformat(), user_id)
        names = {u.id: u.name for u in store.users()}
    finally:
        store.close()
    keys = [_key(args.by, row, names) for row in rows]
    total = _total(rows)
    if args.json:
        document = {
            "since": since.isoformat(),
            "until": until.isoformat(),
            "by": args.by,
            "user": args.user,
            "rows": [{args.by: key, **_fields(row)} for key, row in zip(keys, rows, strict=True)],
            "total": _fields(total),
        }
        print(json.dumps(document, indent=2), file=out)
        return EXIT_OK
    _table(Printer(out), args.by, keys, rows, total, f"{since} to {until} (UTC)")
    return EXIT_OK


def _key(by: str, row: UsageRow, names: dict[int, str]) -> str:
    from cursor_byok.runtime.logsafe import printable  # noqa: PLC0415

    if by == "day":
        return row.day
    if by == "user":
        return names.get(row.user_id, f"user {row.user_id}")
    return printable(row.model)


def _total(rows: list[UsageRow]) -> UsageRow:
    from dataclasses import fields, replace  # noqa: PLC0415

    from cursor_byok.store.usage import UsageRow  # noqa: PLC0415

    summed = UsageRow("", 0, "")
    for row in rows:
        changes = {
            f.name: getattr(summed, f.name) + getattr(row, f.name)
            for f in fields(UsageRow)
            if f.name not in ("day", "user_id", "model")
        }
        summed = replace(summed, **changes)
    return summed


def cost_usd(row: UsageRow) -> float | None:
    """The row's cost; None when none of its calls had a price."""
    return None if row.calls and row.unpriced_calls == row.calls else row.cost_usd


def _fields(row: UsageRow) -> dict[str, Any]:
    return {
        "calls": row.calls,
        "input_tokens": row.input,
        "output_tokens": row.output,
        "cache_read_tokens": row.cache_read,
        "cache_write_tokens": row.cache_write,
        "reasoning_tokens": row.reasoning,
        "avg_ttft_ms": round(row.ttft_ms_total / row.ttft_calls) if row.ttft_calls else None,
        "avg_duration_ms": round(row.duration_ms_total / row.calls) if row.calls else None,
        "cost_usd": None if cost_usd(row) is None else round(row.cost_usd, 6),
        "unpriced_calls": row.unpriced_calls,
    }


def dollars(row: UsageRow, digits: int = 4) -> str:
    """The cost as shown: unknown when no call had a price, marked when some did not."""
    cost = cost_usd(row)
    if cost is None:
        return "unknown"
    return f"${cost:,.{digits}f}" + (UNPRICED_MARK if row.unpriced_calls else "")


def _table(
    printer: Printer, by: str, keys: list[str], rows: list[UsageRow], total: UsageRow, span: str
) -> None:
    width = max([len(by), 5, *(len(key) for key in keys)])
    printer.line(
        f"{by.upper():<{width}} {'CALLS':>7} {'INPUT':>12} {'OUTPUT':>11} {'CACHE READ':>12} "
        f"{'CACHE WRITE':>11} {'REASONING':>10} {'TTFT':>7} {'DURATION':>9} {'COST':>12}"
    )
    for key, row in zip(keys, rows, strict=True):
        printer.line(_line(key, row, width))
    if not rows:
        printer.line(f"No model calls recorded from {span}.")
        return
    printer.line((_line("TOTAL", total, width), "bold"))
    if total.unpriced_calls:
        printer.line(
            (
                f"{UNPRICED_MARK} {total.unpriced_calls} call(s) of models without a price: "
                "their tokens are counted, their cost is unknown and not in the dollars "
                "(give the model a price in the configuration).",
                "yellow",
            )
        )
    printer.line(f"Days {span}; TTFT and duration are averages per call.")


def _line(key: str, row: UsageRow, width: int) -> str:
    ttft = f"{row.ttft_ms_total / row.ttft_calls:,.0f}ms" if row.ttft_calls else "-"
    duration = f"{row.duration_ms_total / row.calls / 1000:,.1f}s" if row.calls else "-"
    return (
        f"{key:<{width}} {row.calls:>7,} {row.input:>12,} {row.output:>11,} "
        f"{row.cache_read:>12,} {row.cache_write:>11,} {row.reasoning:>10,} {ttft:>7} "
        f"{duration:>9} {dollars(row):>12}"
    )


def period_spend(store: Store, user: User, now_s: float | None = None) -> str:
    """A user's spend this period, as `users list` shows it: their budget's
    period, else the calendar month (UTC)."""
    from cursor_byok.store.periods import DEFAULT_PERIOD, period_start  # noqa: PLC0415

    now_ms = int((time.time() if now_s is None else now_s) * 1000)
    since = period_start(user.budget_period or DEFAULT_PERIOD, now_ms).isoformat()
    return dollars(store.spent(user.id, since), digits=2)
