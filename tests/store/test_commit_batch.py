"""Several inputs' commits in one transaction (`Store.commit_batch`), on every
backend: each lands or is refused alone, in order, and a failure of the
transaction itself leaves nothing behind."""

from __future__ import annotations

import pytest

from cursor_byok.loop import CallLLM, ConversationState, transition
from cursor_byok.runtime.records import call_record
from cursor_byok.store.base import CommitRequest, InputCommit, VersionConflict
from cursor_byok.store.sql_store import SQLStore
from tests.factories import fresh, start
from tests.store.conftest import Backend
from tests.store.test_store import grown


def first(conversation_id: str, text: str, **changes: object) -> CommitRequest:
    state = grown(ConversationState(conversation_id), text)
    return CommitRequest(f"{conversation_id}:in-1", 0, state, {"n": 1}, **changes)  # type: ignore[arg-type]


def committed_then_resent(store: SQLStore) -> tuple[ConversationState, str, CommitRequest]:
    """c1's first input committed, and the same input sent again on top of
    it with a model call's record: a request refused only after its
    conversation row and messages are written. (The state committed, the
    call's id, the resend.)"""
    step = transition(fresh("c1"), start("hi"))
    command = step.command
    assert isinstance(command, CallLLM)
    committed = step.state.committed
    assert store.commit_input("c1:in-1", 0, committed, {"n": 1}) == 1
    record = call_record("c1", command.call_id, "m", command.request, command.messages_hash)
    again = CommitRequest("c1:in-1", 1, grown(committed, "more"), {"n": 2}, [record])
    return committed, command.call_id, again


def test_a_batch_lands_every_commit_in_order(store: SQLStore) -> None:
    one = first("c1", "a")
    two = first("c2", "b", flush=False)
    later = CommitRequest("c1:in-2", 1, grown(one.next_state, "c"), {"n": 2})
    assert store.commit_batch([one, two, later]) == [1, 1, 2]
    loaded = store.load("c1")
    assert loaded is not None and (loaded.version, loaded.state) == (2, later.next_state)
    other = store.load("c2")
    assert other is not None and other.state == two.next_state
    found = store.find_input_commit("c1", "c1:in-2")
    assert found == InputCommit("c1:in-2", 2, {"n": 2})


def test_a_refused_commit_is_rolled_back_alone(store: SQLStore, backend: Backend) -> None:
    """An input committed twice is refused only after its conversation row
    and messages are written: the savepoint takes them back, and the batch
    goes on."""
    committed, call_id, again = committed_then_resent(store)
    fine = first("c2", "b")
    answers = store.commit_batch([again, fine, first("c3", "c")])
    assert isinstance(answers[0], VersionConflict)
    assert answers[1:] == [1, 1]
    loaded = store.load("c1")
    assert loaded is not None and (loaded.version, loaded.state) == (1, committed)
    assert store.find_input_commit("c1", "c1:in-1") == InputCommit("c1:in-1", 1, {"n": 1})
    assert store.get_llm_call(call_id) is None
    assert backend.rows("SELECT COUNT(*) FROM messages WHERE conversation_id = 'c1'") == [(1,)]
    assert store.load("c2") is not None and store.load("c3") is not None


def test_a_lone_refused_commit_leaves_nothing_and_the_store_goes_on(
    store: SQLStore, backend: Backend
) -> None:
    """A batch of one (the usual size) is refused after the same writes; SQLite
    takes them back with the whole transaction rather than a savepoint, and
    the next commit finds no transaction left open."""
    committed, call_id, again = committed_then_resent(store)
    (answer,) = store.commit_batch([again])
    assert isinstance(answer, VersionConflict)
    loaded = store.load("c1")
    assert loaded is not None and (loaded.version, loaded.state) == (1, committed)
    assert store.get_llm_call(call_id) is None
    assert backend.rows("SELECT COUNT(*) FROM messages WHERE conversation_id = 'c1'") == [(1,)]
    later = CommitRequest("c1:in-2", 1, grown(committed, "more"), {"n": 2})
    assert store.commit_batch([later]) == [2]


def test_a_checked_resend_answers_its_earlier_commit_and_writes_nothing(store: SQLStore) -> None:
    once = first("c1", "a")
    assert store.commit_batch([once]) == [1]
    again = CommitRequest(once.input_id, 1, grown(once.next_state, "again"), {"n": 9}, checked=True)
    assert store.commit_batch([again]) == [InputCommit(once.input_id, 1, {"n": 1})]
    loaded = store.load("c1")
    assert loaded is not None and loaded.version == 1


def test_a_request_that_cannot_be_stored_fails_alone(store: SQLStore) -> None:
    """An error of one request's own (here a result that cannot be encoded)
    is its answer, as a refusal is: the commits around it still land."""
    fine = first("c1", "a")
    broken = CommitRequest("c2:in-1", 0, grown(ConversationState("c2"), "b"), {"n": object()})  # type: ignore[dict-item]
    answers = store.commit_batch([fine, broken, first("c3", "c")])
    assert answers[0] == 1 and answers[2] == 1
    assert isinstance(answers[1], TypeError)
    assert store.load("c1") is not None and store.load("c3") is not None
    assert store.load("c2") is None


def test_a_transaction_that_cannot_commit_lands_nothing(
    store: SQLStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch's own failure (here its transaction cannot be opened) is
    raised to the caller, and nothing of it is kept."""

    def broken(flush: bool = True) -> object:
        raise OSError("disk I/O error")

    monkeypatch.setattr(store, "_transaction", broken)
    with pytest.raises(OSError, match="disk I/O"):
        store.commit_batch([first("c1", "a")])
    monkeypatch.undo()
    assert store.load("c1") is None
    assert store.commit_batch([first("c1", "a")]) == [1]  # the store is usable after it


def test_only_sqlite_serializes_its_writers(store: SQLStore, backend: Backend) -> None:
    assert store.serial_writer is (backend.name == "sqlite")
