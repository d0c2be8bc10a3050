"""The store's SQL, written once for SQLite and PostgreSQL.

Both databases accept the same statements here (upserts with `ON CONFLICT`,
`CASE` instead of two-argument `max`), so a backend only says how it opens a
read and a write transaction, how it spells a row lock, and which column
keeps insertion order. Placeholders are `?`; a backend whose driver wants
another marker rewrites them (see `postgres.py`).

Every uniqueness the store guarantees is an `ON CONFLICT` whose row count is
checked, never a caught integrity error: in PostgreSQL an error aborts the
transaction, and a count works the same in both.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

from cursor_byok.llm.serialize import canonical_dumps, canonical_loads, message_from_json
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.llm.types import JSONValue
from cursor_byok.loop.codec import state_from_json
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState
from cursor_byok.store.base import (
    BatchAnswer,
    CallStatusUpdate,
    ClientOperationRecord,
    CommitRequest,
    ConversationSummary,
    InputCommit,
    LLMCallRecord,
    Loaded,
    QuickLookup,
    RequestMismatch,
    StagedBatch,
    StoreError,
    VersionConflict,
)
from cursor_byok.store.call_rows import CallRows
from cursor_byok.store.conversation_pages import ConversationPages
from cursor_byok.store.executor import Executor
from cursor_byok.store.forks import ForkRows
from cursor_byok.store.history import StoredHead, new_message_rows
from cursor_byok.store.images import load_rows, loaded_result, stored_result
from cursor_byok.store.owners import owner_of
from cursor_byok.store.rows import (
    LLM_CALL_COLUMNS,
    LLM_CALL_SELECT,
    OPERATION_COLUMNS,
    call_update_params,
    llm_call_from_row,
    llm_call_row,
    operation_from_row,
    operation_row,
    request_part_rows,
    state_bytes,
)
from cursor_byok.store.timeline_reads import TimelineReads
from cursor_byok.store.ui_sessions import SessionRows
from cursor_byok.store.usage_rows import UsageRows
from cursor_byok.store.user_rows import UserRows

IDLE = tuple(sorted(status.value for status in IDLE_STATUSES))

INSERT_CONVERSATION = (
    "INSERT INTO conversations (conversation_id, version, status, message_count,"
    " messages_hash, state_json, created_at_ms, updated_at_ms, owner)"
    " VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (conversation_id) DO NOTHING"
)
UPDATE_CONVERSATION = (
    "UPDATE conversations SET version = version + 1, status = ?, message_count = ?,"
    " messages_hash = ?, state_json = ?, updated_at_ms = ?"
    " WHERE conversation_id = ? AND version = ?"
)
INSERT_MESSAGE = (
    "INSERT INTO messages (conversation_id, idx, message_json, message_hash) VALUES (?, ?, ?, ?)"
)
INSERT_IMAGE = "INSERT INTO images (sha256, data) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING"
INSERT_INPUT_COMMIT = (
    "INSERT INTO input_commits (conversation_id, input_id, committed_version, result_json,"
    " committed_at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation_id, input_id) DO NOTHING"
)
# The conversation's row, and the input's earlier commit joined to it.
LOOKUP_INPUT = (
    "SELECT i.committed_version, i.result_json FROM conversations c"
    " LEFT JOIN input_commits i ON i.conversation_id = c.conversation_id AND i.input_id = ?"
    " WHERE c.conversation_id = ?"
)
# A late "streaming" never hides how a call ended.
UPDATE_CALL_STATUS = (
    "UPDATE llm_calls SET status = CASE WHEN status IN ('committed', 'failed', 'canceled')"
    " AND ? IN ('planned', 'streaming') THEN status ELSE ? END,"
    " attempts = CASE WHEN attempts > ? THEN attempts ELSE ? END,"
    " assistant_hash = coalesce(?, assistant_hash), error = coalesce(?, error),"
    " updated_at_ms = ? WHERE call_id = ?"
)
# A call saved again keeps its request: a different one updates no row.
UPSERT_CALL = (
    f"INSERT INTO llm_calls ({LLM_CALL_COLUMNS}, created_at_ms, updated_at_ms)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (call_id) DO UPDATE SET"
    " status = excluded.status, attempts = CASE WHEN excluded.attempts > llm_calls.attempts"
    " THEN excluded.attempts ELSE llm_calls.attempts END,"
    " assistant_hash = coalesce(excluded.assistant_hash, llm_calls.assistant_hash),"
    " error = coalesce(excluded.error, llm_calls.error), updated_at_ms = excluded.updated_at_ms"
    " WHERE llm_calls.request_hash = excluded.request_hash"
)
# A system prompt or tool list is stored once per distinct value.
INSERT_REQUEST_PART = (
    "INSERT INTO request_parts (part_hash, body) VALUES (?, ?) ON CONFLICT (part_hash) DO NOTHING"
)
# A completed operation keeps its first result.
UPSERT_OPERATION = (
    f"INSERT INTO client_operations ({OPERATION_COLUMNS}, created_at_ms, updated_at_ms)"
    " VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (operation_id) DO UPDATE SET"
    " status = CASE WHEN client_operations.status = 'completed'"
    " THEN client_operations.status ELSE excluded.status END,"
    " result_json = coalesce(client_operations.result_json, excluded.result_json),"
    " updated_at_ms = excluded.updated_at_ms"
)


def _decode_state(row: Any, rows: list[dict[str, Any] | bytes]) -> Loaded:
    # A shared tuple from the start: the loop appends to it without a copy.
    messages = SharedTuple(
        message_from_json(r if isinstance(r, dict) else canonical_loads(r)) for r in rows
    )
    return Loaded(state_from_json(canonical_loads(row[1]), messages), row[0])


def _image(db: Executor, digest: str) -> bytes | None:
    found = db.execute("SELECT data FROM images WHERE sha256 = ?", (digest,)).fetchone()
    return None if found is None else bytes(found[0])


def now_ms() -> int:
    return int(time.time() * 1000)


class SQLStore(
    UserRows, UsageRows, ConversationPages, CallRows, SessionRows, TimelineReads, ForkRows, ABC
):
    """A `Store` over any SQL database that takes the statements above."""

    serial_writer: bool = False
    """One writer connection serializes commits (set where that holds)."""
    lock_row: ClassVar[str] = ""
    """Appended to the read of the conversation row a commit checks."""
    insertion_order: ClassVar[str] = "rowid"
    """The column that orders a conversation's model calls as they were saved."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]:
        """One read-only transaction, so a multi-query read is consistent."""

    @abstractmethod
    def _transaction(self, flush: bool = True) -> AbstractContextManager[Executor]:
        """One write transaction: committed on exit, rolled back on an error.
        `flush=False`: the commit may return before it is on disk (see
        `Store.commit_input`); a process crash still keeps it."""

    @abstractmethod
    def close(self) -> None:
        """Release the connections; the store is not used again."""

    # -- conversations -----------------------------------------------------------

    def load(self, conversation_id: str) -> Loaded | None:
        with self._read() as db:
            stored = self._read_state(db, conversation_id)
        return None if stored is None else _decode_state(*stored)

    def load_for_input(
        self, conversation_id: str, input_id: str
    ) -> tuple[Loaded | None, InputCommit | None]:
        """`load` and `find_input_commit` in one read transaction. A
        conversation with no row has no committed input: an input commit is
        written in the transaction that writes its conversation's row."""
        with self._read() as db:
            stored = self._read_state(db, conversation_id)
            found = None if stored is None else self._find(db, conversation_id, input_id)
        return (None if stored is None else _decode_state(*stored)), found

    @staticmethod
    def _read_state(
        db: Executor, conversation_id: str
    ) -> tuple[Any, list[dict[str, Any] | bytes]] | None:
        """The conversation row and its message rows, with the images they
        name put back (`store.images`; decoded after the read)."""
        row = db.execute(
            "SELECT version, state_json, message_count FROM conversations"
            " WHERE conversation_id = ?",
            (conversation_id,),
        ).fetchone()
        if row is None:
            return None
        # Bounded by the row's count: a commit landing between the two
        # reads adds messages this version does not have.
        rows = db.execute(
            "SELECT message_json FROM messages WHERE conversation_id = ? AND idx < ? ORDER BY idx",
            (conversation_id, row[2]),
        ).fetchall()

        return row, load_rows((r[0] for r in rows), partial(_image, db))

    def lookup_now(self, conversation_id: str, input_id: str) -> QuickLookup | None:
        """A networked database always makes the caller wait."""
        return None

    @staticmethod
    def _lookup(db: Executor, conversation_id: str, input_id: str) -> QuickLookup:
        row = db.execute(LOOKUP_INPUT, (input_id, conversation_id)).fetchone()
        if row is None:
            return QuickLookup(stored=False, found=None)
        if row[0] is None:
            return QuickLookup(stored=True, found=None)
        return QuickLookup(True, InputCommit(input_id, row[0], canonical_loads(row[1])))

    def find_input_commit(self, conversation_id: str, input_id: str) -> InputCommit | None:
        with self._read() as db:
            return self._find(db, conversation_id, input_id)

    @staticmethod
    def _find(db: Executor, conversation_id: str, input_id: str) -> InputCommit | None:
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
        with self._transaction(flush) as db:
            commit = (input_id, expected_version, next_state, result, llm_calls, operations)
            return self._commit(db, CommitRequest(*commit))

    def commit_new_input(
        self,
        input_id: str,
        expected_version: int,
        next_state: ConversationState,
        result: JSONValue,
        llm_calls: Sequence[LLMCallRecord | CallStatusUpdate] = (),
        operations: Sequence[ClientOperationRecord] = (),
        flush: bool = True,
    ) -> int | InputCommit:
        """`commit_input`, unless the input was committed before: then that
        commit, and nothing is written. The lookup is the write transaction's
        first read, on the writer's connection (whose cache no other writer
        makes stale), rather than a read transaction of its own."""
        with self._transaction(flush) as db:
            commit = (input_id, expected_version, next_state, result, llm_calls, operations)
            return self._commit_request(db, CommitRequest(*commit, checked=True))

    def commit_batch(self, requests: Sequence[CommitRequest]) -> list[BatchAnswer]:
        with self._transaction(any(request.flush for request in requests)) as db:
            return self._batch(db, requests)

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        """A networked database always makes the caller wait."""
        return None

    def _batch(self, db: Executor, requests: Sequence[CommitRequest]) -> list[BatchAnswer]:
        """Each request in a savepoint of its own, inside `db`'s transaction."""
        answers: list[BatchAnswer] = []
        for request in requests:
            db.execute("SAVEPOINT one_input")
            try:
                answers.append(self._commit_request(db, request))
            except Exception as refused:  # noqa: BLE001 (that request's answer)
                # A refusal, or an error of this request's own (a value
                # that cannot be stored, a constraint): rolled back alone.
                # If the transaction itself broke, this rollback raises.
                db.execute("ROLLBACK TO SAVEPOINT one_input")
                answers.append(refused)
            db.execute("RELEASE SAVEPOINT one_input")
        return answers

    def _commit_request(self, db: Executor, request: CommitRequest) -> int | InputCommit:
        """The request's commit; a `checked` one's earlier commit instead,
        looked up first in the same write transaction."""
        if request.checked:
            found = self._find(db, request.next_state.conversation_id, request.input_id)
            if found is not None:
                return found
        return self._commit(db, request)

    def _commit(self, db: Executor, request: CommitRequest) -> int:
        input_id, expected_version = request.input_id, request.expected_version
        next_state, result = request.next_state, request.result
        conversation_id = next_state.conversation_id
        row = db.execute(
            "SELECT version, message_count, messages_hash FROM conversations"
            " WHERE conversation_id = ?" + self.lock_row,
            (conversation_id,),
        ).fetchone()
        head = StoredHead(*row) if row is not None else None
        messages, images = new_message_rows(head, expected_version, next_state)
        state = (
            next_state.status.value,
            len(next_state.messages),
            next_state.messages_hash,
            state_bytes(next_state),
        )
        now = now_ms()
        if head is None:
            row = (conversation_id, *state, now, now, owner_of(conversation_id))
            written = db.execute(INSERT_CONVERSATION, row)
        else:
            written = db.execute(
                UPDATE_CONVERSATION, (*state, now, conversation_id, expected_version)
            )
        if written.rowcount != 1:
            raise VersionConflict(f"conversation {conversation_id!r} changed")
        db.executemany(INSERT_IMAGE, images)
        db.executemany(INSERT_MESSAGE, messages)
        version = expected_version + 1
        recorded = db.execute(
            INSERT_INPUT_COMMIT,
            (conversation_id, input_id, version, canonical_dumps(result), now),
        )
        if recorded.rowcount != 1:
            raise VersionConflict(f"input {input_id!r} is already committed")
        for call in request.llm_calls:
            self._upsert_llm_call(db, call)
        for operation in request.operations:
            self._upsert_operation(db, operation, now)
        for parent, point in request.forks:
            self._insert_fork(db, conversation_id, parent, point, input_id, now)
        return version

    def active_conversations(self) -> list[str]:
        marks = ",".join("?" * len(IDLE))
        with self._read() as db:
            rows = db.execute(
                f"SELECT conversation_id FROM conversations WHERE status NOT IN ({marks})"
                " ORDER BY updated_at_ms, conversation_id",
                IDLE,
            ).fetchall()
        return [r[0] for r in rows]

    def conversations(self, owner: int | None = None) -> list[ConversationSummary]:
        mine = "" if owner is None else " WHERE owner = ?"
        with self._read() as db:
            rows = db.execute(
                "SELECT conversation_id, version, status, message_count, updated_at_ms, owner"
                # Ties (two writes in one millisecond) broken by id, as
                # the dashboard's pages break them: one order for every
                # query, whatever plan the database picks for it.
                f" FROM conversations{mine} ORDER BY updated_at_ms DESC, conversation_id DESC",
                () if owner is None else (owner,),
            ).fetchall()
        return [ConversationSummary(*r) for r in rows]

    # -- model calls ------------------------------------------------------------------

    def save_llm_call(self, record: LLMCallRecord | CallStatusUpdate) -> None:
        with self._transaction() as db:
            self._upsert_llm_call(db, record)

    @staticmethod
    def _upsert_llm_call(db: Executor, record: LLMCallRecord | CallStatusUpdate) -> None:
        if isinstance(record, CallStatusUpdate):
            if db.execute(UPDATE_CALL_STATUS, call_update_params(record, now_ms())).rowcount != 1:
                raise StoreError(f"no saved call {record.call_id!r} to update")
            UsageRows._settle(db, record.call_id, record.status.value, record.usage)
            CallRows._record_calls(db, record.attempts_made)
        else:
            parts = request_part_rows(record)
            if parts:
                db.executemany(INSERT_REQUEST_PART, parts)
            now = now_ms()
            if db.execute(UPSERT_CALL, llm_call_row(record, now)).rowcount != 1:
                raise RequestMismatch(f"call {record.call_id!r} was saved with another request")
            owner = owner_of(record.conversation_id)
            CallRows._note_model(db, record.conversation_id, record.model, owner, now)

    def get_llm_call(self, call_id: str) -> LLMCallRecord | None:
        with self._read() as db:
            row = db.execute(f"{LLM_CALL_SELECT} WHERE c.call_id = ?", (call_id,)).fetchone()
        return None if row is None else llm_call_from_row(row)

    def llm_calls(self, conversation_id: str) -> list[LLMCallRecord]:
        with self._read() as db:
            rows = db.execute(
                f"{LLM_CALL_SELECT} WHERE c.conversation_id = ? ORDER BY c.{self.insertion_order}",
                (conversation_id,),
            ).fetchall()
        return [llm_call_from_row(row) for row in rows]

    # -- client operations --------------------------------------------------------------

    def save_client_operation(self, record: ClientOperationRecord) -> None:
        with self._transaction() as db:
            self._upsert_operation(db, record, now_ms())

    @staticmethod
    def _upsert_operation(db: Executor, record: ClientOperationRecord, now: int) -> None:
        """The operation, its result's images stored once (`store.images`)."""
        result, images = stored_result(record.result)
        db.executemany(INSERT_IMAGE, images)
        db.execute(UPSERT_OPERATION, operation_row(replace(record, result=result), now))

    def get_client_operation(self, operation_id: str) -> ClientOperationRecord | None:
        with self._read() as db:
            row = db.execute(
                f"SELECT {OPERATION_COLUMNS} FROM client_operations WHERE operation_id = ?",
                (operation_id,),
            ).fetchone()
            if row is None:
                return None
            record = operation_from_row(row)
            return replace(record, result=loaded_result(record.result, partial(_image, db)))

    # -- health ------------------------------------------------------------------------

    def ping(self) -> None:
        """Raise StoreError unless the database answers a query now."""
        with self._read() as db:
            db.execute("SELECT 1").fetchone()
