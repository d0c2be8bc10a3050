"""What only the SQLite backend has: a private file, WAL, `user_version`."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from cursor_byok.loop import transition
from cursor_byok.store.base import VersionConflict
from cursor_byok.store.migrations import MIGRATIONS, SchemaTooNew
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import fresh, start
from tests.store.test_staged_batch import synced, tmp_wal
from tests.store.test_store import grown


def test_the_file_is_private_and_migrated_once(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "db.sqlite3"
    SQLiteStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    SQLiteStore(path).close()  # reopening applies nothing twice


def test_the_folder_it_makes_and_the_files_beside_it_are_private_too(tmp_path: Path) -> None:
    """Another local account can list no conversation file and read no
    write-ahead log: SQLite gives those the database file's mode."""
    path = tmp_path / "new" / "db.sqlite3"
    store = SQLiteStore(path)
    try:
        store.commit_input("in-1", 0, transition(fresh(), start("hi")).state.committed, None)
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        for extra in ("-wal", "-shm"):
            assert stat.S_IMODE(Path(f"{path}{extra}").stat().st_mode) == 0o600
    finally:
        store.close()


def test_a_newer_schema_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.commit()
    db.close()
    with pytest.raises(SchemaTooNew, match="upgrade cursor-byok"):
        SQLiteStore(path)


@pytest.mark.skipif(not hasattr(os, "fdatasync"), reason="a platform with fdatasync")
def test_an_unflushed_commit_leaves_the_store_flushing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under FULL a commit that asks for the disk returns once the WAL is
    synced; one that does not ask syncs nothing, and leaves the next one
    flushing, after a success and after a conflict alike."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="FULL")
    calls = synced(monkeypatch)
    state = transition(fresh(), start("hi")).state.committed
    assert store.commit_input("in-1", 0, state, None, flush=False) == 1
    with pytest.raises(VersionConflict):
        store.commit_input("in-2", 0, state, None, flush=False)
    assert calls == []
    assert store.commit_input("in-2", 1, grown(state, "again"), None) == 2
    assert [path for path, _ in calls] == [tmp_wal(store)]
    store.close()


def test_a_store_that_never_flushes_syncs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    calls = synced(monkeypatch)
    state = transition(fresh(), start("hi")).state.committed
    assert store.commit_input("in-1", 0, state, None) == 1
    assert calls == []
    store.close()
