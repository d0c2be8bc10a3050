"""The Task tool: who is offered it, what a call is parsed into (its kind
and model, or why it cannot run), its card and what the model reads."""

from __future__ import annotations

from typing import Any

import pytest

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.clients import ClientHeaders
from cursor_byok.transport.dialect.run_request import RunStarted, decode_run_request
from cursor_byok.transport.dialect.subagent_settings import SubagentSettings, resolve_model
from cursor_byok.transport.dialect.task_cards import (
    background_text,
    error_text,
    output_text,
    task_card,
    task_success,
)
from cursor_byok.transport.dialect.task_tool import TaskTool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

CLI_2025_11 = ClientHeaders("cli", "cli-2025.11.25-d5b3271")
CLI_2026_08 = ClientHeaders("cli", "cli-2026.08.11-e8db854")
IDE_3 = ClientHeaders("ide", "3.14.7")
SETTINGS = SubagentSettings(known_models=frozenset({"big", "small", "tiny"}))


def run_with(
    context: pb.RequestContext | None = None, mode: int = 0, **run: Any
) -> pb.AgentRunRequest:
    user = pb.UserMessage(text="hi", message_id="m1", mode=mode)  # type: ignore[arg-type]
    action = pb.UserMessageAction(user_message=user)
    action.request_context.CopyFrom(context or pb.RequestContext())
    run.setdefault("requested_model", pb.RequestedModel(model_id="big"))
    return pb.AgentRunRequest(
        conversation_id="c", action=pb.ConversationAction(user_message_action=action), **run
    )


def bound(
    run: pb.AgentRunRequest,
    headers: ClientHeaders = IDE_3,
    settings: SubagentSettings = SETTINGS,
) -> TaskTool | None:
    started = decode_run_request(run, "r", 1, client=headers, extra=(TaskTool(settings),))
    assert isinstance(started, RunStarted)
    tool = started.tools.get("Task")
    assert tool is None or isinstance(tool, TaskTool)
    return tool


def kinds_schema(tool: TaskTool) -> Any:
    """The schema of `subagent_type` the model sees."""
    properties: Any = tool.definition().parameters["properties"]
    return properties["subagent_type"]


def call(**arguments: Any) -> ToolCall:
    return ToolCall("call-1", "Task", {"description": "look", "prompt": "find x", **arguments})


@pytest.mark.parametrize("headers", [IDE_3, CLI_2026_08])
def test_clients_that_run_subagents_are_offered_task(headers: ClientHeaders) -> None:
    tool = bound(run_with(), headers)
    assert tool is not None and tool.mode == "client"
    schema = kinds_schema(tool)
    assert schema["enum"] == ["generalPurpose", "explore"]


def test_the_nov_2025_cli_and_a_subagents_own_run_never_see_task() -> None:
    assert bound(run_with(), CLI_2025_11) is None
    assert bound(run_with(subagent_type_name="generalPurpose")) is None


def test_server_mode_is_not_offered_while_this_build_cannot_run_subagents() -> None:
    server = SubagentSettings(mode="server")
    assert bound(run_with(), IDE_3, server) is None
    assert bound(run_with(), CLI_2025_11, SubagentSettings(mode="auto")) is None


def test_custom_subagents_are_offered_with_their_description_and_permissions() -> None:
    reviewer = pb.CustomSubagent(
        name="reviewer",
        description="Reviews a diff.",
        prompt="Be strict.",
        model="small",
        permission_mode=pb.CUSTOM_SUBAGENT_PERMISSION_MODE_READONLY,
    )
    tool = bound(run_with(pb.RequestContext(custom_subagents=[reviewer])))
    assert tool is not None
    schema = kinds_schema(tool)
    assert schema["enum"] == ["generalPurpose", "explore", "reviewer"]
    assert "Reviews a diff." in schema["description"]
    task = tool.parse(call(subagent_type="reviewer"))
    assert (task.kind.name, task.model, task.readonly, task.problem) == (
        "reviewer",
        "small",
        True,
        None,
    )
    assert "Be strict." in task.kind.prompt
    card = task_card(task).task_tool_call.args
    assert card.subagent_type.custom.name == "reviewer" and card.mode == pb.TASK_MODE_PLAN


def test_explore_is_read_only_and_shown_as_explore() -> None:
    tool = bound(run_with())
    assert tool is not None
    task = tool.parse(call(subagent_type="explore"))
    assert task.readonly and task.kind.tools == frozenset({"read_file", "grep", "glob", "list_dir"})
    args = tool.card(call(subagent_type="explore")).task_tool_call.args
    assert args.subagent_type.HasField("explore") and args.model == "big"
    general = tool.card(call(subagent_type="generalPurpose")).task_tool_call.args
    assert general.subagent_type.HasField("unspecified") and general.mode == pb.TASK_MODE_AGENT


def test_a_call_that_cannot_run_says_why() -> None:
    tool = bound(run_with())
    assert tool is not None
    assert "unknown subagent_type 'wizard'" in str(tool.parse(call(subagent_type="wizard")).problem)
    assert "prompt is empty" in str(tool.parse(call(subagent_type="explore", prompt=" ")).problem)
    unknown = tool.parse(call(subagent_type="explore", model="gpt-99"))
    assert unknown.problem is not None and "unknown model 'gpt-99'" in unknown.problem


def override(kind: str, **selection: Any) -> pb.SubagentModelOverride:
    return pb.SubagentModelOverride(subagent_type=kind, **selection)


def test_the_model_is_chosen_in_order() -> None:
    configured = SubagentSettings(model="tiny", known_models=SETTINGS.known_models)
    overrides = [override("explore", model=pb.RequestedModel(model_id="small"))]
    # The Task call's own model first.
    assert resolve_model("tiny", "explore", overrides, "", configured, "big") == "tiny"
    # Then the run request's override for the type.
    assert resolve_model("", "explore", overrides, "", configured, "big") == "small"
    inherit = [override("explore", inherit=True)]
    assert resolve_model("", "explore", inherit, "", configured, "big") == "big"
    # Then a custom subagent's own, then the configuration's, then the parent's.
    assert resolve_model("", "generalPurpose", overrides, "small", configured, "big") == "small"
    assert resolve_model("", "generalPurpose", overrides, "inherit", configured, "big") == "tiny"
    assert resolve_model("", "generalPurpose", (), "", SETTINGS, "big") == "big"


def test_a_type_the_run_request_turns_off_is_not_offered() -> None:
    tool = bound(run_with(subagent_model_overrides=[override("explore", disabled=True)]))
    assert tool is not None
    assert kinds_schema(tool)["enum"] == ["generalPurpose"]
    assert "turned off" in str(tool.parse(call(subagent_type="explore")).problem)
    everything = [override("*", disabled=True)]
    assert bound(run_with(subagent_model_overrides=everything)) is None


def test_in_ask_mode_every_subagent_is_read_only() -> None:
    tool = bound(run_with(mode=pb.AGENT_MODE_ASK))
    assert tool is not None and tool.parse(call(subagent_type="generalPurpose")).readonly


def test_what_the_model_reads() -> None:
    text = output_text("Found it in a.py", "agent-7")
    assert text.startswith("This is the output of the subagent:")
    assert "<response>\nFound it in a.py\n</response>" in text
    assert "Agent ID: agent-7" in text and "resume" in text
    assert "running in the background" in background_text("agent-7")
    assert error_text("boom") == "Error: boom"
    success = task_success("done", "agent-7", 1200).success
    assert success.conversation_steps[0].assistant_message.text == "done"
    assert (success.agent_id, success.duration_ms, success.is_background) == (
        "agent-7",
        1200,
        False,
    )
    moved = task_success("", "a", 5, pb.SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST).success
    assert moved.is_background and not moved.conversation_steps


def test_runs_alike_share_one_bound_task_tool_and_tool_set_and_runs_that_differ_do_not() -> None:
    """Binding is kept per configured tool: a second run like the first
    gets the very same Task tool and tool set (their definitions, made once,
    are then reused), while a run that changes what Task offers gets its own."""
    configured = TaskTool(SETTINGS)

    def started(run: pb.AgentRunRequest, headers: ClientHeaders = IDE_3) -> RunStarted:
        event = decode_run_request(run, "r", 1, client=headers, extra=(configured,))
        assert isinstance(event, RunStarted)
        return event

    first, second = started(run_with()), started(run_with())
    assert first.tools is second.tools
    assert first.tools.definitions() is second.tools.definitions()
    assert first.tools.get("Task") is second.tools.get("Task")

    reviewer = pb.CustomSubagent(name="reviewer", description="Reviews a diff.")
    custom = started(run_with(pb.RequestContext(custom_subagents=[reviewer])))
    off = started(run_with(subagent_model_overrides=[override("explore", disabled=True)]))
    asking = started(run_with(mode=pb.AGENT_MODE_ASK))
    other_model = started(run_with(requested_model=pb.RequestedModel(model_id="small")))
    tools = [first.tools.get("Task"), *(e.tools.get("Task") for e in (custom, off, asking))]
    assert len({id(tool) for tool in tools}) == len(tools)
    chosen = [tool for tool in tools if isinstance(tool, TaskTool)]
    assert [kinds_schema(tool)["enum"] for tool in chosen[:3]] == [
        ["generalPurpose", "explore"],
        ["generalPurpose", "explore", "reviewer"],
        ["generalPurpose"],
    ]
    assert chosen[3].parse(call(subagent_type="generalPurpose")).readonly
    assert other_model.tools.get("Task") is not first.tools.get("Task")
    # The same custom subagent again: the same tool as the first time.
    again = started(run_with(pb.RequestContext(custom_subagents=[reviewer])))
    assert again.tools.get("Task") is custom.tools.get("Task")


def test_a_server_tool_that_cannot_be_a_cache_key_still_gets_its_tool_set() -> None:
    """A tool with value equality and no hash (as a plain dataclass is)
    is offered as before, in a set of its own run."""

    class Unhashable(TaskTool):
        __hash__ = None  # type: ignore[assignment]

        def for_run(self, *_: Any) -> TaskTool:
            return self  # offered as it is: the run's tool set holds this very object

    tool = Unhashable(SETTINGS)
    sets = [decode_run_request(run_with(), "r", 1, client=IDE_3, extra=(tool,)) for _ in range(2)]
    assert all(isinstance(s, RunStarted) for s in sets)
    first, second = (s.tools for s in sets if isinstance(s, RunStarted))
    assert first.get("Task") is tool and second.get("Task") is tool
    assert first is not second
