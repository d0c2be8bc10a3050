"""Where a run goes when its client's state is behind (`loop.forks.place`),
and the branch a fork makes: pure, over what the store would have read."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import TextContent
from cursor_byok.loop.commands import Ignored
from cursor_byok.loop.forks import (
    NO_TURNS,
    Branch,
    Continue,
    ForkAt,
    TurnMark,
    fork_input_id,
    fork_state,
    place,
)
from cursor_byok.loop.inputs import Fork
from cursor_byok.loop.records import ForkMade
from cursor_byok.loop.state import ConversationState, RuntimeState, Status
from cursor_byok.loop.todos import TodoItem
from cursor_byok.loop.transition import transition
from tests.factories import assistant, user

ROOT = Branch("c", None, 0, 6, updated_at_ms=30, created_at_ms=1)
T1, T2, T3 = b"t1" * 16, b"t2" * 16, b"t3" * 16
MARKS = {T1: TurnMark("c", 1, 2), T2: TurnMark("c", 2, 4), T3: TurnMark("c", 3, 6)}


def test_a_state_one_turn_behind_forks_at_that_turn_s_end_with_its_to_dos() -> None:
    todo = TodoItem("a", "do it")
    marks = {T1: TurnMark("c", 1, 2, (todo,))}
    assert place("c", (T1,), True, marks, [ROOT], "run-4") == ForkAt("c", 2, (todo,))


def test_a_state_that_names_every_turn_goes_on_where_it_is() -> None:
    assert place("c", (T1, T2, T3), True, MARKS, [ROOT], "run-4") == Continue("c")


def test_no_turns_is_the_state_before_the_first_message() -> None:
    assert place("c", (), True, {}, [ROOT], "run-4") == ForkAt("c", 0)
    empty = replace(ROOT, message_count=0)
    assert place("c", (), True, {}, [empty], "run-1") == Continue("c")


def test_a_first_turn_that_ended_with_no_checkpoint_keeps_its_place() -> None:
    """The client holds no turns still; the server marked that state where
    the failed turn left the history, so the next message goes on there."""
    marks = {NO_TURNS: TurnMark("c", 0, 1)}
    assert place("c", (), True, marks, [replace(ROOT, message_count=1)], "r") == Continue("c")


def test_a_client_that_sends_no_state_is_answered_where_it_names() -> None:
    fork = Branch("c~1", "c", 2, 4, updated_at_ms=40, created_at_ms=35)
    assert place("c", None, True, MARKS, [ROOT], "run-4") == Continue("c")
    assert place("c", None, True, MARKS, [ROOT, fork], "run-5") == Continue("c~1")
    assert place("new", (), True, {}, [], "run-0") == Continue("new")


def test_turns_with_no_mark_are_unrecognised_and_answered_on_the_latest_branch() -> None:
    fork = Branch("c~1", "c", 2, 4, updated_at_ms=40, created_at_ms=35)
    stranger = b"x" * 32
    placed = place("c", (T1, stranger), True, MARKS, [ROOT, fork], "run-5")
    assert placed == Continue("c~1", unrecognised=True)
    # a mark that disagrees on how many turns precede it is no better
    assert place("c", (T1, T2), True, {T2: TurnMark("c", 3, 6)}, [ROOT], "r") == Continue(
        "c", unrecognised=True
    )


def test_a_resent_run_goes_where_it_went() -> None:
    fork = Branch("c~1", "c", 2, 4, 40, 35, made_by=fork_input_id("run-4"))
    assert place("c", (T1,), True, MARKS, [ROOT, fork], "run-4") == Continue("c~1")
    committed = frozenset({"c"})
    assert place("c", (T1,), True, MARKS, [ROOT], "run-3", committed) == Continue("c")


def test_a_resume_finds_the_turn_in_flight_on_the_branch_written_last() -> None:
    """The turn in flight has no mark (its id changes with each step): the
    last marked turn tells where the client stood."""
    fork = Branch("c~1", "c", 2, 3, updated_at_ms=50, created_at_ms=45)
    partial = b"p" * 32
    assert place("c", (T1, partial), False, MARKS, [ROOT, fork], "resume") == Continue("c~1")
    assert place("c", (T1, T2, partial), False, MARKS, [ROOT, fork], "resume") == Continue("c")


def conversation() -> ConversationState:
    state = ConversationState("c")
    messages = (user("one"), assistant(TextContent("a")), user("two"), assistant(TextContent("b")))
    return replace(
        state,
        messages=messages,
        messages_hash=messages_hash(messages),
        status=Status.FINAL,
        resets=(1, 3),
        turn_seq=2,
    )


def test_a_branch_keeps_the_prefix_and_nothing_after_it() -> None:
    parent = conversation()
    branch = fork_state("c~1", parent, 2, ())
    assert branch is not None
    assert list(branch.messages) == list(parent.messages[:2])
    assert branch.messages[0] is parent.messages[0]  # the same objects: the same bytes
    assert branch.messages_hash == messages_hash(parent.messages[:2])
    assert branch.resets == (1,) and branch.status is Status.READY
    assert fork_state("c~1", parent, 5, ()) is None


def test_a_fork_input_makes_a_new_conversation_a_branch_once() -> None:
    parent = conversation()
    made = transition(RuntimeState(ConversationState("c~1")), Fork(parent, 2))
    assert made.commit and made.records == (ForkMade("c", 2),)
    assert len(made.state.committed.messages) == 2
    again = transition(made.state, Fork(parent, 4))
    assert isinstance(again.command, Ignored) and not again.commit
