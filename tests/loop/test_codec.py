"""The stored form of the state: the per-turn call count and limit survive a
round trip, a state stored before they existed still loads, and a broken
document is a clear error."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cursor_byok.llm.serialize import DecodeError
from cursor_byok.loop import CallLLM, LLMEvent, ToolResult, TurnSettings, transition
from cursor_byok.loop.codec import command_to_json, state_from_json, state_to_json
from cursor_byok.loop.commands import Ignored
from tests.factories import SETTINGS, assistant, fresh, result, start, stream_of, tool_call
from tests.loop.drive import Trace


def mid_turn() -> Trace:
    trace = Trace(fresh())
    limited = replace(start("go"), settings=replace(SETTINGS, max_model_calls=7))
    call = trace.feed(limited).command
    assert isinstance(call, CallLLM)
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"))))
    trace.feed(ToolResult(result("t1")))
    return trace


def test_the_call_count_and_limit_survive_a_round_trip() -> None:
    state = mid_turn().state.committed
    assert (state.turn_calls, state.settings.max_model_calls) == (2, 7)
    again = state_from_json(state_to_json(state), state.messages)
    assert again == state


def test_a_state_stored_before_the_limit_existed_loads_with_the_defaults() -> None:
    state = mid_turn().state.committed
    doc = state_to_json(state)
    del doc["turnCalls"]
    settings = doc["settings"]
    assert isinstance(settings, dict)
    del settings["maxModelCalls"]
    loaded = state_from_json(doc, state.messages)
    assert loaded.turn_calls == 0
    assert loaded.settings.max_model_calls == TurnSettings().max_model_calls


def test_a_broken_limit_is_a_decode_error() -> None:
    state = mid_turn().state.committed
    doc = state_to_json(state)
    settings = doc["settings"]
    assert isinstance(settings, dict)
    settings["maxModelCalls"] = "many"
    with pytest.raises(DecodeError, match="invalid stored conversation state"):
        state_from_json(doc, state.messages)


def test_an_ignored_input_is_recorded_with_its_reason() -> None:
    trace = mid_turn()
    step = transition(trace.state, LLMEvent("conv-1:call:99", stream_of(assistant())[0]))
    assert step.command == Ignored("model event of a call not in flight")
    assert command_to_json(step.command) == {
        "command": "Ignored",
        "reason": "model event of a call not in flight",
    }
