"""What usage and budgets cost, on a database of 100,000 conversations' model
calls and a year of usage (100 users x 5 models x 365 days = 182,500 rows),
on SQLite and PostgreSQL (a throwaway server, or --postgresql URL; left out
without PostgreSQL binaries). Prints medians of rounds:

  end_us[B] = X / Y           a call's end written without usage, then with it
                              (the usage row added once, the reservation dropped)
  reserve_us[B] = X           a budget check and hold (the user locked, a month spent read)
  spent_us[B] = X             a user's spend this month (what `users list` reads per user)
  summary_ms[B][G] = X        `cursor-byok usage --by G` over the whole year, every user
  summary_ms[B][G,user] = X   the same for one user
  page_ms[B][first] = X       the first 1,000 rows of the year in (day, user, model) order
  page_ms[B][deep] = X        1,000 rows after 180,000: keyset paging costs what the first does
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from cursor_byok.store.base import CallStatus, CallStatusUpdate
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.scratch_postgres import PostgresServer, find_binaries
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.store.usage import CallUsage, UsageGroup

CONVERSATIONS = 100_000
USERS = 100
MODELS = ("sonnet", "opus", "gpt", "gemini", "deepseek")
FIRST_DAY = date(2025, 12, 1)
DAYS = 365
ROUNDS = 5
REPEATS = 200
NOW_MS = 1_795_132_800_000
"""2026-11-19 00:00 UTC: within the year of usage."""


def fill(store: SQLStore) -> list[int]:
    """The calls (planned, not ended), the users (each with a budget) and a
    year of their usage; returns the user ids."""
    users = []
    for n in range(USERS):
        made = new_token()
        users.append(store.add_user(f"u{n}", made.token_id, made.token_hash, None, 1e9, "month").id)
    calls = [
        (f"conv-{n}:call:1", f"conv-{n}", "sonnet", b"", "r", "h", 1, None, "planned", 1, 0, 0)
        for n in range(CONVERSATIONS)
    ]
    days = [(FIRST_DAY + timedelta(days=d)).isoformat() for d in range(DAYS)]
    rows = [
        (u, day, m, 3, 9000, 700, 40000, 2000, 100, 0.25, 0, 1500, 3, 9000)
        for u in users
        for day in days
        for m in MODELS
    ]
    with store._transaction() as db:
        db.executemany(
            "INSERT INTO llm_calls (call_id, conversation_id, model, request_json, request_hash,"
            " messages_hash, message_count, last_message_hash, status, attempts,"
            " created_at_ms, updated_at_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            calls,
        )
        db.executemany(
            "INSERT INTO usage_daily (user_id, day, model, calls, input_tokens, output_tokens,"
            " cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, unpriced_calls,"
            " ttft_ms_total, ttft_calls, duration_ms_total)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    with store._transaction() as db:  # as autovacuum (PostgreSQL) would have
        db.execute("ANALYZE")
    return users


def timed_us(action: Callable[[int], object], repeats: int = REPEATS) -> float:
    began = time.perf_counter()
    for n in range(repeats):
        action(n)
    return (time.perf_counter() - began) / repeats * 1e6


def measure(name: str, store: SQLStore) -> None:
    users = fill(store)
    figures: dict[str, list[float]] = {}
    ended = iter(range(CONVERSATIONS))

    def end(with_usage: bool) -> Callable[[int], object]:
        def write(_n: int) -> object:
            call_id = f"conv-{next(ended)}:call:1"
            usage = CallUsage(call_id, users[0], "sonnet", "2026-11-19", 9000, 700, cost_usd=0.2)
            update = CallStatusUpdate(
                call_id, CallStatus.COMMITTED, 1, usage=usage if with_usage else None
            )
            store.save_llm_call(update)
            return None

        return write

    def add(key: str, value: float) -> None:
        figures.setdefault(key, []).append(value)

    since, until = FIRST_DAY.isoformat(), (FIRST_DAY + timedelta(days=DAYS - 1)).isoformat()
    for round_ in range(ROUNDS):
        add("end_plain", timed_us(end(False)))
        add("end_usage", timed_us(end(True)))
        add(
            "reserve_us",
            timed_us(
                lambda n, r=round_: store.reserve_budget(
                    f"r{r}-{n}", users[n % USERS], 0.01, NOW_MS, NOW_MS + 1
                )
            ),
        )
        add("spent_us", timed_us(lambda n: store.spent(users[n % USERS], "2026-11-01")))
        groups: tuple[UsageGroup, ...] = ("day", "model", "user")
        for group in groups:
            began = time.perf_counter()
            store.usage_summary(group, since, until)
            add(f"summary_ms[{group}]", (time.perf_counter() - began) * 1e3)
            began = time.perf_counter()
            store.usage_summary(group, since, until, users[7])
            add(f"summary_ms[{group},user]", (time.perf_counter() - began) * 1e3)
        began = time.perf_counter()
        first = store.usage_rows(since, until, limit=1000)
        add("page_ms[first]", (time.perf_counter() - began) * 1e3)
        deep_key = ((FIRST_DAY + timedelta(days=DAYS - 7)).isoformat(), users[3], "gpt")
        began = time.perf_counter()
        deep = store.usage_rows(since, until, after=deep_key, limit=1000)
        add("page_ms[deep]", (time.perf_counter() - began) * 1e3)
        assert len(first) == len(deep) == 1000
    medians = {key: statistics.median(values) for key, values in figures.items()}
    print(f"end_us[{name}] = {medians.pop('end_plain'):.0f} / {medians.pop('end_usage'):.0f}")
    for key, value in medians.items():
        prefix, _, rest = key.partition("[")
        label = f"{prefix}[{name}]" + (f"[{rest}" if rest else "")
        print(f"{label} = {value:.1f}" if value < 100 else f"{label} = {value:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgresql", metavar="URL", help="use this database, not a throwaway")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        stores: dict[str, SQLStore] = {"sqlite": SQLiteStore(Path(folder) / "bench.sqlite3")}
        server = None
        if args.postgresql:
            opened = open_store(PostgresURL(args.postgresql))
            assert isinstance(opened, SQLStore)
            stores["postgresql"] = opened
        elif (binaries := find_binaries()) is not None:
            server = PostgresServer(binaries)
            opened = open_store(server.new_database())
            assert isinstance(opened, SQLStore)
            stores["postgresql"] = opened
        else:
            print("# no PostgreSQL binaries: postgresql left out")
        try:
            for name, store in stores.items():
                measure(name, store)
        finally:
            for store in stores.values():
                store.close()
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
