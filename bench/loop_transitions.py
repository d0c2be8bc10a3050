"""Loop benchmark: transitions per second, and whether the cost of one delta
grows with the length of the response streamed so far.

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


def started() -> tuple[RuntimeState, str]:
    fresh = RuntimeState(ConversationState("bench"))
    step = transition(fresh, Start(UserMessage("bench", 1), settings=TurnSettings("bench-model")))
    assert isinstance(step.command, CallLLM)
    state = transition(step.state, LLMEvent(step.command.call_id, StartEvent())).state
    state = transition(state, LLMEvent(step.command.call_id, TextStart(0))).state
    return state, step.command.call_id


def per_delta_seconds(deltas: int, repeats: int = 5) -> float:
    """Best-of-`repeats` mean time of one delta, measured over the last 100
    deltas of a response that is `deltas` deltas long."""
    best = float("inf")
    for _ in range(repeats):
        state, call_id = started()
        inputs = [LLMEvent(call_id, TextDelta(0, "token ")) for _ in range(deltas)]
        for event_input in inputs[:-100]:
            state = transition(state, event_input).state
        began = time.perf_counter()
        for event_input in inputs[-100:]:
            state = transition(state, event_input).state
        best = min(best, (time.perf_counter() - began) / 100)
    return best


def transitions_per_second(total: int = 50_000) -> float:
    state, call_id = started()
    inputs = [LLMEvent(call_id, TextDelta(0, "token ")) for _ in range(total)]
    began = time.perf_counter()
    for event_input in inputs:
        state = transition(state, event_input).state
    return total / (time.perf_counter() - began)


def main() -> None:
    short = per_delta_seconds(200)
    long = per_delta_seconds(20_000)
    print(f"transitions_per_s = {transitions_per_second():.0f}")
    print(f"per_delta_us[200] = {short * 1e6:.2f}")
    print(f"per_delta_us[20000] = {long * 1e6:.2f}")
    print(f"per_delta_growth_ratio = {long / short:.2f}")


if __name__ == "__main__":
    main()
