"""The to-do list's rules (pure) and its place in the committed state: a
merge updates by id and adds at the end, a replace keeps only what it
writes, times are kept or stamped as they should be; the list enters the
state only with the tool result that carries it, survives storage (old
documents without it still load) and reaches the summary request without
its finished items."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cursor_byok.llm.serialize import DecodeError
from cursor_byok.llm.types import UserMessage
from cursor_byok.loop import CallLLM, Cancel, ToolResult
from cursor_byok.loop.codec import state_from_json, state_to_json
from cursor_byok.loop.commands import Ignored, TodosChanged
from cursor_byok.loop.compaction import summary_request
from cursor_byok.loop.todos import (
    TodoChange,
    TodoError,
    TodoItem,
    TodoStatus,
    lines,
    parse_status,
    unfinished,
    write,
)
from tests.factories import assistant, fresh, result, start, stream_of, tool_call
from tests.loop.drive import Trace

P, IP, C, X = (
    TodoStatus.PENDING,
    TodoStatus.IN_PROGRESS,
    TodoStatus.COMPLETED,
    TodoStatus.CANCELLED,
)
LIST = (
    TodoItem("a", "Read", IP, created_at=100, updated_at=100),
    TodoItem("b", "Fix", P, created_at=100, updated_at=150),
    TodoItem("c", "Test", P, created_at=120, updated_at=120),
)


def test_a_merge_updates_by_id_keeps_what_is_left_out_and_adds_at_the_end() -> None:
    changes = [TodoChange("a", status=C), TodoChange("d", "Ship", P), TodoChange("b", "Fix it")]
    after = write(LIST, changes, merge=True, now_ms=500)
    assert [(t.id, t.content, t.status) for t in after] == [
        ("a", "Read", C),
        ("b", "Fix it", P),
        ("c", "Test", P),
        ("d", "Ship", P),
    ]
    by_id = {t.id: t for t in after}
    assert (by_id["a"].created_at, by_id["a"].updated_at) == (100, 500)
    assert (by_id["c"].created_at, by_id["c"].updated_at) == (120, 120)  # untouched
    assert (by_id["d"].created_at, by_id["d"].updated_at) == (500, 500)
    assert LIST[0].status is IP, "the list written into is never changed in place"


def test_a_replace_keeps_only_what_it_writes_and_the_creation_time_of_known_ids() -> None:
    after = write(LIST, [TodoChange("c", "Test all", IP), TodoChange("z", "New")], False, 900)
    assert [(t.id, t.content, t.status) for t in after] == [("c", "Test all", IP), ("z", "New", P)]
    assert (after[0].created_at, after[0].updated_at) == (120, 900)
    assert (after[1].created_at, after[1].updated_at) == (900, 900)


def test_a_replace_with_nothing_empties_the_list() -> None:
    assert write(LIST, [], merge=False, now_ms=1) == ()
    assert write(LIST, [], merge=True, now_ms=1) == LIST


def test_an_item_written_twice_takes_both_changes_in_order() -> None:
    after = write((), [TodoChange("a", "Read", P), TodoChange("a", status=C)], True, 7)
    assert after == (TodoItem("a", "Read", C, 7, 7),)


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ([TodoChange("new", status=P)], "needs its content"),
        ([TodoChange("", "No id")], "non-empty id"),
    ],
)
def test_a_write_that_cannot_be_applied_says_why(changes: list[TodoChange], why: str) -> None:
    with pytest.raises(TodoError, match=why):
        write(LIST, changes, merge=True, now_ms=1)


def test_a_replace_needs_the_content_even_of_a_known_id() -> None:
    with pytest.raises(TodoError, match="needs its content"):
        write(LIST, [TodoChange("a", status=C)], merge=False, now_ms=1)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("pending", P),
        ("IN_PROGRESS", IP),
        ("in-progress", IP),
        ("In Progress", IP),
        ("TODO_STATUS_IN_PROGRESS", IP),
        ("done", C),
        ("Completed", C),
        ("canceled", X),
        ("cancelled", X),
        ("todo", P),
    ],
)
def test_statuses_are_read_the_way_models_write_them(text: str, status: TodoStatus) -> None:
    assert parse_status(text) is status


@pytest.mark.parametrize("text", ["", "maybe", "in progress soon", "1"])
def test_a_status_that_is_none_of_them_is_not_guessed(text: str) -> None:
    assert parse_status(text) is None


def test_the_lines_the_model_reads_and_what_is_unfinished() -> None:
    assert lines(LIST[:2]) == "- **IN_PROGRESS**: Read (id: a)\n- **PENDING**: Fix (id: b)"
    mixed = (*LIST, TodoItem("d", "Old", C), TodoItem("e", "Dropped", X))
    assert [t.id for t in unfinished(mixed)] == ["a", "b", "c"]


# -- in the committed state -------------------------------------------------------------


def waiting_on(call_id: str) -> Trace:
    trace = Trace(fresh())
    call = trace.feed(start("plan it")).command
    assert isinstance(call, CallLLM)
    todo = replace(tool_call(call_id), name="TodoWrite")
    trace.stream(call.call_id, stream_of(assistant(todo)))
    return trace


def test_a_tool_result_carrying_a_list_commits_it_and_passes_it_on() -> None:
    trace = waiting_on("t1")
    step = trace.feed(ToolResult(result("t1", "updated"), todos=LIST))
    assert step.commit and isinstance(step.command, CallLLM)
    assert trace.state.committed.todos == LIST
    assert TodosChanged(LIST) in step.emit
    # A later result without a list (any other tool's) leaves it as it is.
    trace.stream(step.command.call_id, stream_of(assistant(tool_call("t2"))))
    later = trace.feed(ToolResult(result("t2")))
    assert later.commit and trace.state.committed.todos == LIST
    assert not any(isinstance(event, TodosChanged) for event in later.emit)


def test_a_turn_begins_by_passing_its_list_on() -> None:
    trace = waiting_on("t1")
    trace.feed(ToolResult(result("t1", "updated"), todos=LIST))
    call = trace.state.committed.call_id
    assert call is not None
    trace.stream(call, stream_of(assistant()))
    step = trace.feed(start("next"))
    assert isinstance(step.command, CallLLM) and step.emit == (TodosChanged(LIST),)
    assert Trace(fresh()).feed(start("first")).emit == ()  # no list: nothing to pass on


def test_a_result_nobody_waits_for_changes_no_list() -> None:
    trace = waiting_on("t1")
    step = trace.feed(ToolResult(result("other", "updated"), todos=LIST))
    assert isinstance(step.command, Ignored) and not step.commit
    assert trace.state.committed.todos == ()
    assert step.emit == ()


def test_a_canceled_write_changes_no_list() -> None:
    trace = waiting_on("t1")
    trace.feed(Cancel("stop", 5))
    assert trace.state.committed.todos == ()


def test_the_list_survives_storage_and_a_state_stored_before_it_loads() -> None:
    trace = waiting_on("t1")
    trace.feed(
        ToolResult(result("t1"), todos=(*LIST, replace(LIST[0], id="d", dependencies=("a",))))
    )
    state = trace.state.committed
    doc = state_to_json(state)
    assert state_from_json(doc, state.messages) == state
    del doc["todos"]
    assert state_from_json(doc, state.messages).todos == ()
    plain = waiting_on("t2").state.committed
    assert "todos" not in state_to_json(plain), "a state without a list stores what it did"


def test_a_broken_stored_list_is_a_decode_error() -> None:
    trace = waiting_on("t1")
    trace.feed(ToolResult(result("t1"), todos=LIST))
    state = trace.state.committed
    doc = state_to_json(state)
    doc["todos"] = [{"id": "a", "content": "x", "status": "someday"}]
    with pytest.raises(DecodeError, match="invalid stored conversation state"):
        state_from_json(doc, state.messages)


def test_the_summary_request_carries_the_open_items_only() -> None:
    done = (*LIST, TodoItem("d", "Shipped already", C), TodoItem("e", "Dropped", X))
    state = replace(fresh().committed, todos=done)
    instruction = summary_request(state, None, ()).messages[-1]
    assert isinstance(instruction, UserMessage)
    text = str(instruction.content)
    assert "- **PENDING**: Test (id: c)" in text and "(id: a)" in text
    assert "Shipped already" not in text and "Dropped" not in text
    bare = summary_request(fresh().committed, None, ()).messages[-1]
    assert isinstance(bare, UserMessage) and "to-do" not in str(bare.content)
