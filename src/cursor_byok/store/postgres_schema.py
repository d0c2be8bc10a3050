"""PostgreSQL schema migrations, applied in order at start-up.

The same tables as SQLite's (`migrations.py`), in PostgreSQL's types: BYTEA
for exact bytes, BIGINT for times and counts, and an identity column that
orders a conversation's model calls as SQLite's rowid does. The version in
force is the highest row of `schema_version` (one row per applied
migration). Several processes may start at once on one database: the
migration runs under a transaction-scoped advisory lock, so exactly one
applies each step and the others see it done.
"""

from __future__ import annotations

from typing import Any

import psycopg

from cursor_byok.store.migrations import pending, statements

MIGRATIONS: tuple[str, ...] = (
    # 1: the tables of SQLite's migration 1.
    """
    CREATE TABLE conversations (
        conversation_id TEXT PRIMARY KEY, version BIGINT NOT NULL, status TEXT NOT NULL,
        message_count BIGINT NOT NULL, messages_hash TEXT NOT NULL, state_json BYTEA NOT NULL,
        created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL
    );
    CREATE INDEX conversations_by_status ON conversations (status);
    CREATE TABLE messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (conversation_id),
        idx BIGINT NOT NULL, message_json BYTEA NOT NULL, message_hash TEXT NOT NULL,
        PRIMARY KEY (conversation_id, idx)
    );
    CREATE TABLE input_commits (
        conversation_id TEXT NOT NULL, input_id TEXT NOT NULL,
        committed_version BIGINT NOT NULL, result_json BYTEA NOT NULL,
        committed_at_ms BIGINT NOT NULL, PRIMARY KEY (conversation_id, input_id)
    );
    CREATE TABLE llm_calls (
        call_id TEXT PRIMARY KEY, seq BIGINT GENERATED ALWAYS AS IDENTITY,
        conversation_id TEXT NOT NULL, model TEXT NOT NULL, request_json BYTEA NOT NULL,
        request_hash TEXT NOT NULL, messages_hash TEXT NOT NULL, message_count BIGINT NOT NULL,
        last_message_hash TEXT, status TEXT NOT NULL, attempts INTEGER NOT NULL,
        assistant_hash TEXT, error TEXT,
        created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL
    );
    CREATE INDEX llm_calls_by_conversation ON llm_calls (conversation_id, seq);
    CREATE TABLE client_operations (
        operation_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, turn_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL, tool_index INTEGER NOT NULL, request_json BYTEA NOT NULL,
        status TEXT NOT NULL, result_json BYTEA,
        created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL
    );
    CREATE TABLE stream_diagnostics (
        call_id TEXT NOT NULL, event_index BIGINT NOT NULL, event_json BYTEA NOT NULL,
        PRIMARY KEY (call_id, event_index)
    );
    """,
    # 2: SQLite's migration 2: model calls name their request instead of
    # copying it; system prompts and tool lists are stored once per value;
    # ended calls never send again, so their copies go.
    """
    CREATE TABLE request_parts (part_hash TEXT PRIMARY KEY, body BYTEA NOT NULL);
    ALTER TABLE llm_calls ADD COLUMN system_hash TEXT;
    ALTER TABLE llm_calls ADD COLUMN tools_hash TEXT;
    UPDATE llm_calls SET request_json = ''::bytea
        WHERE status IN ('committed', 'failed', 'canceled');
    """,
    # 3: one owner process per conversation (cluster/postgres_lease.py).
    """
    CREATE TABLE conversation_leases (
        conversation_id TEXT PRIMARY KEY, owner TEXT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
    );
    """,
    # 4: appends received by a process their stream is not on (cluster/postgres_relay.py).
    """
    CREATE TABLE relayed_appends (
        request_id TEXT NOT NULL, seqno BIGINT NOT NULL, payload BYTEA NOT NULL,
        stored_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (request_id, seqno)
    );
    CREATE INDEX relayed_appends_by_age ON relayed_appends (stored_at);
    """,
    # 5: output of a request hosted by a process other than its stream's
    # (cluster/postgres_relay.py): protobuf bytes, or the end of the stream.
    """
    CREATE TABLE relayed_output (
        request_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL,
        payload BYTEA NOT NULL, stored_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (request_id, seq)
    );
    CREATE INDEX relayed_output_by_age ON relayed_output (stored_at);
    """,
    # 6: SQLite's migration 3: images in history are stored once, named by
    # the SHA-256 of their bytes (store/images.py).
    """
    CREATE TABLE images (sha256 TEXT PRIMARY KEY, data BYTEA NOT NULL);
    """,
)

# Any fixed number will do; it only has to be the same in every process.
MIGRATION_LOCK = 0x637572736F72  # "cursor"


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Bring the schema up to date; return the version now in force."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY,"
            " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
        current = int(row[0]) if row is not None else 0
        for version in pending(current, MIGRATIONS):
            for statement in statements(MIGRATIONS[version]):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version + 1,))
    return len(MIGRATIONS)
