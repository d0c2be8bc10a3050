"""The send task's stream order: each ready stream in turn, with the errors
hypercorn expects from the `priority` package's tree, checked against that
tree on the same operations."""

from __future__ import annotations

import random

import pytest
from priority.priority import DeadlockError, PriorityError, PriorityTree

from cursor_byok.transport.http.h2_rotation import StreamRotation


def test_ready_streams_are_served_in_turn_and_blocked_ones_skipped() -> None:
    rotation = StreamRotation()
    for stream_id in (1, 3, 5):
        rotation.insert_stream(stream_id)
    assert [next(rotation) for _ in range(6)] == [1, 3, 5, 1, 3, 5]
    rotation.block(3)
    assert [next(rotation) for _ in range(4)] == [1, 5, 1, 5]
    rotation.unblock(3)
    rotation.remove_stream(1)
    assert [next(rotation) for _ in range(4)] == [5, 3, 5, 3]


def test_nothing_ready_is_a_deadlock_as_in_the_tree() -> None:
    rotation = StreamRotation()
    with pytest.raises(DeadlockError):
        next(rotation)
    rotation.insert_stream(1)
    rotation.block(1)
    with pytest.raises(DeadlockError):
        next(rotation)


def test_priority_advice_is_ignored_and_keeps_no_state() -> None:
    """A PRIORITY frame for a stream that never opens (hypercorn asks to
    reprioritize it) leaves nothing behind, and the stream may open later."""
    rotation = StreamRotation()
    for stream_id in range(1, 20_001, 2):
        rotation.reprioritize(stream_id, depends_on=None, weight=200, exclusive=True)
    with pytest.raises(DeadlockError):
        next(rotation)
    rotation.insert_stream(7)
    assert next(rotation) == 7


@pytest.mark.parametrize("seed", range(20))
def test_same_answers_and_errors_as_the_priority_tree(seed: int) -> None:
    """Random operations on both: the same error types, and a stream served
    by either is one that is ready in both (the order may differ)."""
    chance = random.Random(seed)
    tree, rotation = PriorityTree(), StreamRotation()
    ready: set[int] = set()
    for _ in range(400):
        op = chance.choice(["insert", "remove", "block", "unblock", "next"])
        stream_id = chance.randrange(1, 24, 2)
        outcomes: list[tuple[str, int | None]] = []
        schedulers: tuple[PriorityTree | StreamRotation, ...] = (tree, rotation)
        for scheduler in schedulers:
            try:
                if op == "next":
                    outcomes.append(("served", next(scheduler)))
                else:
                    getattr(scheduler, f"{op}_stream" if op in ("insert", "remove") else op)(
                        stream_id
                    )
                    outcomes.append(("done", None))
            except (PriorityError, DeadlockError) as error:
                outcomes.append((type(error).__name__, None))
        (tree_kind, tree_id), (kind, served) = outcomes
        assert kind == tree_kind, (op, stream_id, outcomes)
        if kind == "served":
            assert served in ready and tree_id in ready
        elif kind == "done":
            if op in ("insert", "unblock"):
                ready.add(stream_id)
            elif op in ("remove", "block"):
                ready.discard(stream_id)
