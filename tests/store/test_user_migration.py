"""A database written before there were users (SQLite schema 3, PostgreSQL
schema 6) keeps every conversation when it is opened: each now the
administrator's, under the same id, loading as it did and taking new turns."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from cursor_byok.loop import ConversationState, RuntimeState, Status, transition
from cursor_byok.store import postgres_schema
from cursor_byok.store.migrations import MIGRATIONS
from cursor_byok.store.owners import ADMIN_USER_ID
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import fresh, start
from tests.store.conftest import Backend

CONVERSATIONS = ("conv-a", "conv-b")
CONVERSATION_COLUMNS = (
    "conversation_id, version, status, message_count, messages_hash, state_json,"
    " created_at_ms, updated_at_ms"
)
MESSAGE_COLUMNS = "conversation_id, idx, message_json, message_hash"


def written_rows(tmp_path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Conversation and message rows as this program writes them: two
    conversations, the first with two turns."""
    store = SQLiteStore(tmp_path / "scratch.sqlite3")
    for conversation_id in CONVERSATIONS:
        state = transition(fresh(conversation_id), start(f"hello {conversation_id}")).state
        store.commit_input("in-1", 0, state.committed, None)
    loaded = store.load("conv-a")
    assert loaded is not None
    again = transition(loaded_runtime(loaded.state), start("and again", 2)).state
    store.commit_input("in-2", loaded.version, again.committed, None)
    store.close()
    with sqlite3.connect(tmp_path / "scratch.sqlite3") as db:
        conversations = db.execute(f"SELECT {CONVERSATION_COLUMNS} FROM conversations").fetchall()
        messages = db.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages").fetchall()
    return conversations, messages


def loaded_runtime(state: ConversationState) -> RuntimeState:
    """A loaded conversation, its turn over, ready for the next message."""
    return RuntimeState(replace(state, status=Status.READY))


def old_database(backend: Backend, tmp_path: Path) -> None:
    """The database as the schema before users left it, with those rows in it."""
    conversations, messages = written_rows(tmp_path)
    insert_conversation = (
        f"INSERT INTO conversations ({CONVERSATION_COLUMNS}) VALUES ({','.join('?' * 8)})"
    )
    insert_message = f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?)"
    if isinstance(backend.database, Path):
        db = sqlite3.connect(backend.database)
        for migration in MIGRATIONS[:3]:
            db.executescript(migration)
        db.execute("PRAGMA user_version = 3")
        db.executemany(insert_conversation, conversations)
        db.executemany(insert_message, messages)
        db.commit()
        db.close()
        return
    import psycopg  # noqa: PLC0415

    conn: psycopg.Connection[Any]
    with psycopg.connect(backend.database.url) as conn:
        conn.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
            " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        for version, migration in enumerate(postgres_schema.MIGRATIONS[:6], start=1):
            conn.execute(migration.encode())
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
        cursor = conn.cursor()
        cursor.executemany(insert_conversation.replace("?", "%s").encode(), conversations)
        cursor.executemany(insert_message.replace("?", "%s").encode(), messages)
        conn.execute(
            "INSERT INTO relayed_appends (request_id, seqno, payload) VALUES ('req-1', 0, 'x')"
        )


def test_every_conversation_is_kept_and_is_now_the_administrators(
    backend: Backend, tmp_path: Path
) -> None:
    old_database(backend, tmp_path)
    reference = SQLiteStore(tmp_path / "scratch.sqlite3")
    store = backend.open()
    try:
        summaries = store.conversations()
        assert sorted(s.conversation_id for s in summaries) == sorted(CONVERSATIONS)
        assert {s.owner for s in summaries} == {ADMIN_USER_ID}
        assert [s.conversation_id for s in store.conversations(ADMIN_USER_ID)] == [
            s.conversation_id for s in summaries
        ]
        for conversation_id in CONVERSATIONS:
            assert store.load(conversation_id) == reference.load(conversation_id)
        users = store.users()
        assert [(u.id, u.name, u.is_admin) for u in users] == [(ADMIN_USER_ID, "admin", True)]
        loaded = store.load("conv-b")
        assert loaded is not None
        turn = transition(loaded_runtime(loaded.state), start("after the migration", 3)).state
        assert store.commit_input("in-3", loaded.version, turn.committed, None) == 2
        if not isinstance(backend.database, Path):
            assert backend.rows("SELECT owner FROM relayed_appends") == [(ADMIN_USER_ID,)]
            newest = len(postgres_schema.MIGRATIONS)
            assert backend.rows("SELECT max(version) FROM schema_version") == [(newest,)]
        else:
            assert backend.rows("PRAGMA user_version") == [(len(MIGRATIONS),)]
    finally:
        store.close()
        reference.close()
