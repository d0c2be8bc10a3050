"""Fixtures for the store suite: every backend-neutral test runs on SQLite and
on a real PostgreSQL server started once per session.

The server itself is `postgres_server` in tests/conftest.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.store.database import PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.store.sql_store import SQLStore

BACKENDS = ("sqlite", "postgresql")


@dataclass(frozen=True)
class Backend:
    """Where one test's store lives, and a way to look at its rows directly."""

    name: str
    database: Path | PostgresURL

    def open(self) -> SQLStore:
        store = open_store(self.database)
        assert isinstance(store, SQLStore)
        return store

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Run one statement outside the store, committed; its rows if any."""
        if isinstance(self.database, Path):
            with sqlite3.connect(self.database) as db:
                return db.execute(sql).fetchall()
        import psycopg  # noqa: PLC0415

        with psycopg.connect(self.database.url) as conn:
            cursor = conn.execute(sql)
            return cursor.fetchall() if cursor.description else []


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", tmp_path / "state.sqlite3")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return Backend("postgresql", server.new_database())


@pytest.fixture
def store(backend: Backend) -> Iterator[SQLStore]:
    opened = backend.open()
    try:
        yield opened
    finally:
        opened.close()
