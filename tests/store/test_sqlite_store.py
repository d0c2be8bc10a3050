"""What only the SQLite backend has: a private file, WAL, `user_version`."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from cursor_byok.store.migrations import MIGRATIONS, SchemaTooNew
from cursor_byok.store.sqlite import SQLiteStore


def test_the_file_is_private_and_migrated_once(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "db.sqlite3"
    SQLiteStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    SQLiteStore(path).close()  # reopening applies nothing twice


def test_a_newer_schema_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.commit()
    db.close()
    with pytest.raises(SchemaTooNew, match="upgrade cursor-byok"):
        SQLiteStore(path)
