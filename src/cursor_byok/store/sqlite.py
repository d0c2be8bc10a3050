"""The embedded store: one SQLite file in WAL mode.

History is append-only on disk as well: one `messages` row per message, so a
commit writes only what is new and costs the same at message 10 and at
message 10,000. Each commit is one `BEGIN IMMEDIATE` transaction that checks
the expected version, verifies the new messages extend the stored hash chain,
and writes state, messages, the input id and the call records together. The
statements are shared with PostgreSQL (`sql_store`); this module only opens
the file and its transactions, syncs the WAL itself where a commit asked
for the disk (`sync_wal`), and checkpoints on a thread of its own.

Under full durability (FULL or EXTRA) the write connection still runs at
NORMAL, and a commit that asks to be flushed gets the one fsync of the WAL
that FULL would have made in its COMMIT, made after it: on the writer
thread for a batch staged on the event loop, at once for any other. A
commit that did not ask waits for the next flush or checkpoint. (Setting
`synchronous` around each transaction instead cost two statements a
commit.) Likewise the write connection's busy timeout rests at zero, for
the staging that must never wait, and a transaction made on a worker
thread raises it while it waits for the lock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal, TypeVar

from cursor_byok.loop.forks import Branch, TurnMark
from cursor_byok.store.base import (
    BatchAnswer,
    CommitRequest,
    QuickLookup,
    StagedBatch,
    User,
    WouldWait,
)
from cursor_byok.store.executor import Executor
from cursor_byok.store.migrations import migrate
from cursor_byok.store.sql_store import SQLStore

log = logging.getLogger(__name__)

T = TypeVar("T")

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

BUSY_TIMEOUT_S = 30.0
"""How long a write waits for another process's write lock on the file."""

CHECKPOINT_COMMITS = 32
"""Commits between two checkpoints of the WAL into the file. SQLite's own
would come after about 1,000 pages written, 20-40 of the server's commits,
in the commit that crossed the line, on whatever thread made it: here it
runs on a thread of the store's own (`_checkpoint`), never on the event
loop, which commits the staged batches."""


def _data_sync(path: str) -> None:
    """Wait until `path`'s data is on the disk. Any descriptor of a file
    syncs what every other one wrote to it (the page cache is the file's)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        getattr(os, "fdatasync", os.fsync)(fd)  # (macOS has fsync only)
    finally:
        os.close(fd)


def _create_private(path: Path) -> None:
    """Create the database file readable by its owner only: it holds prompts,
    code and tool output (SQLite gives its WAL and shared-memory files the
    same mode). A folder made for it is its owner's alone too."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


class SQLiteStore(SQLStore):
    """A `Store` over one SQLite file. Thread-safe: calls are serialized on
    one connection, so it can be used from a worker thread."""

    serial_writer = True

    def __init__(self, path: str | os.PathLike[str], synchronous: Synchronous = "FULL") -> None:
        self.path = Path(path)
        _create_private(self.path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.execute("PRAGMA foreign_keys=ON")
        # Checkpoints are the upkeep thread's (CHECKPOINT_COMMITS).
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        migrate(self._db)
        self._syncs = synchronous in ("FULL", "EXTRA")
        """Whether a commit asked to flush syncs the WAL itself (`sync_wal`):
        the connection's own level is NORMAL from here on, under which
        COMMIT never waits for the disk."""
        if self._syncs:
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=0")
        self._unchecked = 0
        """Commits since the last checkpoint began (guarded by `_lock`)."""
        self._checkpointing = False
        self._upkeep = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cursor-byok-upkeep")
        self._checkpointer = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
        )
        self._read_lock = threading.Lock()
        self._reader = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        self._now_lock = threading.Lock()
        self._now = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=0.0
        )

    def close(self) -> None:
        self._upkeep.shutdown(wait=True)
        with self._lock, self._read_lock, self._now_lock:
            self._checkpointer.close()
            self._db.close()
            self._reader.close()
            self._now.close()

    def lookup_now(self, conversation_id: str, input_id: str) -> QuickLookup | None:
        """One indexed read on a connection of its own, never waited for: if
        another caller holds it, or the file is busy (WAL readers do not wait
        for writers, but a checkpoint's reset can briefly refuse one), the
        answer is None and the caller asks in a worker thread instead. A
        thread hop costs far more than this read."""
        return self._now_read(self._lookup, conversation_id, input_id)

    def branches_now(self, root: str) -> list[Branch] | None:
        """As `lookup_now`: asked before every run whose client sent a state."""
        return self._now_read(self._branches, root)

    def turn_marks_now(
        self, root: str, turn_blobs: Sequence[bytes]
    ) -> dict[bytes, TurnMark] | None:
        return self._now_read(self._turn_marks, root, turn_blobs)

    def _now_read(self, read: Callable[..., T], *args: object) -> T | None:
        """`read` on the connection of its own, never waited for (None)."""
        if not self._now_lock.acquire(blocking=False):
            return None
        try:
            return read(self._now, *args)
        except sqlite3.OperationalError:
            return None
        finally:
            self._now_lock.release()

    def token_holder_now(self, token_id: str) -> tuple[User, str] | None:
        """As `lookup_now`: a point read on a connection of its own, never
        waited for (WouldWait instead), asked on every request a user's token makes."""
        if not self._now_lock.acquire(blocking=False):
            raise WouldWait("the connection is busy")
        try:
            return self._token_holder(self._now, token_id)
        except sqlite3.OperationalError as error:
            raise WouldWait(str(error)) from error
        finally:
            self._now_lock.release()

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        """Never waited for: if a worker thread holds the write connection,
        or another process the file's write lock, the answer is None. The
        connection stays held until the batch is committed or abandoned.
        Under full durability its commit is made as NORMAL makes it (in the
        WAL, no fsync), so that it never waits for the disk on the caller's
        thread; the flush a request asked for is `_Staged.flush`'s, the fsync
        FULL would have made, for the caller to make on a worker thread."""
        owed = self._syncs and any(request.flush for request in requests)
        db = self._db
        if not self._lock.acquire(blocking=False):
            return None
        try:
            db.execute("BEGIN IMMEDIATE")  # (the busy timeout is zero: never waits)
        except sqlite3.OperationalError:  # locked (or failing): the worker thread's path
            self._lock.release()
            return None
        except BaseException:
            self._end_staged(commit=False)
            raise
        try:
            answers = self._batch(db, requests)
        except BaseException:
            self._end_staged(commit=False)
            raise
        return _Staged(self, answers, owed)

    def _batch(self, db: Executor, requests: Sequence[CommitRequest]) -> list[BatchAnswer]:
        """A lone request needs no savepoint: refused, it is rolled back with
        the transaction, which held nothing else. (A savepoint keeps the
        original of every page the commit changes, some 70 KiB for a turn's
        commit: past 64 KiB SQLite spills it to a temporary file, created
        and deleted in every commit.)"""
        if len(requests) != 1:
            return super()._batch(db, requests)
        try:
            return [self._commit_request(db, requests[0])]
        except Exception as refused:  # noqa: BLE001 (the request's answer, as in a batch)
            if self._db.in_transaction:  # (a broken one is over already)
                db.execute("ROLLBACK")
            return [refused]

    def _end_staged(self, commit: bool) -> None:
        """Commit or roll back a staged batch, and give the connection back."""
        try:
            self._end(commit)
        finally:
            self._lock.release()

    def _end(self, commit: bool) -> None:
        """Commit or roll back the write connection's transaction (a batch
        whose one request was refused has rolled it back already). A failed
        COMMIT can leave its transaction open (a deferred constraint): it is
        rolled back here, or the next writer would find it."""
        db = self._db
        if not db.in_transaction:
            return
        if not commit:
            db.execute("ROLLBACK")
            return
        try:
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        self._committed()

    def _committed(self) -> None:
        """A commit landed (the write lock held): a checkpoint starts on the
        upkeep thread once CHECKPOINT_COMMITS have, unless one runs."""
        self._unchecked += 1
        if self._unchecked < CHECKPOINT_COMMITS or self._checkpointing:
            return
        self._unchecked, self._checkpointing = 0, True
        try:
            self._upkeep.submit(self._checkpoint)
        except RuntimeError:  # closing: the last connection's close checkpoints
            self._checkpointing = False

    def _checkpoint(self) -> None:
        """Copy what the WAL holds into the file, so that the WAL starts
        over: PASSIVE, it waits for no reader or writer, and a commit made
        meanwhile goes on (the next checkpoint takes it)."""
        try:
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            log.warning(
                "checkpoint of %s failed; the next one tries again", self.path, exc_info=True
            )
        finally:
            self._checkpointing = False

    def sync_wal(self) -> None:
        """Wait until every commit so far is on the disk: the fsync of the WAL
        that synchronous=FULL makes in each commit (where there is no WAL, the
        last checkpoint put everything in the file, and synced it)."""
        try:
            _data_sync(f"{self.path}-wal")
        except FileNotFoundError:
            _data_sync(str(self.path))

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """Reads use their own connection and lock: in WAL mode they see the
        last commit without waiting behind a writer's fsync. One read
        transaction, so a multi-query read is consistent."""
        with self._read_lock:
            self._reader.execute("BEGIN")
            try:
                yield self._reader
            finally:
                self._reader.execute("COMMIT")

    @contextlib.contextmanager
    def _transaction(self, flush: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction, waiting up to BUSY_TIMEOUT_S for another
        process's write lock. Under full durability a `flush` one returns
        once the WAL is synced; `flush=False` commits as NORMAL does: in the
        WAL (a process crash keeps it) without an fsync of its own, and the
        next flush covers it too, as the WAL is written in order."""
        with self._lock:
            db = self._db
            db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            try:
                db.execute("BEGIN IMMEDIATE")
            finally:
                db.execute("PRAGMA busy_timeout=0")
            try:
                yield db
            except BaseException:
                self._end(commit=False)
                raise
            self._end(commit=True)
        if flush and self._syncs:  # (outside the lock: a staged commit need not wait for it)
            self.sync_wal()


class _Staged:
    """A batch of `SQLiteStore.stage_batch_now`, holding the write connection
    until it is committed or abandoned."""

    __slots__ = ("_store", "answers", "flush_owed")

    def __init__(self, store: SQLiteStore, answers: list[BatchAnswer], flush_owed: bool) -> None:
        self._store = store
        self.answers = answers
        self.flush_owed = flush_owed

    def commit(self) -> None:
        self._store._end_staged(commit=True)

    def flush(self) -> None:
        self._store.sync_wal()

    def abandon(self) -> None:
        self._store._end_staged(commit=False)
