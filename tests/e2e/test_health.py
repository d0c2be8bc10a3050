"""`/healthz` over a real socket: the database is asked at most once a
second however often it is hit, and never by two threads at once."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx2
import pytest

from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http import app
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.health import HEALTH_CACHE_S
from tests.fakes import ScriptedLLM


class CountedStore(SQLiteStore):
    """A real SQLite store that counts its pings and can hold them."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, synchronous="NORMAL")
        self.pings = 0
        self.hold = threading.Event()
        self.hold.set()

    def ping(self) -> None:
        self.pings += 1
        self.hold.wait(30)
        super().ping()


async def test_healthz_asks_the_database_once_a_second(tmp_path: Path) -> None:
    store = CountedStore(tmp_path / "db.sqlite3")
    try:
        async with (
            serving(build_service(store, ScriptedLLM([]))) as url,
            httpx2.AsyncClient(base_url=url) as http,
        ):
            replies = await asyncio.gather(*(http.get("/healthz") for _ in range(30)))
            replies += [await http.get("/healthz") for _ in range(10)]
            assert store.pings == 1
            await asyncio.sleep(HEALTH_CACHE_S + 0.1)
            replies.append(await http.get("/healthz"))
    finally:
        store.close()
    assert [r.status_code for r in replies] == [200] * 41
    assert store.pings == 2


async def test_a_hung_database_holds_one_thread_not_one_per_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "HEALTH_TIMEOUT_S", 0.2)
    store = CountedStore(tmp_path / "db.sqlite3")
    store.hold.clear()
    try:
        async with (
            serving(build_service(store, ScriptedLLM([]))) as url,
            httpx2.AsyncClient(base_url=url) as http,
        ):
            statuses = []
            for _ in range(3):
                statuses.append((await http.get("/healthz")).status_code)
                await asyncio.sleep(HEALTH_CACHE_S + 0.1)
            assert store.pings == 1  # the first ping still hangs; none joined it
            store.hold.set()
            await asyncio.sleep(0.1)  # the hung ping ends; the next check is a new one
            statuses.append((await http.get("/healthz")).status_code)
    finally:
        store.hold.set()
        store.close()
    assert statuses == [503, 503, 503, 200]
    assert store.pings == 2
