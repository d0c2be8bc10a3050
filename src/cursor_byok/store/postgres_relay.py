"""Appends that arrive at a process other than their stream's, in PostgreSQL.

A BidiAppend and its RunSSE are separate HTTP requests; behind a load
balancer they reach different processes. An append no local stream reads is
written to `relayed_appends` (the truth: keyed by request id and seqno, so a
repeat is one row) and announced with NOTIFY on one channel (the wake-up,
which may be missed: the process that opens the stream reads the table too).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)

CHANNEL = "cursor_byok_appends"
LISTEN_POLL_S = 0.5
"""How often the listening thread looks up from its wait to see if it must stop."""

_PUT = """
WITH stored AS (
    INSERT INTO relayed_appends (request_id, seqno, payload) VALUES (%s, %s, %s)
    ON CONFLICT (request_id, seqno) DO NOTHING
)
SELECT pg_notify(%s, %s)
"""
"""Store and announce in one statement: one round trip less per relayed
append. NOTIFY is delivered at commit, so only once the row can be read."""
_SINCE = """
SELECT seqno, payload FROM relayed_appends WHERE request_id = %s AND seqno >= %s ORDER BY seqno
"""
_SWEEP = (
    "DELETE FROM relayed_appends WHERE stored_at < clock_timestamp() - make_interval(secs => %s)"
)


class PostgresAppendRelay:
    """Store, read and announce relayed appends; one listening thread per process."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]], conninfo: str) -> None:
        self._pool = pool
        self._conninfo = conninfo
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def put(self, request_id: str, seqno: int, payload: bytes) -> None:
        """Store one append and announce it, in one transaction: the
        announcement is sent only once the row can be read."""
        with self._pool.connection() as conn:
            conn.execute(_PUT, (request_id, seqno, payload, CHANNEL, request_id))

    def since(self, request_id: str, seqno: int = 0) -> list[tuple[int, bytes]]:
        with self._pool.connection() as conn:
            rows = conn.execute(_SINCE, (request_id, seqno)).fetchall()
        return [(int(r[0]), bytes(r[1])) for r in rows]

    def sweep(self, older_than_s: float) -> int:
        """Forget appends stored long ago (their runs are over); the rows removed."""
        with self._pool.connection() as conn:
            return conn.execute(_SWEEP, (older_than_s,)).rowcount

    def listen(self, announced: Callable[[str], None]) -> None:
        """Call `announced(request_id)` from a thread for each announcement."""
        self._thread = threading.Thread(
            target=self._listen, args=(announced,), name="append relay", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _listen(self, announced: Callable[[str], None]) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for notice in conn.notifies(timeout=LISTEN_POLL_S):
                            announced(notice.payload)
            except psycopg.Error as error:  # the database went away: listen again
                log.warning("append relay: %s; listening again", error)
                self._stop.wait(1.0)
