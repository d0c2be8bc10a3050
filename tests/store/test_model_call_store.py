"""What the store keeps of each model call's attempts, of which conversations
called which model (filled for the calls stored before, by the migration
that adds it), and of the dashboard's sessions (shared by every process:
one store signs in, another finds it). On every backend."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from cursor_byok.loop import CallLLM, transition
from cursor_byok.runtime.records import call_record
from cursor_byok.store import postgres_schema
from cursor_byok.store.base import CallStatus, CallStatusUpdate
from cursor_byok.store.call_rows import CallOutcome, ModelCallRow
from cursor_byok.store.migrations import MIGRATIONS
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.tokens import new_token
from cursor_byok.store.ui_session_api import session_hash
from tests.factories import fresh, start
from tests.store.conftest import Backend


def planned(store: SQLStore, key: str, model: str = "sonnet") -> str:
    """A conversation whose first call to `model` is planned; the call's id."""
    step = transition(fresh(key), start("hi"))
    command = step.command
    assert isinstance(command, CallLLM)
    record = call_record(key, command.call_id, model, command.request, command.messages_hash)
    store.commit_input(f"in-{key}", 0, step.state.committed, None, [record])
    return command.call_id


def attempt(call_id: str, number: int, outcome: CallOutcome, cost: float | None) -> ModelCallRow:
    error = "overloaded" if outcome == "retried" else None
    head = (call_id, number, "c", "c:turn:1", 1, "sonnet", 1, 1_000 * number, 40, 90)
    return ModelCallRow(*head, 10, 5, 2, 1, 3, cost, outcome, error)


def test_a_call_s_rows_are_written_once_whatever_is_sent_again(store: SQLStore) -> None:
    call_id = planned(store, "c")
    rows = (attempt(call_id, 1, "retried", None), attempt(call_id, 2, "ok", 0.25))
    ended = CallStatusUpdate(call_id, CallStatus.COMMITTED, 2, attempts_made=rows)
    store.save_llm_call(ended)
    store.save_llm_call(ended)
    assert store.model_calls("c") == list(rows)
    assert store.model_calls("other") == []


def test_the_model_filter_reads_what_the_migration_filled_in(
    backend: Backend, tmp_path: Path
) -> None:
    """A database from before the filter's table: its calls are found by it."""
    source = backend.open()
    planned(source, "old", "gpt")
    calls = [tuple(row) for row in _rows(backend, "SELECT * FROM llm_calls")]
    conversations = _rows(backend, "SELECT * FROM conversations")
    source.close()
    ours = next(i for i, m in enumerate(MIGRATIONS) if "CREATE TABLE model_calls" in m)
    pg_ours = next(
        i for i, m in enumerate(postgres_schema.MIGRATIONS) if "CREATE TABLE model_calls" in m
    )
    _rebuild_before(backend, tmp_path, ours, pg_ours, conversations, calls)
    store = backend.open()
    try:
        (found,) = store.conversation_page([1], 10, None, "gpt")
        assert found.conversation_id == "old"
        assert store.conversation_page([1], 10, None, "sonnet") == []
    finally:
        store.close()


def test_a_session_opened_by_one_store_is_found_by_another(backend: Backend) -> None:
    one, two = backend.open(), backend.open()
    try:
        made = new_token()
        ana = one.add_user("ana", made.token_id, made.token_hash)
        one.open_session(session_hash("s-ana"), ana.id, made.token_id, 1_000, 5_000)
        one.open_session(session_hash("s-admin"), 1, "admin:mark", 1_000, 5_000)
        found = two.find_session(session_hash("s-ana"), 2_000)
        assert found is not None and found.user_id == ana.id
        assert found.token_id == made.token_id
        assert two.find_session(session_hash("s-ana"), 5_001) is None  # expired
        assert two.find_session(session_hash("s-other"), 2_000) is None
        # only a hash of the id is stored
        assert not _rows(backend, "SELECT 1 FROM dashboard_sessions WHERE session_hash = 's-ana'")
        # rotating ana's token ends her sessions, not the administrator's
        again = new_token()
        two.set_token("ana", again.token_id, again.token_hash)
        assert one.find_session(session_hash("s-ana"), 2_000) is None
        assert one.find_session(session_hash("s-admin"), 2_000) is not None
        one.open_session(session_hash("s-ana-2"), ana.id, again.token_id, 1_000, 5_000)
        assert two.find_session(session_hash("s-ana-2"), 2_000) is not None
        one.revoke("ana")
        assert two.find_session(session_hash("s-ana-2"), 2_000) is None
        two.close_session(session_hash("s-admin"))
        assert one.find_session(session_hash("s-admin"), 2_000) is None
        # a new session sweeps the expired ones
        one.open_session(session_hash("s-late"), 1, "admin:mark", 10_000, 20_000)
        assert _rows(backend, "SELECT count(*) FROM dashboard_sessions") == [(1,)]
    finally:
        one.close()
        two.close()


def _rows(backend: Backend, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in backend.rows(sql)]


def _rebuild_before(
    backend: Backend,
    tmp_path: Path,
    ours: int,
    pg_ours: int,
    conversations: list[tuple[Any, ...]],
    calls: list[tuple[Any, ...]],
) -> None:
    """The same rows in a database whose schema stops before the migration
    that adds the filter's table."""
    conversation_marks = ",".join("?" * len(conversations[0]))
    call_marks = ",".join("?" * len(calls[0]))
    if isinstance(backend.database, Path):
        backend.database.unlink()
        db = sqlite3.connect(backend.database)
        for migration in MIGRATIONS[:ours]:
            db.executescript(migration)
        db.execute(f"PRAGMA user_version = {ours}")
        db.executemany(f"INSERT INTO conversations VALUES ({conversation_marks})", conversations)
        db.executemany(f"INSERT INTO llm_calls VALUES ({call_marks})", calls)
        db.commit()
        db.close()
        return
    import psycopg  # noqa: PLC0415

    conn: psycopg.Connection[Any]
    with psycopg.connect(backend.database.url) as conn:
        for table in ("schema_version", *_pg_tables(conn)):
            conn.execute(f'DROP TABLE IF EXISTS "{table}" CASCADE'.encode())
        conn.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
            " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        for version, migration in enumerate(postgres_schema.MIGRATIONS[:pg_ours], start=1):
            conn.execute(migration.encode())
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
        marks = conversation_marks.replace("?", "%s")
        cursor = conn.cursor()
        cursor.executemany(f"INSERT INTO conversations VALUES ({marks})".encode(), conversations)
        call_sql = f"INSERT INTO llm_calls OVERRIDING SYSTEM VALUE VALUES ({call_marks})"
        cursor.executemany(call_sql.replace("?", "%s").encode(), calls)


def _pg_tables(conn: Any) -> list[str]:
    rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return [str(row[0]) for row in rows]
