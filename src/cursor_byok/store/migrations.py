"""Schema migrations, applied in order at start-up.

The schema version lives in SQLite's `user_version` (PostgreSQL's in a
`schema_version` table, see `postgres_schema`). A migration is never edited
once released; a change is a new entry at the end of `MIGRATIONS`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

MIGRATIONS: tuple[str, ...] = (
    # 1: the seed's tables, with history append-only in its own table.
    """
    CREATE TABLE conversations (
        conversation_id TEXT PRIMARY KEY,
        version         INTEGER NOT NULL,
        status          TEXT NOT NULL,
        message_count   INTEGER NOT NULL,
        messages_hash   TEXT NOT NULL,
        state_json      BLOB NOT NULL,
        created_at_ms   INTEGER NOT NULL,
        updated_at_ms   INTEGER NOT NULL
    );
    CREATE INDEX conversations_by_status ON conversations (status);
    CREATE TABLE messages (
        conversation_id TEXT NOT NULL REFERENCES conversations (conversation_id),
        idx             INTEGER NOT NULL,
        message_json    BLOB NOT NULL,
        message_hash    TEXT NOT NULL,
        PRIMARY KEY (conversation_id, idx)
    ) WITHOUT ROWID;
    CREATE TABLE input_commits (
        conversation_id   TEXT NOT NULL,
        input_id          TEXT NOT NULL,
        committed_version INTEGER NOT NULL,
        result_json       BLOB NOT NULL,
        committed_at_ms   INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, input_id)
    ) WITHOUT ROWID;
    CREATE TABLE llm_calls (
        call_id           TEXT PRIMARY KEY,
        conversation_id   TEXT NOT NULL,
        model             TEXT NOT NULL,
        request_json      BLOB NOT NULL,
        request_hash      TEXT NOT NULL,
        messages_hash     TEXT NOT NULL,
        message_count     INTEGER NOT NULL,
        last_message_hash TEXT,
        status            TEXT NOT NULL,
        attempts          INTEGER NOT NULL,
        assistant_hash    TEXT,
        error             TEXT,
        created_at_ms     INTEGER NOT NULL,
        updated_at_ms     INTEGER NOT NULL
    );
    CREATE INDEX llm_calls_by_conversation ON llm_calls (conversation_id);
    CREATE TABLE client_operations (
        operation_id    TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        turn_id         TEXT NOT NULL,
        tool_call_id    TEXT NOT NULL,
        tool_index      INTEGER NOT NULL,
        request_json    BLOB NOT NULL,
        status          TEXT NOT NULL,
        result_json     BLOB,
        created_at_ms   INTEGER NOT NULL,
        updated_at_ms   INTEGER NOT NULL
    );
    CREATE TABLE stream_diagnostics (
        call_id     TEXT NOT NULL,
        event_index INTEGER NOT NULL,
        event_json  BLOB NOT NULL,
        PRIMARY KEY (call_id, event_index)
    ) WITHOUT ROWID;
    """,
    # 2: model calls name their request instead of copying it. System prompts
    # and tool lists are stored once per distinct value; ended calls never
    # send again, so their copies go (a call still in flight keeps its copy).
    """
    CREATE TABLE request_parts (
        part_hash TEXT PRIMARY KEY,
        body      BLOB NOT NULL
    ) WITHOUT ROWID;
    ALTER TABLE llm_calls ADD COLUMN system_hash TEXT;
    ALTER TABLE llm_calls ADD COLUMN tools_hash TEXT;
    UPDATE llm_calls SET request_json = x''
        WHERE status IN ('committed', 'failed', 'canceled');
    """,
    # 3: images in history are stored once, named by the SHA-256 of their
    # bytes (store/images.py). A rowid table: its rows are large.
    """
    CREATE TABLE images (
        sha256 TEXT PRIMARY KEY,
        data   BLOB NOT NULL
    );
    """,
    # 4: users, each with a token of their own (only its slow hash is kept,
    # store/tokens.py), and each conversation's owner. User 1 is the
    # administrator (the configured access token's), whose conversations
    # are all those stored before.
    """
    CREATE TABLE users (
        user_id         INTEGER PRIMARY KEY,
        name            TEXT NOT NULL UNIQUE,
        is_admin        INTEGER NOT NULL DEFAULT 0,
        token_id        TEXT UNIQUE,
        token_hash      TEXT,
        models          TEXT,
        budget_usd      REAL,
        budget_period   TEXT,
        created_at_ms   INTEGER NOT NULL,
        last_used_at_ms INTEGER,
        revoked_at_ms   INTEGER
    );
    INSERT INTO users (user_id, name, is_admin, created_at_ms)
        VALUES (1, 'admin', 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
    ALTER TABLE conversations ADD COLUMN owner INTEGER NOT NULL DEFAULT 1;
    CREATE INDEX conversations_by_owner ON conversations (owner, updated_at_ms);
    """,
    # 5: usage per user, model and UTC day (a row per call would grow with
    # every call; these grow with days), each call counted once (its
    # `usage_day`, set with the row), and the budget held by calls in flight
    # (store/usage_rows.py).
    """
    CREATE TABLE usage_daily (
        user_id            INTEGER NOT NULL,
        day                TEXT NOT NULL,
        model              TEXT NOT NULL,
        calls              INTEGER NOT NULL,
        input_tokens       INTEGER NOT NULL,
        output_tokens      INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        cost_usd           REAL NOT NULL,
        unpriced_calls     INTEGER NOT NULL,
        ttft_ms_total      INTEGER NOT NULL,
        ttft_calls         INTEGER NOT NULL,
        duration_ms_total  INTEGER NOT NULL,
        PRIMARY KEY (user_id, day, model)
    ) WITHOUT ROWID;
    CREATE INDEX usage_daily_by_day ON usage_daily (day, user_id, model);
    CREATE TABLE budget_reservations (
        call_id       TEXT PRIMARY KEY,
        user_id       INTEGER NOT NULL,
        amount_usd    REAL NOT NULL,
        expires_at_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX budget_reservations_by_user ON budget_reservations (user_id, expires_at_ms);
    ALTER TABLE llm_calls ADD COLUMN usage_day TEXT;
    """,
    # 6: a row per attempt of each model call, written with the call's end
    # (store/call_rows.py); which conversations called which model, for the
    # dashboard's list filtered by model (filled from the calls stored
    # before); and the dashboard's sign-in sessions, shared by every
    # process (store/ui_sessions.py: only a hash of each id).
    """
    CREATE TABLE model_calls (
        call_id            TEXT NOT NULL,
        attempt            INTEGER NOT NULL,
        conversation_id    TEXT NOT NULL,
        turn_id            TEXT NOT NULL,
        step               INTEGER NOT NULL,
        model              TEXT NOT NULL,
        user_id            INTEGER NOT NULL,
        started_at_ms      INTEGER NOT NULL,
        ttft_ms            INTEGER,
        duration_ms        INTEGER NOT NULL,
        input_tokens       INTEGER NOT NULL,
        output_tokens      INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        cost_usd           REAL,
        outcome            TEXT NOT NULL,
        error              TEXT,
        PRIMARY KEY (call_id, attempt)
    );
    CREATE INDEX model_calls_by_conversation ON model_calls (conversation_id, step, started_at_ms);
    CREATE TABLE conversation_models (
        conversation_id TEXT NOT NULL,
        model           TEXT NOT NULL,
        owner           INTEGER NOT NULL,
        last_call_ms    INTEGER NOT NULL,
        PRIMARY KEY (conversation_id, model)
    ) WITHOUT ROWID;
    CREATE INDEX conversation_models_by_model
        ON conversation_models (model, last_call_ms, conversation_id);
    CREATE INDEX conversation_models_by_owner
        ON conversation_models (owner, model, last_call_ms, conversation_id);
    INSERT INTO conversation_models (conversation_id, model, owner, last_call_ms)
        SELECT l.conversation_id, l.model, c.owner, max(l.created_at_ms)
        FROM llm_calls l JOIN conversations c ON c.conversation_id = l.conversation_id
        GROUP BY l.conversation_id, l.model, c.owner;
    CREATE TABLE dashboard_sessions (
        session_hash  TEXT PRIMARY KEY,
        user_id       INTEGER NOT NULL,
        token_id      TEXT NOT NULL,
        expires_at_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id);
    """,
)


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of this program."""


def pending(current: int, migrations: tuple[str, ...]) -> range:
    """The indexes of the migrations a schema at `current` still needs."""
    if current > len(migrations):
        raise SchemaTooNew(
            f"database schema version {current} is newer than this program"
            f" supports ({len(migrations)}); upgrade cursor-byok"
        )
    return range(current, len(migrations))


def statements(migration: str) -> Iterator[str]:
    """One migration's statements, one at a time (no `;` inside a statement)."""
    return (statement for statement in migration.split(";") if statement.strip())


def migrate(db: sqlite3.Connection) -> int:
    """Bring the schema up to date; return the version now in force."""
    db.execute("BEGIN IMMEDIATE")
    try:
        current = db.execute("PRAGMA user_version").fetchone()[0]
        for version in pending(current, MIGRATIONS):
            for statement in statements(MIGRATIONS[version]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {version + 1}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return len(MIGRATIONS)
