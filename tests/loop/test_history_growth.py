"""A turn's transitions cost what the turn adds, not what came before: the
memory one tool turn allocates through the loop is the same with 10 messages
of history and with 10,000 (with a tuple, every append copied the history:
80 KB a copy at 10,000 messages, four copies a turn). Measured as the peak of
what the turn's transitions allocate (tracemalloc), not as time."""

from __future__ import annotations

import statistics
import tracemalloc

from cursor_byok.llm.types import TextContent
from cursor_byok.loop import CallLLM, RuntimeState, ToolResult
from cursor_byok.loop.steps import append
from tests.factories import assistant, fresh, result, start, stream_of, tool_call, user
from tests.loop.drive import Trace

TURNS = 21


def history_of(length: int) -> RuntimeState:
    """A finished conversation of `length` messages, as a load gives it."""
    state = fresh().committed
    filler = tuple(user(f"message {n}", n) for n in range(length))
    return RuntimeState(append(state, filler))


def turn_peaks(state: RuntimeState) -> list[int]:
    """Per tool turn (a call, its result, the answer): the most memory its
    transitions held at once above what was held before it."""
    trace = Trace(state)
    peaks = []
    tracemalloc.start()
    try:
        for n in range(TURNS):
            trace.transitions.clear()  # keep only what the loop itself holds
            trace.emitted.clear()
            trace.commands.clear()
            held, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            first = trace.feed(start(f"turn {n}")).command
            assert isinstance(first, CallLLM)
            trace.stream(first.call_id, stream_of(assistant(tool_call(f"t{n}"))))
            second = trace.feed(ToolResult(result(f"t{n}", "contents"))).command
            assert isinstance(second, CallLLM)
            trace.stream(second.call_id, stream_of(assistant(TextContent("done"))))
            peaks.append(tracemalloc.get_traced_memory()[1] - held)
    finally:
        tracemalloc.stop()
    return peaks[1:]  # the first turn makes the history the loop's own (one copy)


def test_a_turn_allocates_the_same_at_10_and_at_10000_messages() -> None:
    short = statistics.median(turn_peaks(history_of(10)))
    long = statistics.median(turn_peaks(history_of(10_000)))
    assert long < short + 16_000, (short, long)
