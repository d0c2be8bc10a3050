"""A batch staged on the caller's thread (`Store.stage_batch_now`): SQLite
runs its statements at once, commits it there without waiting for the disk
(`commit`), and leaves the flush a request asked for to `flush`, on another
thread; it never waits for the write lock, and a networked database never
stages."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.store import sqlite as sqlite_module
from cursor_byok.store.base import CommitRequest, VersionConflict
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.sqlite import SQLiteStore
from tests.store.conftest import Backend
from tests.store.test_commit_batch import first
from tests.store.test_store import grown


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="FULL")
    try:
        yield store
    finally:
        left_staged = give_back_the_writer(store)
        store.close()
    assert not left_staged, "a batch was left staged: neither committed nor abandoned"


def give_back_the_writer(store: SQLiteStore) -> bool:
    """Roll back a batch the test left staged (it failed between staging and
    committing): its transaction holds the write connection, which `close`
    would wait for for ever, and pytest-timeout stops timing a test once it
    has failed, so the run would hang with no report. Whether one was left."""
    # Only the test's own thread stages here: a held lock is that batch's.
    left_staged = not store._lock.acquire(blocking=False)
    if left_staged and store._db.in_transaction:
        store._db.execute("ROLLBACK")
    store._lock.release()
    return left_staged


def test_a_staged_batch_answers_as_commit_batch_and_lands_when_committed(
    sqlite_store: SQLiteStore,
) -> None:
    one = first("c1", "a")
    two = first("c2", "b", flush=False)
    later = CommitRequest("c1:in-2", 1, grown(one.next_state, "c"), {"n": 2})
    staged = sqlite_store.stage_batch_now([one, two, later])
    assert staged is not None
    assert staged.answers == [1, 1, 2]
    assert sqlite_store.load("c1") is None  # not committed yet: readers do not see it
    staged.commit()
    loaded = sqlite_store.load("c1")
    assert loaded is not None and (loaded.version, loaded.state) == (2, later.next_state)
    assert sqlite_store.load("c2") is not None


def test_an_abandoned_batch_lands_nothing_and_frees_the_writer(sqlite_store: SQLiteStore) -> None:
    staged = sqlite_store.stage_batch_now([first("c1", "a")])
    assert staged is not None
    assert sqlite_store.stage_batch_now([first("c2", "b")]) is None  # the connection is held
    staged.abandon()
    assert sqlite_store.load("c1") is None
    assert sqlite_store.commit_batch([first("c1", "a")]) == [1]


def test_a_refused_request_of_a_staged_batch_is_rolled_back_alone(
    sqlite_store: SQLiteStore,
) -> None:
    assert sqlite_store.commit_batch([first("c1", "a")]) == [1]
    stale = first("c1", "again")  # expects version 0: the conversation is at 1
    staged = sqlite_store.stage_batch_now([stale, first("c2", "b")])
    assert staged is not None
    assert isinstance(staged.answers[0], VersionConflict) and staged.answers[1] == 1
    staged.commit()
    loaded = sqlite_store.load("c1")
    assert loaded is not None and loaded.version == 1
    assert sqlite_store.load("c2") is not None


def test_a_lone_refused_request_staged_leaves_nothing_and_frees_the_writer(
    sqlite_store: SQLiteStore,
) -> None:
    """Refused after its writes, the one request of a batch is rolled back
    with the transaction (no savepoint for a batch of one); committing the
    batch then lands nothing and gives the write connection back."""
    assert sqlite_store.commit_batch([first("c1", "a")]) == [1]
    loaded = sqlite_store.load("c1")
    assert loaded is not None
    again = CommitRequest("c1:in-1", 1, grown(loaded.state, "b"), {"n": 2})
    staged = sqlite_store.stage_batch_now([again])
    assert staged is not None and isinstance(staged.answers[0], VersionConflict)
    staged.commit()
    assert not sqlite_store._db.in_transaction
    reloaded = sqlite_store.load("c1")
    assert reloaded is not None and (reloaded.version, reloaded.state) == (1, loaded.state)
    later = CommitRequest("c1:in-2", 1, grown(loaded.state, "b"), {"n": 2})
    staged = sqlite_store.stage_batch_now([later])
    assert staged is not None and staged.answers == [2]
    staged.commit()


@pytest.mark.skipif(not hasattr(os, "fdatasync"), reason="a platform with fdatasync")
def test_an_unflushed_staged_batch_leaves_the_store_flushing(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = synced(monkeypatch)
    staged = sqlite_store.stage_batch_now([first("c1", "a", flush=False)])
    assert staged is not None and not staged.flush_owed
    staged.commit()
    assert calls == []
    assert sqlite_store.commit_batch([first("c2", "b")]) == [1]
    assert [path for path, _ in calls] == [tmp_wal(sqlite_store)]


def synced(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The files `os.fdatasync` (the disk, the outer edge here) is asked to
    sync, with the thread that asks."""
    calls: list[tuple[str, int]] = []
    real = os.fdatasync

    def recording(fd: int) -> None:
        calls.append((os.readlink(f"/proc/self/fd/{fd}"), threading.get_ident()))
        real(fd)

    monkeypatch.setattr(os, "fdatasync", recording)
    return calls


@pytest.mark.skipif(not hasattr(os, "fdatasync"), reason="a platform with fdatasync")
def test_a_staged_batch_with_one_flushed_commit_owes_a_flush_of_the_wal(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One commit that asks for the flush gets it, whatever the others ask:
    the commit itself is made as NORMAL makes it (the caller is the event
    loop, which must not wait for the disk), and `flush` syncs the WAL, as
    FULL would have in the commit."""
    calls = synced(monkeypatch)
    staged = sqlite_store.stage_batch_now([first("c1", "a", flush=False), first("c2", "b")])
    assert staged is not None and staged.flush_owed
    staged.commit()
    assert sqlite_store.load("c2") is not None and calls == []
    worker = threading.Thread(target=staged.flush)
    worker.start()
    worker.join()
    assert [path for path, _ in calls] == [f"{tmp_wal(sqlite_store)}"]
    assert calls[0][1] != threading.get_ident()


def tmp_wal(store: SQLiteStore) -> str:
    return os.path.realpath(f"{store.path}-wal")


def test_no_flush_is_owed_where_none_was_asked_or_the_store_never_flushes(
    sqlite_store: SQLiteStore, tmp_path: Path
) -> None:
    staged = sqlite_store.stage_batch_now([first("c1", "a", flush=False)])
    assert staged is not None and not staged.flush_owed
    staged.commit()
    fast = SQLiteStore(tmp_path / "fast.sqlite3", synchronous="NORMAL")
    try:
        staged = fast.stage_batch_now([first("c1", "a")])
        assert staged is not None and not staged.flush_owed
        staged.commit()
    finally:
        fast.close()


def test_commits_never_checkpoint_on_the_committing_thread(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint copies the WAL into the file and syncs both: it is the
    upkeep thread's, started once every `CHECKPOINT_COMMITS` commits, so a
    staged commit on the event loop never makes one."""
    monkeypatch.setattr(sqlite_module, "CHECKPOINT_COMMITS", 4)
    threads: list[int] = []
    real = SQLiteStore._checkpoint

    def noting(store: SQLiteStore) -> None:
        threads.append(threading.get_ident())
        real(store)

    monkeypatch.setattr(SQLiteStore, "_checkpoint", noting)
    assert sqlite_store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    main = Path(sqlite_store.path)
    before = main.stat().st_size
    for i in range(3):
        staged = sqlite_store.stage_batch_now([first(f"c{i}", "a" * 20_000)])
        assert staged is not None
        staged.commit()
    sqlite_store._upkeep.submit(lambda: None).result(10)
    assert threads == [] and main.stat().st_size == before  # all of it still in the WAL
    staged = sqlite_store.stage_batch_now([first("c3", "b")])
    assert staged is not None
    staged.commit()
    sqlite_store._upkeep.submit(lambda: None).result(10)
    assert len(threads) == 1 and threads[0] != threading.get_ident()
    assert main.stat().st_size > before  # the WAL copied into the file
    loaded = sqlite_store.load("c2")
    assert loaded is not None and loaded.version == 1


def test_staging_never_waits_for_another_writer_of_the_file(
    sqlite_store: SQLiteStore, tmp_path: Path
) -> None:
    """Another process holding the file's write lock makes staging answer
    None at once (the caller is the event loop); a worker thread's commit
    still waits for that lock as before."""
    other = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    began = time.monotonic()
    assert sqlite_store.stage_batch_now([first("c1", "a")]) is None
    assert time.monotonic() - began < 5  # not the 30 s busy timeout
    releaser = threading.Timer(0.3, other.execute, ("COMMIT",))
    releaser.start()
    try:
        assert sqlite_store.commit_batch([first("c1", "a")]) == [1]  # waited, then landed
    finally:
        releaser.join()
        other.close()
    staged = sqlite_store.stage_batch_now([first("c2", "b")])
    assert staged is not None
    staged.commit()
    assert sqlite_store.load("c2") is not None


def test_only_the_embedded_database_stages(store: SQLStore, backend: Backend) -> None:
    staged = store.stage_batch_now([first("c1", "a")])
    if backend.name == "postgresql":
        assert staged is None
        assert store.commit_batch([first("c1", "a")]) == [1]
        return
    assert staged is not None
    staged.commit()
    assert store.load("c1") is not None


def fails_at_commit(path: Path) -> None:
    """Make the COMMIT of any transaction that creates conversation `bad`
    fail, its transaction still open (a deferred foreign key, checked only
    then): the one way SQLite's COMMIT fails without rolling back itself."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        """
        CREATE TABLE parent (id TEXT PRIMARY KEY);
        CREATE TABLE child (p TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
        CREATE TRIGGER fails_at_commit AFTER INSERT ON conversations
        WHEN NEW.conversation_id = 'bad' BEGIN INSERT INTO child VALUES ('none'); END;
        """
    )
    db.close()


@pytest.mark.parametrize("way", ["staged", "flushed", "unflushed"])
def test_a_failed_commit_is_rolled_back_and_leaves_the_store_as_it_was(
    sqlite_store: SQLiteStore, tmp_path: Path, way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The COMMIT's own error is raised (not one of the clean-up after it),
    and the next write finds no transaction left open and the store flushing
    again: on the loop's path (staged) and the writer thread's."""
    fails_at_commit(tmp_path / "db.sqlite3")
    bad = first("bad", "a", flush=way == "flushed")
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        if way == "staged":
            staged = sqlite_store.stage_batch_now([replace(bad, flush=False)])
            assert staged is not None
            staged.commit()
        else:
            sqlite_store.commit_batch([bad])
    assert not sqlite_store._db.in_transaction
    calls = synced(monkeypatch)
    assert sqlite_store.commit_batch([first("c1", "a")]) == [1]
    assert [path for path, _ in calls] == [tmp_wal(sqlite_store)]
    assert sqlite_store.load("bad") is None


class Interrupted(list[CommitRequest]):
    """Requests whose reading is interrupted (Ctrl-C on the event loop)."""

    def __iter__(self) -> Iterator[CommitRequest]:
        raise KeyboardInterrupt


def test_an_interrupted_staging_gives_the_write_connection_back(
    sqlite_store: SQLiteStore,
) -> None:
    with pytest.raises(KeyboardInterrupt):
        sqlite_store.stage_batch_now(Interrupted([first("c1", "a")]))
    kept = sqlite_store._lock.locked()
    if kept:  # (given back here, or closing the store would wait for ever)
        sqlite_store._lock.release()
    assert not kept
