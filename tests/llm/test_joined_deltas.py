"""`next_joined`: a run of one block's deltas taken as one event, and
nothing else joined or reordered."""

from __future__ import annotations

from collections import deque

from cursor_byok.llm.events import (
    JOINED_MAX,
    ResponseEvent,
    TextDelta,
    TextEnd,
    ThinkingDelta,
    ToolCallDelta,
    next_joined,
)


def drained(events: list[ResponseEvent]) -> list[ResponseEvent]:
    pending = deque(events)
    out: list[ResponseEvent] = []
    while pending:
        out.append(next_joined(pending))
    return out


def test_a_run_of_one_blocks_deltas_is_one_event() -> None:
    assert drained([TextDelta(0, "Hel"), TextDelta(0, "lo"), TextDelta(0, "!")]) == [
        TextDelta(0, "Hello!")
    ]


def test_deltas_of_other_blocks_or_kinds_stay_apart_and_in_order() -> None:
    events: list[ResponseEvent] = [
        ThinkingDelta(0, "a"),
        ThinkingDelta(0, "b"),
        TextDelta(1, "c"),
        TextDelta(2, "d"),
        TextDelta(2, "e"),
        ToolCallDelta(3, '{"pa'),
        ToolCallDelta(3, 'th": 1}'),
        TextEnd(2, "de"),
        TextDelta(2, "f"),
    ]
    assert drained(events) == [
        ThinkingDelta(0, "ab"),
        TextDelta(1, "c"),
        TextDelta(2, "de"),
        ToolCallDelta(3, '{"path": 1}'),
        TextEnd(2, "de"),
        TextDelta(2, "f"),
    ]


def test_one_event_is_taken_as_it_is_and_the_rest_is_left() -> None:
    lone = TextDelta(0, "x")
    pending: deque[ResponseEvent] = deque([lone, TextEnd(0, "x")])
    assert next_joined(pending) is lone
    assert list(pending) == [TextEnd(0, "x")]


def test_joining_stops_once_a_piece_is_long_enough() -> None:
    """Megabytes in one read (a compressed body) still go as pieces of a
    size that streams."""
    half = "x" * (JOINED_MAX // 2)
    events: list[ResponseEvent] = [TextDelta(0, half) for _ in range(5)]
    out = drained(events)
    assert [len(e.delta) for e in out if isinstance(e, TextDelta)] == [
        JOINED_MAX,
        JOINED_MAX,
        JOINED_MAX // 2,
    ]
