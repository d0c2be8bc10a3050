"""The embedded store: one SQLite file in WAL mode.

History is append-only on disk as well: one `messages` row per message, so a
commit writes only what is new and costs the same at message 10 and at
message 10,000. Each commit is one `BEGIN IMMEDIATE` transaction that checks
the expected version, verifies the new messages extend the stored hash chain,
and writes state, messages, the input id and the call records together. The
statements are shared with PostgreSQL (`sql_store`); this module only opens
the file and its transactions.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from cursor_byok.store.base import QuickLookup
from cursor_byok.store.migrations import migrate
from cursor_byok.store.sql_store import SQLStore

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


def _create_private(path: Path) -> None:
    """Create the database file readable by its owner only: it holds prompts,
    code and tool output."""
    path.parent.mkdir(parents=True, exist_ok=True)
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
            self.path, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._synchronous = synchronous
        self._db.execute("PRAGMA foreign_keys=ON")
        migrate(self._db)
        self._read_lock = threading.Lock()
        self._reader = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        self._now_lock = threading.Lock()
        self._now = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=0.0
        )

    def close(self) -> None:
        with self._lock, self._read_lock, self._now_lock:
            self._db.close()
            self._reader.close()
            self._now.close()

    def lookup_now(self, conversation_id: str, input_id: str) -> QuickLookup | None:
        """One indexed read on a connection of its own, never waited for: if
        another caller holds it, or the file is busy (WAL readers do not wait
        for writers, but a checkpoint's reset can briefly refuse one), the
        answer is None and the caller asks in a worker thread instead. A
        thread hop costs far more than this read."""
        if not self._now_lock.acquire(blocking=False):
            return None
        try:
            return self._lookup(self._now, conversation_id, input_id)
        except sqlite3.OperationalError:
            return None
        finally:
            self._now_lock.release()

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
        """One write transaction. `flush=False` under synchronous FULL commits
        it as NORMAL does: in the WAL (a process crash keeps it) without an
        fsync of its own; the next flushed commit's fsync covers it too, as
        the WAL is written in order."""
        relaxed = not flush and self._synchronous in ("FULL", "EXTRA")
        with self._lock:
            if relaxed:
                self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            finally:
                if relaxed:
                    self._db.execute(f"PRAGMA synchronous={self._synchronous}")
