"""What a user's token costs a request (`transport/http/callers.py`).

Every request a user's token makes reads the token's row (one indexed read:
so a revoked or rotated token stops at its next request on every process);
its scrypt check runs once and is remembered for a minute. Prints, medians
of alternating rounds:
  admin_us = X                  the administrator's token (a constant-time compare)
  user_us[sqlite] = X           a user's remembered token: the row read, on SQLite
  user_us[postgresql] = X       the same on PostgreSQL (a throwaway server of its own,
                                or --postgresql URL; left out without PostgreSQL)
  row_read_us[sqlite] = X       the row read alone, on the caller's thread (the rest of
                                user_us is the hop to a worker thread and back)
  first_check_ms = X            a token not remembered: the row read and the scrypt check
  scrypt_share = X              first_check_ms over user_us[sqlite]: what remembering saves
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from cursor_byok.store.base import Store
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.scratch_postgres import PostgresServer, find_binaries
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.transport.http.callers import Authenticator

ROUNDS = 7
REQUESTS = 400
FIRST_CHECKS = 5
ADMIN = "an-administrators-token-of-some-length"


def add_user(store: Store, name: str) -> str:
    made = new_token()
    store.add_user(name, made.token_id, made.token_hash)
    return made.token


async def per_request_us(authenticator: Authenticator, token: str) -> float:
    headers = {"authorization": f"Bearer {token}"}
    await authenticator.caller(headers)  # remembered from here on
    began = time.perf_counter()
    for _ in range(REQUESTS):
        await authenticator.caller(headers)
    return (time.perf_counter() - began) / REQUESTS * 1e6


def row_read_us(store: Store) -> float:
    token_id = "0123456789abcdef"
    began = time.perf_counter()
    for _ in range(REQUESTS):
        store.token_holder(token_id)
    return (time.perf_counter() - began) / REQUESTS * 1e6


async def first_check_ms(store: Store) -> float:
    times = []
    for n in range(FIRST_CHECKS):
        token = add_user(store, f"first-{time.monotonic_ns()}-{n}")
        authenticator = Authenticator(ADMIN, store)
        began = time.perf_counter()
        await authenticator.caller({"authorization": f"Bearer {token}"})
        times.append((time.perf_counter() - began) * 1e3)
    return statistics.median(times)


async def measure(stores: dict[str, Store]) -> None:
    tokens = {name: add_user(store, "bench") for name, store in stores.items()}
    authenticators = {name: Authenticator(ADMIN, store) for name, store in stores.items()}
    admin = Authenticator(ADMIN, stores["sqlite"])
    figures: dict[str, list[float]] = {"admin_us": []}
    for _ in range(ROUNDS):
        figures["admin_us"].append(await per_request_us(admin, ADMIN))
        for name in stores:
            us = await per_request_us(authenticators[name], tokens[name])
            figures.setdefault(f"user_us[{name}]", []).append(us)
        figures.setdefault("row_read_us[sqlite]", []).append(row_read_us(stores["sqlite"]))
    medians = {name: statistics.median(values) for name, values in figures.items()}
    for name, value in medians.items():
        print(f"{name} = {value:.1f}")
    first = await first_check_ms(stores["sqlite"])
    print(f"first_check_ms = {first:.1f}")
    print(f"scrypt_share = {first * 1e3 / medians['user_us[sqlite]']:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgresql", metavar="URL", help="use this database, not a throwaway")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        stores: dict[str, Store] = {"sqlite": SQLiteStore(Path(folder) / "bench.sqlite3")}
        server = None
        if args.postgresql:
            stores["postgresql"] = open_store(PostgresURL(args.postgresql))
        elif (binaries := find_binaries()) is not None:
            server = PostgresServer(binaries)
            stores["postgresql"] = open_store(server.new_database())
        else:
            print("# no PostgreSQL binaries: user_us[postgresql] left out")
        try:
            asyncio.run(measure(stores))
        finally:
            for store in stores.values():
                store.close()
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
