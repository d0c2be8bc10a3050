"""What processes hand each other through PostgreSQL: appends and output.

A BidiAppend and its RunSSE are separate HTTP requests; behind a load
balancer they reach different processes. An append no local stream reads is
written to `relayed_appends`; the output of a request hosted by another
process than its stream's is written to `relayed_output`. Both tables are
the truth, keyed so that a repeat is one row. Every change is announced with
NOTIFY on one channel whose payload says what it announces (a `Notice` as
JSON); an announcement is only a wake-up and may be missed, so readers also
read the tables (on a stream's opening, and on a slow poll).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from cursor_byok.cluster.lease import Notice, NoticeKind, OutputRow
from cursor_byok.store.owners import owner_of
from cursor_byok.store.postgres_pooled import pooled

log = logging.getLogger(__name__)

CHANNEL = "cursor_byok_relay"
LISTEN_POLL_S = 0.5
"""How often the listening thread looks up from its wait to see if it must stop."""

_PUT = """
WITH stored AS (
    INSERT INTO relayed_appends (request_id, seqno, payload, owner) VALUES (%s, %s, %s, %s)
    ON CONFLICT (request_id, seqno) DO NOTHING
)
SELECT pg_notify(%s, %s)
"""
"""Store and announce in one statement: one round trip less per relayed
append. NOTIFY is delivered at commit, so only once the row can be read."""
_SINCE = """
SELECT seqno, payload FROM relayed_appends WHERE request_id = %s AND seqno >= %s ORDER BY seqno
"""
_PUT_OUTPUT = """
INSERT INTO relayed_output (request_id, owner, seq, kind, payload)
SELECT %s, %s, * FROM unnest(%s::bigint[], %s::text[], %s::bytea[])
ON CONFLICT (request_id, seq) DO NOTHING
"""
_OUTPUT_SINCE = """
SELECT seq, kind, payload FROM relayed_output WHERE request_id = %s AND seq >= %s ORDER BY seq
"""
_NEXT_SEQ = "SELECT coalesce(max(seq) + 1, 0) FROM relayed_output WHERE request_id = %s"
_SWEEP = "DELETE FROM {table} WHERE stored_at < clock_timestamp() - make_interval(secs => %s)"
_NOTIFY = "SELECT pg_notify(%s, %s)"


def encode_notice(notice: Notice) -> str:
    fields: dict[str, Any] = {"kind": notice.kind.value, "request_id": notice.request_id}
    if notice.to:
        fields["to"] = notice.to
    if notice.conversation_id:
        fields["conversation_id"] = notice.conversation_id
    if notice.reading:
        fields["reading"] = True
    if notice.seqno:
        fields["seqno"] = notice.seqno
    return json.dumps(fields, separators=(",", ":"))


def decode_notice(payload: str) -> Notice:
    """ValueError when the payload is not a notice."""
    try:
        fields = json.loads(payload)
        return Notice(
            NoticeKind(fields["kind"]),
            str(fields["request_id"]),
            str(fields.get("to", "")),
            str(fields.get("conversation_id", "")),
            bool(fields.get("reading", False)),
            int(fields.get("seqno", 0)),
        )
    except (TypeError, KeyError, ValueError) as error:  # JSON, or a kind unknown here
        raise ValueError(f"not a relay notice: {error}") from error


class PostgresRelay:
    """Store, read and announce relayed appends and output; one listening
    thread per process."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]], conninfo: str) -> None:
        self._pool = pool
        self._conninfo = conninfo
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def put(self, request_id: str, seqno: int, payload: bytes) -> None:
        """Store one append and announce it, in one transaction: the
        announcement is sent only once the row can be read."""
        notice = encode_notice(Notice(NoticeKind.APPEND, request_id))
        with pooled(self._pool, "relay") as conn:
            conn.execute(_PUT, (request_id, seqno, payload, owner_of(request_id), CHANNEL, notice))

    def since(self, request_id: str, seqno: int = 0) -> list[tuple[int, bytes]]:
        with pooled(self._pool, "relay") as conn:
            rows = conn.execute(_SINCE, (request_id, seqno)).fetchall()
        return [(int(r[0]), bytes(r[1])) for r in rows]

    def put_output(self, request_id: str, rows: Sequence[OutputRow]) -> None:
        """One INSERT and one NOTIFY for the whole batch, in one transaction.
        Its commit does not wait for the WAL flush: the rows hand output from
        one live process to another (the history is in the conversation's
        tables), and a stream waits on every batch."""
        if not rows:
            return
        seqs, kinds, payloads = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
        notice = encode_notice(Notice(NoticeKind.OUTPUT, request_id))
        with pooled(self._pool, "relay") as conn:
            conn.execute("SET LOCAL synchronous_commit = off")
            owner = owner_of(request_id)  # the request's key says whose it is
            conn.execute(_PUT_OUTPUT, (request_id, owner, seqs, kinds, payloads))
            conn.execute(_NOTIFY, (CHANNEL, notice))

    def output_since(self, request_id: str, seq: int = 0) -> list[OutputRow]:
        with pooled(self._pool, "relay") as conn:
            rows = conn.execute(_OUTPUT_SINCE, (request_id, seq)).fetchall()
        return [(int(r[0]), str(r[1]), bytes(r[2])) for r in rows]

    def next_output_seq(self, request_id: str) -> int:
        with pooled(self._pool, "relay") as conn:
            row = conn.execute(_NEXT_SEQ, (request_id,)).fetchone()
        return int(row[0]) if row is not None else 0

    def announce(self, notice: Notice) -> None:
        with pooled(self._pool, "relay") as conn:
            conn.execute(_NOTIFY, (CHANNEL, encode_notice(notice)))

    def sweep(self, older_than_s: float) -> int:
        """Forget what was stored long ago (its runs are over); the rows removed."""
        removed = 0
        with pooled(self._pool, "relay") as conn:
            for table in ("relayed_appends", "relayed_output"):
                removed += conn.execute(_SWEEP.format(table=table), (older_than_s,)).rowcount
        return removed

    def listen(self, announced: Callable[[Notice], None]) -> None:
        """Call `announced(notice)` from a thread for each announcement."""
        self._thread = threading.Thread(
            target=self._listen, args=(announced,), name="relay", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _listen(self, announced: Callable[[Notice], None]) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for message in conn.notifies(timeout=LISTEN_POLL_S):
                            try:
                                notice = decode_notice(message.payload)
                            except ValueError as error:
                                log.warning("relay: announcement ignored: %s", error)
                                continue
                            announced(notice)
            except psycopg.Error as error:  # the database went away: listen again
                log.warning("relay: %s; listening again", error)
                self._stop.wait(1.0)
