"""Model-call records name their request instead of copying it: the record
does not grow with history, the request comes back byte-identical from the
stored parts, and a part that does not match its hash is a clear failure."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.llm.request_identity import RequestNotRebuilt
from cursor_byok.llm.serialize import request_bytes, sha256_hex
from cursor_byok.llm.types import RequestMessages, ToolDefinition
from cursor_byok.loop import CallLLM, RuntimeState, Status, transition
from cursor_byok.runtime.records import call_record, saved_request
from cursor_byok.store.base import CallStatus, LLMCallRecord
from cursor_byok.store.migrations import MIGRATIONS
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import fresh, start

TOOLS = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)


def planned(state: RuntimeState, text: str) -> tuple[RuntimeState, CallLLM]:
    step = transition(state, start(text))
    assert isinstance(step.command, CallLLM)
    return step.state, step.command


def commit_turns(store: SQLiteStore, turns: int) -> list[CallLLM]:
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


def test_a_record_stays_the_same_size_as_history_grows(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = SQLiteStore(path)
    commands = commit_turns(store, 30)
    db = sqlite3.connect(path)
    sizes = db.execute(
        "SELECT length(request_json) + length(request_hash) + length(messages_hash)"
        " FROM llm_calls ORDER BY rowid"
    ).fetchall()
    assert sizes[0] == sizes[-1]  # call 30 costs what call 1 costs
    # one system prompt and one tool list, however many calls use them
    assert db.execute("SELECT count(*) FROM request_parts").fetchone()[0] == 2
    loaded = store.load("conv-1")
    assert loaded is not None
    for command in (commands[0], commands[-1]):
        saved = store.get_llm_call(command.call_id)
        assert saved is not None and saved.message_count == len(command.request.messages)
        rebuilt = saved_request(saved, loaded.state.messages)
        assert request_bytes(rebuilt) == request_bytes(command.request)


def test_a_part_that_does_not_match_its_hash_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = SQLiteStore(path)
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


def _version_1_database(path: Path, copy: bytes) -> None:
    """A database as the first schema left it: calls carry full copies."""
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("PRAGMA user_version = 1")
    for call_id, status in (("c:call:1", "committed"), ("c:call:2", "planned")):
        db.execute(
            "INSERT INTO llm_calls VALUES"
            " (?, 'c', 'm', ?, ?, 'h', 1, NULL, ?, 1, NULL, NULL, 0, 0)",
            (call_id, copy, sha256_hex(copy), status),
        )
    db.commit()
    db.close()


def test_the_migration_keeps_copies_only_for_calls_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    request = RequestMessages(system_prompt="s", messages=(), tools=TOOLS)
    copy = request_bytes(request)
    _version_1_database(path, copy)
    store = SQLiteStore(path)
    ended, in_flight = store.get_llm_call("c:call:1"), store.get_llm_call("c:call:2")
    assert isinstance(ended, LLMCallRecord) and isinstance(in_flight, LLMCallRecord)
    assert ended.legacy_request == b"" and ended.status is CallStatus.COMMITTED
    assert in_flight.legacy_request == copy
    assert request_bytes(saved_request(in_flight, ())) == copy


def test_a_call_saved_again_with_its_own_identity_is_accepted(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3")
    state, command = planned(fresh(), "hi")
    again = call_record("conv-1", command.call_id, "m", command.request, command.messages_hash)
    store.commit_input("in-1", 0, state.committed, None, [again])
    store.save_llm_call(again)  # a duplicate save is harmless
    saved = store.get_llm_call(command.call_id)
    assert saved is not None and saved.request_hash == again.request_hash
