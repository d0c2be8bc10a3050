"""Properties of the loop over hypothesis-generated conversations."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cursor_byok.llm.events import DoneEvent, ErrorEvent
from cursor_byok.llm.serialize import messages_hash, serialize_messages
from cursor_byok.llm.types import AssistantMessage, ToolResultMessage, UserMessage
from cursor_byok.loop import Cancel, Input, LLMEvent, Start, ToolResult, UserInput, transition
from cursor_byok.loop.transition import TRUNCATED_CALL
from tests.loop.scenarios import Action, Block, Interpreter, Respond, digest

ROOT = Path(__file__).resolve().parents[2]

words = st.sampled_from(["a", "bb", "héllo", "x y z", "🙂", "a longer piece of text"])
blocks = st.lists(
    st.builds(Block, st.sampled_from(["text", "thinking", "tool"]), words), max_size=4
).map(tuple)
responds = st.builds(
    Respond,
    blocks,
    st.one_of(st.none(), st.integers(0, 12)),
    st.sampled_from(["done", "done", "length", "error", "abort"]),
)
actions = st.lists(
    st.builds(
        Action,
        st.sampled_from(
            [
                "start",
                "respond",
                "respond",
                "result",
                "result",
                "duplicate",
                "stale",
                "cancel",
                "user",
            ]
        ),
        responds,
        words,
        st.booleans(),
    ),
    max_size=40,
)


def stopped_words(fed: list[Input]) -> list[DoneEvent | ErrorEvent]:
    """Every call's last word the scripts fed."""
    return [
        given.event
        for given in fed
        if isinstance(given, LLMEvent) and isinstance(given.event, DoneEvent | ErrorEvent)
    ]


def run(script: list[Action]) -> Interpreter:
    interpreter = Interpreter()
    for action in script:
        interpreter.run(action)
    return interpreter


@settings(max_examples=300, deadline=None)
@given(actions)
def test_history_only_grows_by_whole_messages_that_came_in_complete(
    script: list[Action],
) -> None:
    interpreter = run(script)
    trace = interpreter.trace
    # Everything that may legitimately enter history, by identity of origin.
    offered: list[object] = []
    for fed_input in interpreter.fed:
        match fed_input:
            case Start(user_message=message, context=context):
                offered.extend([*context, message])
            case UserInput(message=message):
                offered.append(message)
            case ToolResult(message=message):
                offered.append(message)
            case LLMEvent(event=DoneEvent(message=message)):
                offered.append(message)
            case Cancel():
                pass
    previous: Sequence[object] = ()
    seen_done: set[int] = set()
    for step in trace.transitions:
        messages = step.state.committed.messages
        assert messages[: len(previous)] == previous
        assert all(a is b for a, b in zip(messages, previous, strict=False))
        for appended in messages[len(previous) :]:
            # The generated scripts never send a provider's 400: no repair steps.
            assert isinstance(appended, UserMessage | AssistantMessage | ToolResultMessage)
            message = appended
            if isinstance(message, ToolResultMessage) and message.is_error:
                # Written by the loop itself: a canceled or a cut-off call.
                text = message.content[0].text  # type: ignore[union-attr]
                if text.startswith(("Tool call canceled", "Not run: the response was interrupted")):
                    continue
                if text == TRUNCATED_CALL:
                    continue
            if isinstance(message, AssistantMessage) and message.interrupted:
                # What a stopped call had streamed, kept with its cancel:
                # its blocks came in, in the call's last word.
                words = [e.message for e in stopped_words(interpreter.fed)]
                assert any(all(b in w.content for b in message.content) for w in words)
                continue
            assert any(message is candidate for candidate in offered)
            if isinstance(message, AssistantMessage):
                assert id(message) not in seen_done, "one response appended twice"
                seen_done.add(id(message))
        previous = messages


@settings(max_examples=300, deadline=None)
@given(actions)
def test_the_hash_chain_matches_a_recomputation_from_scratch(script: list[Action]) -> None:
    trace = run(script).trace
    for step in trace.transitions:
        state = step.state.committed
        assert state.messages_hash == messages_hash(state.messages)


@settings(max_examples=150, deadline=None)
@given(actions)
def test_same_state_and_input_give_the_same_transition(script: list[Action]) -> None:
    interpreter = run(script)
    states = [interpreter.trace.state]
    for step in interpreter.trace.transitions:
        states.append(step.state)
    # Replay each input from the state it met: the result is equal in every part.
    state = run([]).trace.state
    for fed_input, expected in zip(interpreter.fed, interpreter.trace.transitions, strict=True):
        again = transition(state, fed_input)
        assert again == expected
        assert again.state.committed.messages_hash == expected.state.committed.messages_hash
        assert serialize_messages(again.state.committed.messages) == serialize_messages(
            expected.state.committed.messages
        )
        state = again.state


def test_two_processes_with_different_hash_seeds_agree() -> None:
    seeds = [str(seed) for seed in range(12)]
    outputs = []
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-m", "tests.loop.scenarios", *seeds],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(done.stdout.split())
    assert len(outputs[0]) == len(seeds)
    assert outputs[0] == outputs[1]
    assert outputs[0] == [digest(int(seed)) for seed in seeds]
    assert len(set(outputs[0])) == len(seeds)  # the scenarios really differ
