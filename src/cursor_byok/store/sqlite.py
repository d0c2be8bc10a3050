"""The embedded store: one SQLite file in WAL mode.

History is append-only on disk as well: one `messages` row per message, so a
commit writes only what is new and costs the same at message 10 and at
message 10,000. Each commit is one `BEGIN IMMEDIATE` transaction that checks
the expected version, verifies the new messages extend the stored hash chain,
and writes state, messages, the input id and the call records together.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from cursor_byok.llm.serialize import (
    EMPTY_MESSAGES_HASH,
    canonical_dumps,
    canonical_loads,
    extend_messages_hash,
    message_bytes,
    message_from_json,
    sha256_hex,
)
from cursor_byok.llm.types import JSONValue
from cursor_byok.loop.codec import state_from_json, state_to_json
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState
from cursor_byok.store.base import (
    CallStatus,
    CallStatusUpdate,
    ClientOperationRecord,
    ConversationSummary,
    HistoryRewrite,
    InputCommit,
    LLMCallRecord,
    Loaded,
    OperationStatus,
    RequestMismatch,
    StoreError,
    VersionConflict,
)
from cursor_byok.store.migrations import migrate

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _create_private(path: Path) -> None:
    """Create the database file readable by its owner only: it holds prompts,
    code and tool output."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


class SQLiteStore:
    """A `Store` over one SQLite file. Thread-safe: calls are serialized on
    one connection, so it can be used from a worker thread."""

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

    def close(self) -> None:
        with self._lock, self._read_lock:
            self._db.close()
            self._reader.close()

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

    # -- conversations -----------------------------------------------------------

    def load(self, conversation_id: str) -> Loaded | None:
        with self._read() as db:
            row = db.execute(
                "SELECT version, state_json FROM conversations WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            if row is None:
                return None
            rows = db.execute(
                "SELECT message_json FROM messages WHERE conversation_id = ? ORDER BY idx",
                (conversation_id,),
            ).fetchall()
        messages = tuple(message_from_json(canonical_loads(r[0])) for r in rows)
        return Loaded(state_from_json(canonical_loads(row[1]), messages), row[0])

    def find_input_commit(self, conversation_id: str, input_id: str) -> InputCommit | None:
        with self._read() as db:
            row = db.execute(
                "SELECT committed_version, result_json FROM input_commits"
                " WHERE conversation_id = ? AND input_id = ?",
                (conversation_id, input_id),
            ).fetchone()
        if row is None:
            return None
        return InputCommit(input_id, row[0], canonical_loads(row[1]))

    def commit_input(
        self,
        input_id: str,
        expected_version: int,
        next_state: ConversationState,
        result: JSONValue,
        llm_calls: Sequence[LLMCallRecord | CallStatusUpdate] = (),
        operations: Sequence[ClientOperationRecord] = (),
        flush: bool = True,
    ) -> int:
        conversation_id = next_state.conversation_id
        with self._transaction(flush) as db:
            row = db.execute(
                "SELECT version, message_count, messages_hash FROM conversations"
                " WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            version, count, chain = row if row is not None else (0, 0, None)
            if version != expected_version:
                raise VersionConflict(
                    f"conversation {conversation_id!r} is at version {version},"
                    f" not {expected_version}"
                )
            new_messages = next_state.messages[count:]
            if len(next_state.messages) < count:
                raise HistoryRewrite(f"commit would drop messages of {conversation_id!r}")
            rows = []
            link = chain if chain is not None else EMPTY_MESSAGES_HASH
            for offset, message in enumerate(new_messages):
                data = message_bytes(message)
                digest = sha256_hex(data)
                link = extend_messages_hash(link, digest)
                rows.append((conversation_id, count + offset, data, digest))
            if link != next_state.messages_hash:
                raise HistoryRewrite(f"commit does not extend the history of {conversation_id!r}")
            state_json = canonical_dumps(state_to_json(next_state))
            now = _now_ms()
            if row is None:
                db.execute(
                    "INSERT INTO conversations (conversation_id, version, status, message_count,"
                    " messages_hash, state_json, created_at_ms, updated_at_ms)"
                    " VALUES (?, 1, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation_id,
                        next_state.status.value,
                        len(next_state.messages),
                        next_state.messages_hash,
                        state_json,
                        now,
                        now,
                    ),
                )
            else:
                updated = db.execute(
                    "UPDATE conversations SET version = version + 1, status = ?,"
                    " message_count = ?, messages_hash = ?, state_json = ?, updated_at_ms = ?"
                    " WHERE conversation_id = ? AND version = ?",
                    (
                        next_state.status.value,
                        len(next_state.messages),
                        next_state.messages_hash,
                        state_json,
                        now,
                        conversation_id,
                        expected_version,
                    ),
                )
                if updated.rowcount != 1:
                    raise VersionConflict(f"conversation {conversation_id!r} changed")
            db.executemany(
                "INSERT INTO messages (conversation_id, idx, message_json, message_hash)"
                " VALUES (?, ?, ?, ?)",
                rows,
            )
            try:
                db.execute(
                    "INSERT INTO input_commits (conversation_id, input_id, committed_version,"
                    " result_json, committed_at_ms) VALUES (?, ?, ?, ?, ?)",
                    (conversation_id, input_id, version + 1, canonical_dumps(result), now),
                )
            except sqlite3.IntegrityError as error:
                raise VersionConflict(f"input {input_id!r} is already committed") from error
            for call in llm_calls:
                self._upsert_llm_call(db, call)
            for operation in operations:
                self._upsert_operation(db, operation)
        return version + 1

    def active_conversations(self) -> list[str]:
        idle = sorted(status.value for status in IDLE_STATUSES)
        marks = ",".join("?" * len(idle))
        with self._read() as db:
            rows = db.execute(
                f"SELECT conversation_id FROM conversations WHERE status NOT IN ({marks})"
                " ORDER BY updated_at_ms",
                idle,
            ).fetchall()
        return [r[0] for r in rows]

    def conversations(self) -> list[ConversationSummary]:
        with self._read() as db:
            rows = db.execute(
                "SELECT conversation_id, version, status, message_count, updated_at_ms"
                " FROM conversations ORDER BY updated_at_ms DESC"
            ).fetchall()
        return [ConversationSummary(*r) for r in rows]

    # -- model calls ------------------------------------------------------------------

    def save_llm_call(self, record: LLMCallRecord | CallStatusUpdate) -> None:
        with self._transaction() as db:
            self._upsert_llm_call(db, record)

    @staticmethod
    def _upsert_llm_call(db: sqlite3.Connection, record: LLMCallRecord | CallStatusUpdate) -> None:
        if isinstance(record, CallStatusUpdate):
            # A late "streaming" never hides how a call ended.
            updated = db.execute(
                "UPDATE llm_calls SET status = CASE WHEN status IN"
                " ('committed', 'failed', 'canceled') AND ? IN ('planned', 'streaming')"
                " THEN status ELSE ? END, attempts = max(attempts, ?),"
                " assistant_hash = coalesce(?, assistant_hash), error = coalesce(?, error),"
                " updated_at_ms = ? WHERE call_id = ?",
                (
                    record.status.value,
                    record.status.value,
                    record.attempts,
                    record.assistant_hash,
                    record.error,
                    _now_ms(),
                    record.call_id,
                ),
            )
            if updated.rowcount != 1:
                raise StoreError(f"no saved call {record.call_id!r} to update")
            return
        row = db.execute(
            "SELECT request_hash FROM llm_calls WHERE call_id = ?", (record.call_id,)
        ).fetchone()
        if row is not None and row[0] != record.request_hash:
            raise RequestMismatch(f"call {record.call_id!r} was saved with another request")
        for part_hash, body in (
            (record.system_hash, record.system),
            (record.tools_hash, record.tools),
        ):
            if part_hash:
                db.execute(
                    "INSERT INTO request_parts (part_hash, body) VALUES (?, ?)"
                    " ON CONFLICT (part_hash) DO NOTHING",
                    (part_hash, body),
                )
        now = _now_ms()
        db.execute(
            "INSERT INTO llm_calls (call_id, conversation_id, model, request_json, request_hash,"
            " messages_hash, message_count, last_message_hash, status, attempts, assistant_hash,"
            " error, created_at_ms, updated_at_ms, system_hash, tools_hash)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT (call_id) DO UPDATE SET status = excluded.status,"
            " attempts = max(attempts, excluded.attempts),"
            " assistant_hash = coalesce(excluded.assistant_hash, assistant_hash),"
            " error = coalesce(excluded.error, error), updated_at_ms = excluded.updated_at_ms",
            (
                record.call_id,
                record.conversation_id,
                record.model,
                record.legacy_request,
                record.request_hash,
                record.messages_hash,
                record.message_count,
                record.last_message_hash,
                record.status.value,
                record.attempts,
                record.assistant_hash,
                record.error,
                now,
                now,
                record.system_hash or None,
                record.tools_hash or None,
            ),
        )

    def get_llm_call(self, call_id: str) -> LLMCallRecord | None:
        with self._read() as db:
            row = db.execute(
                "SELECT call_id, conversation_id, model, request_json, request_hash,"
                " messages_hash, message_count, last_message_hash, status, attempts,"
                " assistant_hash, error, system_hash, s.body, tools_hash, t.body"
                " FROM llm_calls LEFT JOIN request_parts s ON s.part_hash = system_hash"
                " LEFT JOIN request_parts t ON t.part_hash = tools_hash WHERE call_id = ?",
                (call_id,),
            ).fetchone()
        if row is None:
            return None
        return LLMCallRecord(
            call_id=row[0],
            conversation_id=row[1],
            model=row[2],
            legacy_request=bytes(row[3]),
            request_hash=row[4],
            messages_hash=row[5],
            message_count=row[6],
            last_message_hash=row[7],
            status=CallStatus(row[8]),
            attempts=row[9],
            assistant_hash=row[10],
            error=row[11],
            system_hash=row[12] or "",
            system=bytes(row[13] or b""),
            tools_hash=row[14] or "",
            tools=bytes(row[15] or b""),
        )

    def llm_calls(self, conversation_id: str) -> list[LLMCallRecord]:
        with self._read() as db:
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT call_id FROM llm_calls WHERE conversation_id = ? ORDER BY rowid",
                    (conversation_id,),
                ).fetchall()
            ]
        return [record for call_id in ids if (record := self.get_llm_call(call_id)) is not None]

    # -- client operations --------------------------------------------------------------

    def save_client_operation(self, record: ClientOperationRecord) -> None:
        with self._transaction() as db:
            self._upsert_operation(db, record)

    @staticmethod
    def _upsert_operation(db: sqlite3.Connection, record: ClientOperationRecord) -> None:
        now = _now_ms()
        db.execute(
            "INSERT INTO client_operations (operation_id, conversation_id, turn_id, tool_call_id,"
            " tool_index, request_json, status, result_json, created_at_ms, updated_at_ms)"
            " VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (operation_id) DO UPDATE SET"
            " status = CASE WHEN status = 'completed' THEN status ELSE excluded.status END,"
            " result_json = coalesce(result_json, excluded.result_json),"
            " updated_at_ms = excluded.updated_at_ms",
            (
                record.operation_id,
                record.conversation_id,
                record.turn_id,
                record.tool_call_id,
                record.tool_index,
                record.request,
                record.status.value,
                record.result,
                now,
                now,
            ),
        )

    def get_client_operation(self, operation_id: str) -> ClientOperationRecord | None:
        with self._read() as db:
            row = db.execute(
                "SELECT operation_id, conversation_id, turn_id, tool_call_id, tool_index,"
                " request_json, status, result_json FROM client_operations"
                " WHERE operation_id = ?",
                (operation_id,),
            ).fetchone()
        if row is None:
            return None
        return ClientOperationRecord(
            operation_id=row[0],
            conversation_id=row[1],
            turn_id=row[2],
            tool_call_id=row[3],
            tool_index=row[4],
            request=bytes(row[5]),
            status=OperationStatus(row[6]),
            result=None if row[7] is None else bytes(row[7]),
        )
