"""Subagents the client runs, through the real server, against a client
that plays the IDE (subagent_cli.py): the parent's Task call becomes the
task card and `exec subagent_args`; the client's child run is served as a
turn of its own (the subagent's prompt, tools and model, none of the
parent's history); its `subagent_result` completes the card and reaches
the model. Several at once, one in the background, a cancel of the
parent, a child that fails, a resume, a client that never answers, the
model chosen in order, and the Nov-2025 CLI, which never sees Task."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from cursor_byok.cli.main import main
from cursor_byok.client.client import cancel
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import TextContent, ToolCall
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.subagent_settings import SubagentSettings
from cursor_byok.transport.dialect.task_tool import TaskTool
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.aux_rpcs import ModelEntry
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import NEWER, CliTurn, OfficialCli, user_message
from tests.e2e.subagent_cli import PerConversation, SubagentCli
from tests.factories import assistant, error_event, stream_of

MODELS = [ModelEntry("big", 200_000), ModelEntry("small", 200_000), ModelEntry("tiny", 100_000)]
SETTINGS = SubagentSettings(known_models=frozenset({"big", "small", "tiny"}))
PARENT = "conv-parent"
SECRET = "the parent's own words, PARENT-ONLY"


def task(call_id: str, **arguments: Any) -> ToolCall:
    arguments = {"description": "Look around", "prompt": f"Task {call_id}", **arguments}
    arguments.setdefault("subagent_type", "explore")
    return ToolCall(call_id, "Task", arguments, raw_arguments=json.dumps(arguments))


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


def uses(*calls: ToolCall) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent("Let me delegate."), *calls), chunk=8)


def read(call_id: str, path: str) -> ToolCall:
    return ToolCall(call_id, "read_file", {"path": path}, raw_arguments=json.dumps({"path": path}))


@dataclass
class Rig:
    cli: SubagentCli
    llm: PerConversation
    store: SQLiteStore
    service: Service
    url: str
    workspace: Path

    def requests(self, conversation: str) -> list[dict[str, Any]]:
        return [json.loads(body) for _model, body in self.llm.requests[conversation]]

    def models(self, conversation: str) -> list[str]:
        return [model for model, _body in self.llm.requests[conversation]]

    async def parent(self, text: str = SECRET, **options: Any) -> CliTurn:
        action = user_message(text, self.cli.context)
        return await self.cli.run(action, "big", conversation_id=PARENT, **options)


@asynccontextmanager
async def rig(
    tmp_path: Path,
    scripts: dict[str, list[list[ResponseEvent]]],
    settings: SubagentSettings = SETTINGS,
    delay: float = 0.0,
) -> AsyncIterator[Rig]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = PerConversation(scripts, delay)
    service = build_service(
        store,
        llm,
        models=lambda: MODELS,
        retry=RetryPolicy(1, 0.001, 0.01),
        heartbeat_s=0.2,
        context_wait_s=0.3,
        server_tools=(TaskTool(settings),),
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "a.py").write_text("def a():\n    return 1\n")
    async with serving(service) as url:
        cli = SubagentCli(url, "proto", workspace)
        try:
            yield Rig(cli, llm, store, service, url, workspace)
        finally:
            await cli.close()
    store.close()


def cards(turn: CliTurn, kind: str) -> list[pb.TaskToolCall]:
    found = []
    for update in turn.cards:
        if update.WhichOneof("message") == kind:
            card = getattr(update, kind).tool_call
            if card.HasField("task_tool_call"):
                found.append(card.task_tool_call)
    return found


def tool_results(request: dict[str, Any]) -> list[str]:
    """The text of every tool result a request sends the model."""
    texts = []
    for message in request["messages"]:
        if message["role"] == "toolResult":
            texts.append(" ".join(c["text"] for c in message["content"] if c["type"] == "text"))
    return texts


def offered(request: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in request["tools"]}


def extends(requests: list[dict[str, Any]]) -> bool:
    """Each request's messages begin with the previous one's, byte for byte."""
    encoded = [[canonical_dumps(m) for m in r["messages"]] for r in requests]
    return all(later[: len(earlier)] == earlier for earlier, later in pairwise(encoded))


async def test_one_subagent_runs_on_the_client_as_a_turn_of_its_own(tmp_path: Path) -> None:
    scripts = {
        PARENT: [uses(task("t1", subagent_type="explore")), answer("a() returns 1.")],
        "agent-t1": [uses(read("r1", "a.py")), answer("a.py: a() returns 1 (line 2).")],
    }
    async with rig(tmp_path, scripts, delay=0.02) as r:
        turn = await r.parent()
        [child] = r.cli.children
        parent_requests, child_requests = r.requests(PARENT), r.requests("agent-t1")
        shown = io.StringIO()
        assert main(["show", PARENT, "--database", str(tmp_path / "db.sqlite3")], shown) == 0
        shown_child = io.StringIO()
        main(["show", "agent-t1", "--database", str(tmp_path / "db.sqlite3")], shown_child)
    assert turn.error is None and turn.violations == []
    assert "Task" in offered(parent_requests[0])
    # The card: partial with the resolved args, started, then the exec.
    [partial] = [c for c in cards(turn, "partial_tool_call") if c.args.prompt]
    assert partial.args.subagent_type.HasField("explore") and partial.args.model == "big"
    [started] = cards(turn, "tool_call_started")
    assert started.args.mode == pb.TASK_MODE_PLAN
    [request] = [e for e in turn.execs if e.WhichOneof("message") == "subagent_args"]
    args = request.subagent_args
    assert (args.tool_call_id, args.subagent_type, args.model_id) == ("t1", "explore", "big")
    assert args.readonly and args.prompt == "Task t1"
    assert args.parent_conversation_id == args.root_parent_conversation_id == PARENT
    assert turn.order.index("tool_call_started") < turn.order.index("exec_server_message")
    assert r.cli.heartbeats_waiting > 0, "the parent's stream stays alive while the child runs"
    # The child: its own conversation, the explore tools and prompt, no parent history.
    assert child.agent_id == "agent-t1" and child.turn is not None and child.turn.error is None
    assert offered(child_requests[0]) == {"read_file", "grep", "glob", "list_dir"}
    assert "You are a subagent" in child_requests[0]["systemPrompt"]
    assert "You are a subagent" not in parent_requests[0]["systemPrompt"]
    assert "ask mode" not in child_requests[0]["systemPrompt"]
    assert r.models("agent-t1") == ["big", "big"]
    assert all(SECRET not in json.dumps(req) for req in child_requests)
    assert extends(child_requests) and extends(parent_requests)
    # The result: on the card, for the model, and in the checkpoint.
    [completed] = cards(turn, "tool_call_completed")
    success = completed.result.success
    assert success.agent_id == "agent-t1" and not success.is_background
    assert [s.assistant_message.text for s in success.conversation_steps] == [
        "a.py: a() returns 1 (line 2)."
    ]
    [result] = tool_results(parent_requests[1])
    assert result.startswith("This is the output of the subagent:")
    assert "<response>\na.py: a() returns 1 (line 2).\n</response>" in result
    assert "Agent ID: agent-t1" in result
    state = turn.checkpoints[-1].subagent_states["agent-t1"]
    assert state.subagent_type.HasField("explore") and state.model_id == "big"
    assert 0 < state.created_timestamp_ms <= state.last_used_timestamp_ms
    assert turn.text.endswith("a() returns 1.")
    # `show` puts the child under its parent's Task call, and names the parent.
    lines = shown.getvalue().splitlines()
    at = next(i for i, line in enumerate(lines) if "tool       Task" in line)
    assert "subagent agent-t1" in lines[at + 1]
    assert any(line.startswith("        ") and "read_file" in line for line in lines[at + 1 :])
    assert f"subagent of {PARENT} (Task call t1)" in shown_child.getvalue()


async def test_three_subagents_of_one_response_run_at_the_same_time(tmp_path: Path) -> None:
    calls = [task(f"p{n}", subagent_type="generalPurpose") for n in range(3)]
    scripts: dict[str, list[list[ResponseEvent]]] = {
        PARENT: [uses(*calls), answer("All three are done.")]
    }
    for n in range(3):
        scripts[f"agent-p{n}"] = [answer(f"Report {n}: nothing odd in part {n}.")]
    async with rig(tmp_path, scripts, delay=0.02) as r:
        turn = await r.parent()
        results = tool_results(r.requests(PARENT)[1])
        parent_tools, child_tools = (
            offered(r.requests(PARENT)[0]),
            offered(r.requests("agent-p0")[0]),
        )
    assert turn.error is None and turn.violations == []
    execs = [e for e in turn.execs if e.WhichOneof("message") == "subagent_args"]
    assert [e.subagent_args.tool_call_id for e in execs] == ["p0", "p1", "p2"]
    assert len({e.id for e in execs}) == 3
    # Every exec went out before the first card completed: they ran together.
    first_done = turn.order.index("tool_call_completed")
    assert [i for i, k in enumerate(turn.order) if k == "exec_server_message"][-1] < first_done
    assert len(cards(turn, "tool_call_started")) == 3
    assert [c.result.success.agent_id for c in cards(turn, "tool_call_completed")] == [
        "agent-p0",
        "agent-p1",
        "agent-p2",
    ]
    assert [f"Report {n}" in text for n, text in enumerate(results)] == [True] * 3
    # A general subagent is not read-only: the parent's tools, but Task and the questions.
    assert child_tools == parent_tools - {"Task", "AskQuestion", "SwitchMode"}
    assert {"edit_file", "run_terminal_cmd"} <= child_tools


async def test_a_subagent_in_the_background_lets_the_parent_go_on(tmp_path: Path) -> None:
    scripts = {
        PARENT: [uses(task("bg", run_in_background=True)), answer("Started it.")],
        "agent-bg": [answer("Background work finished.")],
    }
    async with rig(tmp_path, scripts) as r:
        turn = await r.parent()
        [result] = tool_results(r.requests(PARENT)[1])
        await r.cli.settle()
        [child] = r.cli.children
    assert turn.error is None and turn.violations == []
    [completed] = cards(turn, "tool_call_completed")
    success = completed.result.success
    assert success.is_background and success.agent_id == "agent-bg"
    assert success.background_reason == pb.SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST
    assert "running in the background" in result and "agent-bg" in result
    assert child.turn is not None and child.turn.text == "Background work finished."


async def test_a_cancel_of_the_parent_stops_the_wait_and_the_child(tmp_path: Path) -> None:
    slow = answer("This takes a long while to say, word after word after word.")
    scripts = {PARENT: [uses(task("c1"))], "agent-c1": [slow]}
    async with rig(tmp_path, scripts, delay=0.05) as r:
        running = asyncio.create_task(r.parent())
        await asyncio.wait_for(r.cli.child_spoke.wait(), 10)  # it answers: stop the parent
        assert r.cli.appender is not None
        r.cli.appender.send(cancel("stop"))
        turn = await running
        await r.cli.settle()
        [child] = r.cli.children
    assert turn.error_details is not None or turn.error is not None
    [request] = [e for e in turn.execs if e.WhichOneof("message") == "subagent_args"]
    assert r.cli.aborted == [request.id], "the subagent's exec is aborted"
    assert child.canceled and child.turn is not None and child.turn.error is not None


async def test_a_child_that_fails_is_an_error_result(tmp_path: Path) -> None:
    failing: list[ResponseEvent] = [error_event("the provider is down")]
    scripts = {
        PARENT: [uses(task("f1")), answer("It failed; I will look myself.")],
        "agent-f1": [failing],
    }
    async with rig(tmp_path, scripts) as r:
        turn = await r.parent()
        [result] = tool_results(r.requests(PARENT)[1])
    assert turn.error is None
    [completed] = cards(turn, "tool_call_completed")
    assert "the provider is down" in completed.result.error.error
    assert result.startswith("Error: ") and "the provider is down" in result


async def test_a_resumed_subagent_goes_on_in_its_own_conversation(tmp_path: Path) -> None:
    scripts = {
        PARENT: [
            uses(task("r1")),
            answer("First pass done."),
            uses(task("r2", resume="agent-r1", prompt="Now look at b.")),
            answer("Second pass done."),
        ],
        "agent-r1": [answer("a is fine."), answer("b is fine too.")],
    }
    async with rig(tmp_path, scripts) as r:
        first = await r.parent()
        second = await r.parent("go on")
        child_requests = r.requests("agent-r1")
        [resumed] = tool_results(r.requests(PARENT)[3])[-1:]
    assert first.error is None and second.error is None
    [request] = [e for e in second.execs if e.WhichOneof("message") == "subagent_args"]
    assert request.subagent_args.resume_agent_id == "agent-r1"
    [started] = cards(second, "tool_call_started")
    assert started.args.resume == "agent-r1" and started.args.agent_id == "agent-r1"
    assert len(child_requests) == 2 and extends(child_requests)
    assert "a is fine." in json.dumps(child_requests[1]["messages"])
    assert "b is fine too." in resumed
    assert set(second.checkpoints[-1].subagent_states) == {"agent-r1"}


async def test_a_client_that_never_answers_gets_an_error_after_the_bounded_wait(
    tmp_path: Path,
) -> None:
    settings = SubagentSettings(wait_s=0.5, known_models=SETTINGS.known_models)
    scripts = {PARENT: [uses(task("n1")), answer("No answer came.")]}
    async with rig(tmp_path, scripts, settings) as r:
        cli = OfficialCli(r.url, "proto", r.workspace, build=NEWER)  # knows no subagent_args
        try:
            turn = await cli.run(user_message("go", cli.context), "big", conversation_id=PARENT)
        finally:
            await cli.close()
        [result] = tool_results(r.requests(PARENT)[1])
    [request] = [e for e in turn.execs if e.WhichOneof("message") == "subagent_args"]
    assert "exec_server_control_message" in turn.order, "the exec is aborted"
    assert turn.error is None and result == "Error: the subagent gave no answer within 0.5 s"
    assert request.subagent_args.tool_call_id == "n1"


async def test_the_nov_2025_cli_never_sees_task(tmp_path: Path) -> None:
    scripts = {PARENT: [answer("Hello.")], "conv-newer": [answer("Hello.")]}
    async with rig(tmp_path, scripts) as r:
        for build, conversation in ((None, PARENT), (NEWER, "conv-newer")):
            cli = OfficialCli(r.url, "proto", r.workspace, build=build)
            try:
                run = await cli.run(user_message("hi", None), "big", conversation_id=conversation)
            finally:
                await cli.close()
            assert run.error is None
        old, newer = r.requests(PARENT)[0], r.requests("conv-newer")[0]
    assert "Task" not in offered(old)
    assert "Task" in offered(newer)


async def test_each_subagent_gets_its_model_in_order(tmp_path: Path) -> None:
    settings = SubagentSettings(model="small", known_models=SETTINGS.known_models)
    calls = [
        task("m1", subagent_type="generalPurpose", model="big"),  # the call's own
        task("m2", subagent_type="explore"),  # the run request's override
        task("m3", subagent_type="generalPurpose"),  # the configuration's
        task("m4", subagent_type="generalPurpose", model="gpt-99"),  # unknown: an error
    ]
    scripts = {PARENT: [uses(*calls), answer("Done.")]}
    for n in (1, 2, 3):
        scripts[f"agent-m{n}"] = [answer(f"report {n}")]
    async with rig(tmp_path, scripts, settings) as r:
        action = user_message(SECRET, r.cli.context)
        override = pb.SubagentModelOverride(
            subagent_type="explore", model=pb.RequestedModel(model_id="tiny")
        )
        extra = pb.AgentRunRequest(subagent_model_overrides=[override])
        turn = await r.cli.run(action, "big", conversation_id=PARENT, extra=extra)
        results = tool_results(r.requests(PARENT)[1])
        used = {n: r.models(f"agent-m{n}") for n in (1, 2, 3)}
    assert used == {1: ["big"], 2: ["tiny"], 3: ["small"]}
    execs = [e.subagent_args.model_id for e in turn.execs if e.HasField("subagent_args")]
    assert execs == ["big", "tiny", "small"], "no exec for the unknown model"
    assert results[3].startswith("Error: unknown model 'gpt-99'")


async def test_a_subagent_queued_behind_earlier_work_is_an_error_that_says_so(
    tmp_path: Path,
) -> None:
    scripts = {PARENT: [uses(task("q1")), answer("It is busy.")]}
    async with rig(tmp_path, scripts) as r:
        r.cli.queued.add("q1")
        turn = await r.parent()
        [result] = tool_results(r.requests(PARENT)[1])
    [completed] = cards(turn, "tool_call_completed")
    assert "still running" in completed.result.error.error
    assert result.startswith("Error: the subagent is still running")


async def test_the_users_own_subagent_runs_with_its_prompt_model_and_permissions(
    tmp_path: Path,
) -> None:
    reviewer = pb.CustomSubagent(
        name="reviewer",
        description="Reviews a change strictly.",
        prompt="Be strict: list every risk you see.",
        model="tiny",
        permission_mode=pb.CUSTOM_SUBAGENT_PERMISSION_MODE_READONLY,
    )
    scripts = {
        PARENT: [uses(task("u1", subagent_type="reviewer")), answer("Reviewed.")],
        "agent-u1": [answer("No risks.")],
    }
    async with rig(tmp_path, scripts) as r:
        r.cli.context.custom_subagents.append(reviewer)
        turn = await r.parent()
        parent_request, child_request = r.requests(PARENT)[0], r.requests("agent-u1")[0]
        models = r.models("agent-u1")
    assert turn.error is None
    [tool] = [t for t in parent_request["tools"] if t["name"] == "Task"]
    assert "reviewer" in tool["parameters"]["properties"]["subagent_type"]["enum"]
    [started] = cards(turn, "tool_call_started")
    assert started.args.subagent_type.custom.name == "reviewer"
    assert models == ["tiny"]
    assert "Be strict: list every risk you see." in child_request["systemPrompt"]
    assert offered(child_request) == {"read_file", "grep", "glob", "list_dir", "read_lints"}


async def test_a_child_run_over_http2_is_served_and_linked_to_its_parent(tmp_path: Path) -> None:
    scripts = {
        PARENT: [uses(task("h1", subagent_type="generalPurpose")), answer("Done.")],
        "agent-h1": [answer("Answered over HTTP/2.")],
    }
    async with rig(tmp_path, scripts) as r:
        r.cli.over_http2 = True
        turn = await r.parent()
        [result] = tool_results(r.requests(PARENT)[1])
        loaded = r.store.load("agent-h1")
        [child] = r.cli.http2_children
    assert turn.error is None and child.end == {}
    assert "<response>\nAnswered over HTTP/2.\n</response>" in result
    assert loaded is not None and loaded.state.settings.parent is not None
    parent = loaded.state.settings.parent
    assert (parent.conversation_id, parent.tool_call_id) == (PARENT, "h1")


async def test_the_parents_turn_counts_the_model_calls_its_client_run_child_made(
    tmp_path: Path,
) -> None:
    """The per-turn model-call limit counts children: the child's two calls
    (a read, then its answer) join the parent turn's own two."""
    scripts = {
        PARENT: [uses(task("t1")), answer("a() returns 1.")],
        "agent-t1": [uses(read("r1", "a.py")), answer("a.py: a() returns 1 (line 2).")],
    }
    async with rig(tmp_path, scripts) as r:
        turn = await r.parent()
        loaded = r.store.load(PARENT)
        child = r.store.load("agent-t1")
    assert turn.error is None
    assert child is not None and child.state.turn_calls == 2
    assert loaded is not None and loaded.state.turn_calls == 2 + 2
