"""What a store keeps of rewinds (`store.forks`), on each backend: a fork's
row lands with the branch's first commit or not at all, marks are kept
once and the newest wins, and a conversation's branches and forks list."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import TextContent
from cursor_byok.loop.forks import TurnMark, fork_state
from cursor_byok.loop.state import ConversationState, Status
from cursor_byok.loop.todos import TodoItem
from cursor_byok.store.base import CommitRequest, VersionConflict
from cursor_byok.store.forks import branch_key, root_of
from cursor_byok.store.sql_store import SQLStore
from tests.factories import assistant, user
from tests.store.conftest import Backend


def stored(store: SQLStore, key: str = "conv") -> ConversationState:
    messages = (user("one"), assistant(TextContent("a")), user("two"), assistant(TextContent("b")))
    state = replace(
        ConversationState(key),
        messages=messages,
        messages_hash=messages_hash(messages),
        status=Status.FINAL,
    )
    store.commit_input("run-1", 0, state, None)
    return state


def test_keys_name_the_root_in_the_owner_s_namespace() -> None:
    branch = branch_key("conv.7", "run-9")
    assert branch.startswith("conv~") and branch.endswith(".7")
    assert root_of(branch) == "conv.7" and root_of("conv.7") == "conv.7"
    assert root_of(branch_key("conv", "r")) == "conv" and branch_key("conv", "r") != branch
    assert branch_key("conv.7", "run-9") == branch  # a resent run names the same branch


def test_a_fork_is_listed_with_its_branch_s_first_commit(store: SQLStore) -> None:
    parent = stored(store)
    branch = fork_state("conv~1", parent, 2, ())
    assert branch is not None
    [answer] = store.commit_batch([CommitRequest("fork:r", 0, branch, None, forks=[("conv", 2)])])
    assert answer == 1
    [row] = store.forks("conv")
    assert (row.branch, row.parent, row.point) == ("conv~1", "conv", 2)
    listed = {b.key: b for b in store.branches("conv")}
    assert listed["conv"].parent is None and listed["conv"].message_count == 4
    assert listed["conv~1"].parent == "conv" and listed["conv~1"].point == 2
    assert listed["conv~1"].made_by == "fork:r" and listed["conv~1"].message_count == 2
    assert store.committed_on(["conv", "conv~1"], "fork:r") == frozenset({"conv~1"})
    loaded = store.load("conv")
    assert loaded is not None and len(loaded.state.messages) == 4  # the root is untouched


def test_a_refused_fork_commit_lists_nothing(store: SQLStore) -> None:
    parent = stored(store)
    branch = fork_state("conv~1", parent, 2, ())
    assert branch is not None
    [answer] = store.commit_batch([CommitRequest("fork:r", 3, branch, None, forks=[("conv", 2)])])
    assert isinstance(answer, VersionConflict)
    assert store.forks("conv") == [] and store.load("conv~1") is None


def test_marks_are_kept_once_and_the_newest_wins(store: SQLStore) -> None:
    stored(store)
    todo = TodoItem("t", "write it")
    store.mark_turn(b"\x01" * 32, TurnMark("conv", 1, 2), 10)
    store.mark_turn(b"\x01" * 32, TurnMark("conv", 1, 2), 11)  # again: no second row
    store.mark_turn(b"\x02" * 32, TurnMark("conv", 2, 4, (todo,)), 12)
    store.mark_turn(b"", TurnMark("conv", 0, 0), 13)
    marks = store.turn_marks("conv", [b"\x01" * 32, b"\x02" * 32, b"\x03" * 32, b""])
    assert marks == {
        b"\x01" * 32: TurnMark("conv", 1, 2),
        b"\x02" * 32: TurnMark("conv", 2, 4, (todo,)),
        b"": TurnMark("conv", 0, 0),
    }
    store.mark_turn(b"\x01" * 32, TurnMark("conv", 1, 3), 20)  # the same state, later
    assert store.turn_marks("conv", [b"\x01" * 32])[b"\x01" * 32].message_count == 3
    assert store.turn_marks("other", [b"\x01" * 32]) == {}


@pytest.mark.parametrize("count", [1, 450, 900])
def test_many_turns_are_looked_up_in_chunks(store: SQLStore, count: int) -> None:
    stored(store)
    blobs = [number.to_bytes(32, "big") for number in range(count)]
    store.mark_turn(blobs[-1], TurnMark("conv", count, 4), 1)
    assert list(store.turn_marks("conv", blobs)) == [blobs[-1]]


def test_the_reads_before_a_run_answer_at_once_on_a_local_file(backend: Backend) -> None:
    """SQLite answers on the caller's thread (as `lookup_now`); a networked
    database says to ask in a worker thread (None)."""
    store = backend.open()
    try:
        stored(store)
        store.mark_turn(b"\x01" * 32, TurnMark("conv", 1, 2), 1)
        now = store.branches_now("conv"), store.turn_marks_now("conv", [b"\x01" * 32])
        if backend.name == "postgresql":
            assert now == (None, None)
        else:
            assert now == (store.branches("conv"), store.turn_marks("conv", [b"\x01" * 32]))
            assert len(now[0] or ()) == 1
    finally:
        store.close()
