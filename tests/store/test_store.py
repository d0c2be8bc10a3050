"""The store on every backend (SQLite files, a real PostgreSQL server): commits,
CAS, append-only history, exactly-once records."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.llm.serialize import request_bytes, sha256_hex
from cursor_byok.llm.types import UserMessage
from cursor_byok.loop import CallLLM, ConversationState, RuntimeState, Status, transition
from cursor_byok.loop.state import WaitingClient
from cursor_byok.runtime.records import call_record, saved_request
from cursor_byok.store.base import (
    CallStatus,
    CallStatusUpdate,
    ClientOperationRecord,
    CommitRequest,
    HistoryRewrite,
    InputCommit,
    LLMCallRecord,
    OperationStatus,
    QuickLookup,
    RequestMismatch,
    StoreError,
    VersionConflict,
)
from cursor_byok.store.executor import Executor, Rows
from cursor_byok.store.sql_store import UPDATE_CONVERSATION, SQLStore
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import fresh, start, tool_call, user
from tests.store.conftest import Backend


def grown(state: ConversationState, *texts: str) -> ConversationState:
    """`state` with user messages appended through the real loop."""
    runtime = RuntimeState(replace(state, status=Status.READY))
    for text in texts:
        runtime = RuntimeState(
            replace(transition(runtime, start(text)).state.committed, status=Status.READY)
        )
    return runtime.committed


def test_a_committed_state_loads_back_equal(store: SQLStore) -> None:
    state = transition(fresh(), start("hi")).state.committed
    state = replace(
        state,
        waiting=WaitingClient((tool_call("t1"), tool_call("t2")), 1, "op-2"),
        queued=(user("later", 9),),
        last_error="boom",
    )
    assert store.commit_input("in-1", 0, state, {"command": "X"}) == 1
    loaded = store.load("conv-1")
    assert loaded is not None
    assert loaded.version == 1
    assert loaded.state == state
    assert store.load("nobody") is None


def test_a_first_input_reads_its_state_and_earlier_commit_together(store: SQLStore) -> None:
    assert store.load_for_input("conv-1", "in-1") == (None, None)
    state = grown(ConversationState("conv-1"), "a")
    store.commit_input("in-1", 0, state, {"command": "CallLLM"})
    loaded, found = store.load_for_input("conv-1", "in-1")
    assert loaded == store.load("conv-1") and loaded is not None and loaded.state == state
    assert found == store.find_input_commit("conv-1", "in-1") and found is not None
    assert found.result == {"command": "CallLLM"}
    assert store.load_for_input("conv-1", "in-2") == (loaded, None)
    assert store.load_for_input("conv-2", "in-1") == (None, None)


def test_an_input_is_looked_up_at_once_where_that_costs_no_wait(
    store: SQLStore, backend: Backend
) -> None:
    """SQLite answers on the caller's thread, even while a writer holds its
    write lock (WAL readers do not wait); a networked database never does."""
    if backend.name == "postgresql":
        assert store.lookup_now("conv-1", "in-1") is None
        return
    assert store.lookup_now("conv-1", "in-1") == QuickLookup(stored=False, found=None)
    store.commit_input("in-1", 0, grown(ConversationState("conv-1"), "a"), {"command": "X"})
    found = store.find_input_commit("conv-1", "in-1")
    assert found is not None
    assert store.lookup_now("conv-1", "in-1") == QuickLookup(stored=True, found=found)
    assert store.lookup_now("conv-1", "in-2") == QuickLookup(stored=True, found=None)
    assert isinstance(backend.database, Path)
    with sqlite3.connect(backend.database, isolation_level=None) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("DELETE FROM input_commits")  # not committed: unseen
        assert store.lookup_now("conv-1", "in-1") == QuickLookup(stored=True, found=found)
        writer.execute("ROLLBACK")


def test_a_busy_quick_lookup_says_so_instead_of_waiting(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "state.sqlite3")
    try:
        held = threading.Event()
        done = threading.Event()

        def hold() -> None:
            with store._now_lock:  # another caller's lookup in progress
                held.set()
                done.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        assert held.wait(10)
        assert store.lookup_now("conv-1", "in-1") is None
        done.set()
        holder.join()
        assert store.lookup_now("conv-1", "in-1") == QuickLookup(stored=False, found=None)
    finally:
        store.close()


def test_a_new_input_commits_and_a_committed_one_returns_its_commit(
    store: SQLStore, backend: Backend
) -> None:
    state = grown(ConversationState("conv-1"), "a")
    assert store.commit_new_input("in-1", 0, state, {"command": "CallLLM"}) == 1
    again = store.commit_new_input("in-1", 0, grown(state, "b"), None, flush=False)
    assert again == store.find_input_commit("conv-1", "in-1")
    assert isinstance(again, InputCommit) and again.result == {"command": "CallLLM"}
    loaded = store.load("conv-1")
    assert loaded is not None and loaded.version == 1  # nothing written, no conflict
    assert backend.rows("SELECT count(*) FROM messages") == [(1,)]
    with pytest.raises(VersionConflict):  # a new input is checked as commit_input does
        store.commit_new_input("in-2", 0, grown(state, "b"), None)
    assert store.commit_new_input("in-2", 1, grown(state, "b"), None) == 2


def test_a_stale_version_is_a_conflict(store: SQLStore) -> None:
    state = grown(ConversationState("conv-1"), "a")
    store.commit_input("in-1", 0, state, None)
    with pytest.raises(VersionConflict):
        store.commit_input("in-2", 0, grown(state, "b"), None)
    with pytest.raises(VersionConflict):
        store.commit_input("in-2", 5, grown(state, "b"), None)
    assert store.commit_input("in-2", 1, grown(state, "b"), None) == 2


def test_an_input_id_commits_once(store: SQLStore, backend: Backend) -> None:
    state = grown(ConversationState("conv-1"), "a")
    store.commit_input("in-1", 0, state, {"command": "CallLLM"})
    with pytest.raises(VersionConflict):
        store.commit_input("in-1", 1, grown(state, "b"), None)
    found = store.find_input_commit("conv-1", "in-1")
    assert found is not None and found.version == 1 and found.result == {"command": "CallLLM"}
    loaded = store.load("conv-1")
    assert loaded is not None and loaded.version == 1  # the failed commit left nothing
    assert backend.rows("SELECT count(*) FROM messages") == [(1,)]
    assert store.find_input_commit("conv-1", "in-2") is None


def test_history_cannot_be_rewritten_or_dropped(store: SQLStore) -> None:
    state = grown(ConversationState("conv-1"), "a", "b")
    store.commit_input("in-1", 0, state, None)
    edited = grown(ConversationState("conv-1"), "A", "b", "c")
    with pytest.raises(HistoryRewrite):
        store.commit_input("in-2", 1, edited, None)
    shorter = grown(ConversationState("conv-1"), "a")
    with pytest.raises(HistoryRewrite):
        store.commit_input("in-3", 1, shorter, None)
    loaded = store.load("conv-1")
    assert loaded is not None and loaded.state == state


def test_a_commit_writes_only_the_new_message_rows(store: SQLStore, backend: Backend) -> None:
    state = grown(ConversationState("conv-1"), "a", "b")
    store.commit_input("in-1", 0, state, None)
    longer = grown(state, "c")
    store.commit_input("in-2", 1, longer, None)
    rows = backend.rows("SELECT idx, message_json FROM messages ORDER BY idx")
    assert [r[0] for r in rows] == [0, 1, 2]
    assert b'"content":"c"' in bytes(rows[2][1])


def test_two_writers_racing_lose_and_double_nothing(backend: Backend) -> None:
    backend.open().close()
    conflicts = [0, 0]
    barrier = threading.Barrier(2)

    def writer(index: int) -> None:
        store = backend.open()
        barrier.wait()
        for n in range(25):
            text = f"w{index}-{n}"
            while True:
                loaded = store.load("shared")
                base = loaded.state if loaded else ConversationState("shared")
                version = loaded.version if loaded else 0
                try:
                    store.commit_input(text, version, grown(base, text), None)
                    break
                except VersionConflict:
                    conflicts[index] += 1
        store.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reader = backend.open()
    loaded = reader.load("shared")
    reader.close()
    assert loaded is not None
    texts = [m.content for m in loaded.state.messages if isinstance(m, UserMessage)]
    assert sorted(texts) == sorted(f"w{i}-{n}" for i in range(2) for n in range(25))
    assert loaded.version == 50


class RivalBeforeTheWrite:
    """A commit's executor on which `rival` runs just before the commit's
    UPDATE of the conversation row: after the version was checked against
    the row read, before the write."""

    def __init__(self, db: Executor, rival: Callable[[], object]) -> None:
        self._db = db
        self._rival: Callable[[], object] | None = rival

    def execute(self, sql: str, parameters: Sequence[object] = (), /) -> Rows:
        if sql == UPDATE_CONVERSATION and self._rival is not None:
            rival, self._rival = self._rival, None
            rival()
        return self._db.execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Sequence[object]], /) -> object:
        return self._db.executemany(sql, parameters)


def rival_lands_before_the_write(
    store: SQLStore, rival: Callable[[Executor], object]
) -> Callable[..., contextlib.AbstractContextManager[Executor]]:
    """`store`'s write transaction, with `rival(db)` run on its connection
    between a commit's version check and its write."""
    begin = store._transaction

    @contextlib.contextmanager
    def raced(flush: bool = True) -> Iterator[Executor]:
        with begin(flush) as db:
            yield RivalBeforeTheWrite(db, lambda: rival(db))

    return raced


def test_the_write_itself_refuses_a_version_that_moved_after_the_check(
    store: SQLStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The expected version is checked twice: against the row the commit
    reads, and by the write (`UPDATE ... WHERE version = ?`, zero rows =
    conflict). A rival commit landing between the two (here on the same
    connection, where no lock keeps it out) passes the first check for both
    writers; only the write can refuse the second."""
    base = grown(ConversationState("conv-1"), "a")
    store.commit_input("in-1", 0, base, None)
    rival = CommitRequest("in-rival", 1, grown(base, "rival"), None)
    monkeypatch.setattr(
        store,
        "_transaction",
        rival_lands_before_the_write(store, lambda db: SQLStore._commit(store, db, rival)),
    )
    # A new status, no new message: nothing but the version can refuse it.
    late = replace(base, status=Status.FINAL)
    with pytest.raises(VersionConflict, match="changed"):
        store.commit_input("in-2", 1, late, None)
    monkeypatch.undo()
    loaded = store.load("conv-1")
    assert loaded is not None and (loaded.version, loaded.state) == (1, base)
    assert store.find_input_commit("conv-1", "in-2") is None


def test_a_call_keeps_its_exact_request_and_refuses_another(store: SQLStore) -> None:
    step = transition(fresh(), start("hi"))
    command = step.command
    assert isinstance(command, CallLLM)
    record = call_record("conv-1", command.call_id, "m", command.request, command.messages_hash)
    store.commit_input("in-1", 0, step.state.committed, None, [record])
    store.save_llm_call(CallStatusUpdate(command.call_id, CallStatus.STREAMING, attempts=2))
    store.save_llm_call(CallStatusUpdate(command.call_id, CallStatus.FAILED, error="HTTP 401"))
    saved = store.get_llm_call(command.call_id)
    assert saved is not None
    loaded = store.load("conv-1")
    assert loaded is not None
    assert request_bytes(saved_request(saved, loaded.state.messages)) == request_bytes(
        command.request
    )
    assert (saved.status, saved.attempts, saved.error) == (CallStatus.FAILED, 2, "HTTP 401")
    with pytest.raises(RequestMismatch):
        store.save_llm_call(replace(record, request_hash=sha256_hex(b"{}")))
    assert [c.call_id for c in store.llm_calls("conv-1")] == [command.call_id]


def test_a_completed_operation_keeps_its_first_result(store: SQLStore) -> None:
    record = ClientOperationRecord(
        "op-1", "conv-1", "turn-1", "t1", 0, b"{}", OperationStatus.WAITING
    )
    store.save_client_operation(record)
    store.save_client_operation(replace(record, status=OperationStatus.COMPLETED, result=b"1"))
    store.save_client_operation(replace(record, status=OperationStatus.CANCELED, result=b"2"))
    saved = store.get_client_operation("op-1")
    assert saved is not None and saved.status is OperationStatus.COMPLETED and saved.result == b"1"


def test_active_conversations_are_those_waiting(store: SQLStore) -> None:
    waiting = transition(fresh("busy"), start("hi")).state.committed
    store.commit_input("in-1", 0, waiting, None)
    done = replace(grown(ConversationState("idle"), "x"), status=Status.FINAL)
    store.commit_input("in-2", 0, done, None)
    assert store.active_conversations() == ["busy"]
    assert {c.conversation_id for c in store.conversations()} == {"busy", "idle"}


def test_a_late_streaming_update_does_not_hide_how_a_call_ended(store: SQLStore) -> None:
    step = transition(fresh(), start("hi"))
    command = step.command
    assert isinstance(command, CallLLM)
    record = call_record("conv-1", command.call_id, "m", command.request, command.messages_hash)
    store.commit_input("in-1", 0, step.state.committed, None, [record])
    store.save_llm_call(CallStatusUpdate(command.call_id, CallStatus.CANCELED, error="stop"))
    store.save_llm_call(CallStatusUpdate(command.call_id, CallStatus.STREAMING, attempts=1))
    saved = store.get_llm_call(command.call_id)
    assert saved is not None and saved.status is CallStatus.CANCELED and saved.attempts == 1


def test_a_conversations_calls_list_in_the_order_saved(store: SQLStore) -> None:
    step = transition(fresh(), start("hi"))
    store.commit_input("in-1", 0, step.state.committed, None)
    ids = [f"call-{n}" for n in (2, 10, 1, 30, 3)]  # neither sorted nor sortable as text
    for call_id in ids:
        data = call_id.encode()
        store.save_llm_call(
            LLMCallRecord(
                call_id, "conv-1", "m", sha256_hex(data), "h", 1, None, CallStatus.PLANNED
            )
        )
    assert [call.call_id for call in store.llm_calls("conv-1")] == ids
    assert store.llm_calls("nobody") == []


def test_an_update_of_an_unsaved_call_is_refused(store: SQLStore) -> None:
    with pytest.raises(StoreError, match="no saved call"):
        store.save_llm_call(CallStatusUpdate("never-saved", CallStatus.FAILED, error="x"))
    assert store.get_llm_call("never-saved") is None


def test_a_load_sees_only_the_messages_of_the_version_it_read(
    store: SQLStore, backend: Backend
) -> None:
    state = grown(ConversationState("conv-1"), "a")
    store.commit_input("in-1", 0, state, None)
    # A row past the conversation's count, as a commit landing between a
    # load's two reads would leave it.
    backend.rows(
        "INSERT INTO messages (conversation_id, idx, message_json, message_hash)"
        " SELECT conversation_id, 1, message_json, message_hash FROM messages"
    )
    loaded = store.load("conv-1")
    assert loaded is not None and loaded.state == state


def test_a_reachable_database_answers_a_ping(store: SQLStore) -> None:
    store.ping()


def test_an_unflushed_commit_is_stored_like_any_other(backend: Backend) -> None:
    store = backend.open()
    state = transition(fresh(), start("hi")).state.committed
    assert store.commit_input("in-1", 0, state, None, flush=False) == 1
    with pytest.raises(VersionConflict):
        store.commit_input("in-2", 0, grown(state, "b"), None, flush=False)
    assert store.commit_input("in-2", 1, grown(state, "b"), None) == 2
    store.close()
    reopened = backend.open()
    loaded = reopened.load("conv-1")
    reopened.close()
    assert loaded is not None and loaded.state == grown(state, "b")
