"""Model-call records name their request instead of copying it: the record
does not grow with history, the request comes back byte-identical from the
stored parts, and a part that does not match its hash is a clear failure.
On every backend."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.llm.request_identity import RequestNotRebuilt
from cursor_byok.llm.serialize import request_bytes, sha256_hex
from cursor_byok.llm.types import RequestMessages, ToolDefinition
from cursor_byok.loop import CallLLM, RuntimeState, Status, transition
from cursor_byok.runtime.records import call_record, saved_request
from cursor_byok.store import postgres_schema
from cursor_byok.store.base import CallStatus, LLMCallRecord
from cursor_byok.store.migrations import MIGRATIONS
from cursor_byok.store.sql_store import SQLStore
from tests.factories import fresh, start
from tests.store.conftest import Backend

TOOLS = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)


def planned(state: RuntimeState, text: str) -> tuple[RuntimeState, CallLLM]:
    step = transition(state, start(text))
    assert isinstance(step.command, CallLLM)
    return step.state, step.command


def commit_turns(store: SQLStore, turns: int) -> list[CallLLM]:
    """`turns` user turns on one conversation, each planning a call saved with it."""
    state, commands = fresh(), []
    for n in range(turns):
        state, command = planned(state, f"question {n} " + "x" * 200)
        request = replace(command.request, system_prompt="be brief", tools=TOOLS)
        record = call_record("conv-1", command.call_id, "m", request, command.messages_hash)
        store.commit_input(f"in-{n}", n, state.committed, None, [record])
        commands.append(replace(command, request=request))
        state = RuntimeState(replace(state.committed, status=Status.READY))
    return commands


def test_a_record_stays_the_same_size_as_history_grows(store: SQLStore, backend: Backend) -> None:
    commands = commit_turns(store, 30)
    sizes = dict(
        backend.rows(
            "SELECT call_id, length(request_json) + length(request_hash) + length(messages_hash)"
            " FROM llm_calls"
        )
    )
    assert len(sizes) == 30
    # call 30 costs what call 1 costs
    assert sizes[commands[0].call_id] == sizes[commands[-1].call_id]
    # one system prompt and one tool list, however many calls use them
    assert backend.rows("SELECT count(*) FROM request_parts") == [(2,)]
    loaded = store.load("conv-1")
    assert loaded is not None
    for command in (commands[0], commands[-1]):
        saved = store.get_llm_call(command.call_id)
        assert saved is not None and saved.message_count == len(command.request.messages)
        rebuilt = saved_request(saved, loaded.state.messages)
        assert request_bytes(rebuilt) == request_bytes(command.request)


def test_a_part_that_does_not_match_its_hash_is_refused(store: SQLStore) -> None:
    (command,) = commit_turns(store, 1)
    saved = store.get_llm_call(command.call_id)
    loaded = store.load("conv-1")
    assert saved is not None and loaded is not None
    history = loaded.state.messages
    with pytest.raises(RequestNotRebuilt, match="system prompt or tools"):
        saved_request(replace(saved, system=b'"be verbose"'), history)
    with pytest.raises(RequestNotRebuilt, match="messages hash differently"):
        saved_request(replace(saved, messages_hash=sha256_hex(b"other")), history)
    with pytest.raises(RequestNotRebuilt, match="had 1 messages"):
        saved_request(saved, ())
    with pytest.raises(RequestNotRebuilt, match="hashes differently"):
        saved_request(replace(saved, legacy_request=b"{}"), history)


def _version_1_database(backend: Backend, copy: bytes) -> None:
    """A database as the first schema left it: calls carry full copies."""
    rows = [
        (call_id, copy, sha256_hex(copy), status)
        for call_id, status in (("c:call:1", "committed"), ("c:call:2", "planned"))
    ]
    insert = (
        "INSERT INTO llm_calls (call_id, conversation_id, model, request_json, request_hash,"
        " messages_hash, message_count, last_message_hash, status, attempts, assistant_hash,"
        " error, created_at_ms, updated_at_ms)"
        " VALUES (?, 'c', 'm', ?, ?, 'h', 1, NULL, ?, 1, NULL, NULL, 0, 0)"
    )
    if isinstance(backend.database, Path):
        db = sqlite3.connect(backend.database)
        db.executescript(MIGRATIONS[0])
        db.execute("PRAGMA user_version = 1")
        db.executemany(insert, rows)
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
        conn.execute(postgres_schema.MIGRATIONS[0].encode())
        conn.execute("INSERT INTO schema_version (version) VALUES (1)")
        conn.cursor().executemany(insert.replace("?", "%s").encode(), rows)


def test_the_migration_keeps_copies_only_for_calls_in_flight(backend: Backend) -> None:
    request = RequestMessages(system_prompt="s", messages=(), tools=TOOLS)
    copy = request_bytes(request)
    _version_1_database(backend, copy)
    store = backend.open()
    ended, in_flight = store.get_llm_call("c:call:1"), store.get_llm_call("c:call:2")
    assert isinstance(ended, LLMCallRecord) and isinstance(in_flight, LLMCallRecord)
    assert ended.legacy_request == b"" and ended.status is CallStatus.COMMITTED
    assert in_flight.legacy_request == copy
    assert request_bytes(saved_request(in_flight, ())) == copy
    store.close()


def test_a_call_saved_again_with_its_own_identity_is_accepted(store: SQLStore) -> None:
    state, command = planned(fresh(), "hi")
    again = call_record("conv-1", command.call_id, "m", command.request, command.messages_hash)
    store.commit_input("in-1", 0, state.committed, None, [again])
    store.save_llm_call(again)  # a duplicate save is harmless
    saved = store.get_llm_call(command.call_id)
    assert saved is not None and saved.request_hash == again.request_hash
