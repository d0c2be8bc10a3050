"""A server-run subagent's first input (`subagent_launch.child_start`): made
again after a restart it is the same input, it names its parent, and the
child may make no more model calls than its parent's turn has left."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.state import ConversationState, SubagentOf
from cursor_byok.transport.dialect.task_tool import TaskTool
from cursor_byok.transport.sessions.subagent_launch import (
    child_conversation_id,
    child_start,
    parent_of,
)
from tests.factories import SETTINGS, assistant, user

TASK = ToolCall("t1", "Task", {"description": "Look", "prompt": "look at a", "model": "fast"})


def parent(turn_calls: int) -> ConversationState:
    settings = replace(SETTINGS, max_model_calls=10)
    asked = assistant(TASK, timestamp=42)
    return ConversationState(
        "conv.3", 1, (user("go"), asked), settings=settings, turn_calls=turn_calls
    )


def test_the_child_start_is_the_same_input_each_time_and_names_its_parent() -> None:
    task = TaskTool().parse(TASK)
    first = child_start(parent(2), task, ())
    assert first == child_start(parent(2), task, ())  # no clock: a restart makes the same
    assert first.user_message.timestamp == 42  # the time of the response that asked
    assert first.settings is not None
    assert first.settings.parent == SubagentOf("conv.3", "t1")
    assert first.settings.model == "fast"
    assert first.settings.system_prompt is not None
    assert first.settings.system_prompt.startswith("You are a test.")


def test_the_child_may_make_only_the_model_calls_its_parents_turn_has_left() -> None:
    task = TaskTool().parse(TASK)
    for used, left in ((2, 8), (9, 1), (10, 1)):
        settings = child_start(parent(used), task, ()).settings
        assert settings is not None and settings.max_model_calls == left


def test_a_childs_key_is_in_its_parents_namespace_and_names_its_parent() -> None:
    child = child_conversation_id("conv.3", "t1")
    assert child.endswith(".3") and child.startswith("conv~")
    assert parent_of(child) == "conv.3"
    assert parent_of("conv.3") is None
    assert child_conversation_id("conv", "t1") != child_conversation_id("conv", "t2")


def test_task_calls_of_one_response_share_what_is_left_of_the_limit() -> None:
    """They run at once: each may spend an equal part, so together they
    stay within the parent turn's limit."""
    calls = [
        ToolCall(f"t{i}", "Task", {"description": "Look", "prompt": f"look {i}"}) for i in (1, 2, 3)
    ]
    settings = replace(SETTINGS, max_model_calls=10)
    asked = assistant(*calls, ToolCall("r1", "read_file", {"path": "a"}), timestamp=42)
    state = ConversationState("conv.3", 1, (user("go"), asked), settings=settings, turn_calls=1)
    shares = []
    for call in calls:
        started = child_start(state, TaskTool().parse(call), ()).settings
        assert started is not None
        shares.append(started.max_model_calls)
    assert shares == [3, 3, 3] and sum(shares) <= 10 - 1
