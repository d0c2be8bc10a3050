"""Loop benchmark: transitions per second, and whether the cost of one delta
grows with the length of the response streamed so far.

`transition` is pure, so one prepared state (a response 200 or 20,000 deltas
long) can take the same 100 deltas again and again: the short and the long
window are timed alternately REPEATS times each and the fastest of each kept,
which makes the ratio stable from run to run on a busy machine.

Prints, for one run on this machine:
  transitions_per_s = X
  per_delta_us[200] = X, per_delta_us[20000] = X
  per_delta_growth_ratio = X   (long over short; ~1.0 means O(1) per delta)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cursor_byok.llm.events import StartEvent, TextDelta, TextStart
from cursor_byok.llm.types import UserMessage
from cursor_byok.loop import (
    CallLLM,
    ConversationState,
    LLMEvent,
    RuntimeState,
    Start,
    TurnSettings,
    transition,
)

WINDOW = 100
REPEATS = 300


def started() -> tuple[RuntimeState, str]:
    fresh = RuntimeState(ConversationState("bench"))
    step = transition(fresh, Start(UserMessage("bench", 1), settings=TurnSettings("bench-model")))
    assert isinstance(step.command, CallLLM)
    state = transition(step.state, LLMEvent(step.command.call_id, StartEvent())).state
    state = transition(state, LLMEvent(step.command.call_id, TextStart(0))).state
    return state, step.command.call_id


def streamed(deltas: int) -> tuple[RuntimeState, list[LLMEvent]]:
    """A state `deltas - WINDOW` deltas into a response, and the last WINDOW deltas."""
    state, call_id = started()
    for _ in range(deltas - WINDOW):
        state = transition(state, LLMEvent(call_id, TextDelta(0, "token "))).state
    return state, [LLMEvent(call_id, TextDelta(0, "token ")) for _ in range(WINDOW)]


def window_seconds(state: RuntimeState, inputs: list[LLMEvent]) -> float:
    began = time.perf_counter()
    for event_input in inputs:
        state = transition(state, event_input).state
    return time.perf_counter() - began


def per_delta_seconds(lengths: tuple[int, ...]) -> list[float]:
    """Fastest per-delta time at each response length, measured alternately."""
    prepared = [streamed(n) for n in lengths]
    best = [float("inf")] * len(lengths)
    for _ in range(REPEATS):
        for i, (state, inputs) in enumerate(prepared):
            best[i] = min(best[i], window_seconds(state, inputs) / WINDOW)
    return best


def transitions_per_second(total: int = 50_000) -> float:
    state, call_id = started()
    inputs = [LLMEvent(call_id, TextDelta(0, "token ")) for _ in range(total)]
    began = time.perf_counter()
    for event_input in inputs:
        state = transition(state, event_input).state
    return total / (time.perf_counter() - began)


def main() -> None:
    short, long = per_delta_seconds((200, 20_000))
    print(f"transitions_per_s = {transitions_per_second():.0f}")
    print(f"per_delta_us[200] = {short * 1e6:.2f}")
    print(f"per_delta_us[20000] = {long * 1e6:.2f}")
    print(f"per_delta_growth_ratio = {long / short:.2f}")


if __name__ == "__main__":
    main()
