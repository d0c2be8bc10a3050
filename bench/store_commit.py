"""Store benchmark: does a commit cost the same at 10 and 10,000 messages?

Builds conversations of 10, 1,000 and 10,000 messages in a real SQLite file,
then times commits that append one user message each (with the version check
and hash-chain verification). Each commit carries what the runner writes with
it: the model-call record the transition names (mapped to rows by the
runner's own `store_records`), as a real turn's first commit does. Prints, from one
run:
  commit_ms[N] = X            (median, synchronous=NORMAL and FULL)
  commit_ratio_10000_over_10 = X   (NORMAL; ~1.0 means history size is free)
  loop_plus_commit_ms[10000] = X  (transition + commit, what the runner pays)

With --postgresql URL it also runs the same commits on that database (new
conversations with a random prefix, so it may be used again) and prints
  commit_ms[N] (postgresql, full|normal) = X   (synchronous_commit on|off)
  postgresql_over_sqlite[full|normal] = X      (median commit at 1,000 messages)
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import get_args

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import AssistantMessage, Message, TextContent, UserMessage
from cursor_byok.loop import ConversationState, RuntimeState, Start, Status, transition
from cursor_byok.runtime.records import store_records
from cursor_byok.store.base import Store
from cursor_byok.store.database import Durability, PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.sqlite import SQLiteStore, Synchronous


def user(text: str, timestamp: int = 1) -> UserMessage:
    return UserMessage(text, timestamp)


def assistant(text: str) -> AssistantMessage:
    return AssistantMessage((TextContent(text),), "bench", "bench", "bench-model", timestamp=2)


COMMITS = 50


def history(size: int) -> tuple[Message, ...]:
    pairs = (
        (user(f"question {i} " * 20, i), assistant(f"answer {i} " * 60)) for i in range(size // 2)
    )
    return tuple(message for pair in pairs for message in pair)


def seeded(store: Store, name: str, size: int) -> ConversationState:
    messages = history(size)
    state = ConversationState(name, messages=messages, messages_hash=messages_hash(messages))
    store.commit_input("seed", 0, state, None)
    return state


def timed_commits(store: Store, state: ConversationState, with_loop: bool) -> float:
    """Median ms of a commit (`with_loop`: of the transition, the records and
    the commit together, what the runner pays per input)."""
    times = []
    version = 1
    for n in range(COMMITS):
        began = time.perf_counter()
        before = replace(state, status=Status.READY)
        step = transition(RuntimeState(before), Start(user(f"n{n}")))
        calls, operations = store_records(before.conversation_id, step.records)
        state = step.state.committed
        if not with_loop:
            began = time.perf_counter()
        version = store.commit_input(f"in-{n}", version, state, None, calls, operations)
        times.append(time.perf_counter() - began)
    assert calls, "a Start commits a model-call record"
    return statistics.median(times) * 1000


def postgresql(url: str, sizes: tuple[int, ...]) -> dict[tuple[Durability, int], float]:
    run = secrets.token_hex(4)
    results = {}
    for durability in get_args(Durability):
        store = open_store(PostgresURL(url), durability)
        for size in sizes:
            state = seeded(store, f"bench-{run}-{durability}-{size}", size)
            results[(durability, size)] = timed_commits(store, state, with_loop=False)
        store.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgresql", metavar="URL", help="also measure this PostgreSQL database")
    args = parser.parse_args()
    sizes = (10, 1_000, 10_000)
    results: dict[tuple[Synchronous, int], float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("NORMAL", "FULL"):
            store = SQLiteStore(Path(folder) / f"{mode}.sqlite3", synchronous=mode)
            for size in sizes:
                state = seeded(store, f"{mode}-{size}", size)
                results[(mode, size)] = timed_commits(store, state, with_loop=False)
            store.close()
        store = SQLiteStore(Path(folder) / "loop.sqlite3", synchronous="NORMAL")
        loop_ms = timed_commits(store, seeded(store, "loop", 10_000), with_loop=True)
        store.close()
    for mode in ("NORMAL", "FULL"):
        for size in sizes:
            print(f"commit_ms[{size}] ({mode}) = {results[(mode, size)]:.3f}")
    ratio = results[("NORMAL", 10_000)] / results[("NORMAL", 10)]
    print(f"commit_ratio_10000_over_10 = {ratio:.2f}")
    print(f"loop_plus_commit_ms[10000] = {loop_ms:.3f}")
    if args.postgresql:
        on_postgresql = postgresql(args.postgresql, sizes)
        for durability in get_args(Durability):
            for size in sizes:
                figure = on_postgresql[(durability, size)]
                print(f"commit_ms[{size}] (postgresql, {durability}) = {figure:.3f}")
        for durability, mode in (("full", "FULL"), ("normal", "NORMAL")):
            ratio = on_postgresql[(durability, 1_000)] / results[(mode, 1_000)]
            print(f"postgresql_over_sqlite[{durability}] = {ratio:.2f}")


if __name__ == "__main__":
    main()
