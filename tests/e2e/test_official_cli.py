"""The server against a client that plays the official CLI's rules
(tests/e2e/official_cli.py), over a real socket, in each codec: start-up on
a fresh install, shell parsing, plan actions, request context and MCP, read
ranges, the token counter, cancel and error ends."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.client.client import CODECS, cancel
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent, ToolCall
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.aux_rpcs import ModelEntry
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from tests.e2e.official_cli import CliTurn, OfficialCli, user_message
from tests.factories import assistant, error_event, stream_of
from tests.fakes import ScriptedLLM

MODELS = [ModelEntry("sonnet", 200_000, True), ModelEntry("gpt", 400_000)]
GITHUB = pb.McpToolDefinition(
    name="github-create_issue",
    provider_identifier="github",
    tool_name="create_issue",
    description="Open an issue.",
    input_schema_json='{"type": "object", "properties": {"title": {"type": "string"}}}',
)


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(call_id, name, arguments, raw_arguments=json.dumps(arguments))


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


def uses(tool: ToolCall) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent("Let me check."), tool), chunk=4)


@dataclass
class Rig:
    cli: OfficialCli
    llm: ScriptedLLM
    store: SQLiteStore
    service: Service

    def request(self, index: int) -> dict[str, Any]:
        """The model request `index` as the canonical JSON the provider got."""
        loaded: dict[str, Any] = json.loads(self.llm.requests[index][1])
        return loaded


@asynccontextmanager
async def rig(
    tmp_path: Path,
    codec: str,
    scripts: list[list[ResponseEvent]],
    answers_context: bool = True,
    context: pb.RequestContext | None = None,
    delay: float = 0.0,
    context_wait_s: float = 0.3,
    **options: Any,
) -> AsyncIterator[Rig]:
    """`options` go to `build_service` as they are (limits, budgets)."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM(scripts, delay=delay)
    service = build_service(
        store,
        llm,
        models=lambda: MODELS,
        retry=RetryPolicy(1, 0.001, 0.01),
        heartbeat_s=0.5,
        context_wait_s=context_wait_s,
        **options,
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    async with serving(service) as url:
        cli = OfficialCli(url, codec, workspace, context, answers_context)
        try:
            yield Rig(cli, llm, store, service)
        finally:
            await cli.close()
    store.close()


def clean(turn: CliTurn) -> None:
    """The turn ended well and broke none of the CLI's rules."""
    assert turn.violations == []
    assert turn.error is None, turn.error


def card_of(turn: CliTurn, kind: str) -> pb.ToolCall:
    update = next(c for c in turn.cards if c.WhichOneof("message") == kind)
    tool_call: pb.ToolCall = getattr(update, kind).tool_call
    return tool_call


# -- 1. start-up ----------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_a_fresh_cli_finds_a_model_names_the_chat_and_runs_a_turn(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, [answer("Hello there.")]) as r:
        model, title = await r.cli.bootstrap("fix the **failing** test in parser.py, please")
        turn = await r.cli.run(user_message("hi", r.cli.context), model)
    assert (model, title) == ("sonnet", "Fix the failing test in parser.py,")
    clean(turn)
    assert turn.text == "Hello there."
    assert r.llm.requests[0][0] == "sonnet"


# -- 2. shell -------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_a_shell_call_carries_every_command_and_is_never_pre_approved(
    tmp_path: Path, codec: str
) -> None:
    line = "cd src && ls | grep py; rm -rf build > /dev/null"
    scripts = [uses(call("call_sh", "run_terminal_cmd", command=line)), answer("Done.")]
    async with rig(tmp_path, codec, scripts) as r:
        r.cli.shell_output[line] = "parser.py\n"
        turn = await r.cli.run(user_message("clean up", r.cli.context), "sonnet")
    clean(turn)
    [shell] = [e.shell_stream_args for e in turn.execs if e.HasField("shell_stream_args")]
    commands = shell.parsing_result.executable_commands
    assert [c.name for c in commands] == ["cd", "ls", "grep", "rm"]
    assert [a.value for a in commands[3].args] == ["-rf", "build"]
    assert commands[3].full_text == "rm -rf build"
    assert shell.parsing_result.all_redirects_are_dev_null and not shell.skip_approval
    assert card_of(turn, "tool_call_completed").shell_tool_call.result.HasField("success")
    assert "parser.py" in json.dumps(r.request(1)["messages"][-1])


# -- 3. actions -----------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_plan_mode_plans_with_read_only_tools_and_execute_carries_it_out(
    tmp_path: Path, codec: str
) -> None:
    scripts = [answer("1. Edit parser.py."), answer("Editing now.")]
    async with rig(tmp_path, codec, scripts) as r:
        plan = pb.StartPlanAction(
            user_message=pb.UserMessage(text="plan the fix", message_id="p1"),
            request_context=r.cli.context,
        )
        planned = await r.cli.run(pb.ConversationAction(start_plan_action=plan), "sonnet")
        execute = pb.ConversationAction(execute_plan_action=pb.ExecutePlanAction())
        executed = await r.cli.run(execute, "sonnet")
    clean(planned)
    clean(executed)
    first, second = r.request(0), r.request(1)
    assert "plan mode" in first["systemPrompt"]
    read_only = {"read_file", "list_dir", "grep", "glob", "read_lints"}
    assert {t["name"] for t in first["tools"]} == read_only | {"CreatePlan"}
    assert "plan mode" not in second["systemPrompt"]
    assert "edit_file" in {t["name"] for t in second["tools"]}
    # The execute action carries no context: the server asked, and the CLI answered.
    assert executed.execs[0].HasField("request_context_args")
    assert str(r.cli.workspace) in second["systemPrompt"]
    assert "Carry out the plan" in json.dumps(second["messages"][-1])
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]


@pytest.mark.parametrize("codec", CODECS)
async def test_an_action_the_server_does_not_carry_out_ends_with_a_clear_error(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, []) as r:
        action = pb.ConversationAction(
            shell_command_action=pb.ShellCommandAction(shell_command=pb.ShellCommand(command="ls"))
        )
        turn = await r.cli.run(action, "sonnet")
        loaded = r.store.load("conv-cli")
    assert turn.violations == []
    assert turn.error is not None and turn.error["code"] == "unimplemented"
    assert turn.error_details is not None
    assert "shell command action" in turn.error_details.details.detail
    assert r.llm.requests == [] and loaded is None


# -- 5. request context ---------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("in_action", [True, False], ids=["in-action", "asked"])
async def test_mcp_tools_from_the_request_context_are_called_by_their_exact_name(
    tmp_path: Path, codec: str, in_action: bool
) -> None:
    context = pb.RequestContext(
        env=pb.RequestContextEnv(process_working_directory="/src/app"), tools=[GITHUB]
    )
    tool = call("call_mcp", "mcp_github_create_issue", title="Parser bug")
    async with rig(tmp_path, codec, [uses(tool), answer("Filed.")], context=context) as r:
        # Print mode sends no context with the message: the server must ask for it.
        turn = await r.cli.run(user_message("file it", context if in_action else None), "sonnet")
    clean(turn)
    [mcp] = [e.mcp_args for e in turn.execs if e.HasField("mcp_args")]
    assert mcp.name == "github-create_issue" and mcp.tool_name == "create_issue"
    assert mcp.args["title"].string_value == "Parser bug"
    asked = [e for e in turn.execs if e.HasField("request_context_args")]
    assert len(asked) == (0 if in_action else 1)
    assert "/src/app" in r.request(0)["systemPrompt"]
    assert "mcp_github_create_issue" in {t["name"] for t in r.request(0)["tools"]}
    assert "github-create_issue ran" in json.dumps(r.request(1)["messages"][-1])


@pytest.mark.parametrize("codec", CODECS)
async def test_a_client_that_never_answers_the_context_question_still_gets_its_turn(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, [answer("Fine.")], answers_context=False) as r:
        turn = await r.cli.run(user_message("hi", None), "sonnet")
    clean(turn)
    assert turn.text == "Fine."
    assert turn.execs[0].HasField("request_context_args")
    assert "<environment>" not in r.request(0)["systemPrompt"]


async def test_a_cancel_while_the_context_is_awaited_ends_the_run_before_it_starts(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, "proto", [], answers_context=False, context_wait_s=10) as r:
        turn = await r.cli.run(
            user_message("hi", None), "sonnet", during=[cancel()], during_after="exec"
        )
        loaded = r.store.load("conv-cli")
    assert turn.error_details is not None
    assert turn.error_details.details.detail == "User aborted request"
    assert r.llm.requests == [] and loaded is None


async def test_a_turn_that_started_without_its_context_can_still_be_canceled(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, "proto", [answer("word " * 200)], False, delay=0.01) as r:
        turn = await r.cli.run(user_message("hi", None), "sonnet", during=[cancel()])
    assert turn.error is not None and turn.error["code"] == "canceled"
    assert r.llm.streams[0].closed


# -- 6. read ranges -------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_a_read_range_is_cut_server_side_when_the_client_sent_the_whole_file(
    tmp_path: Path, codec: str
) -> None:
    tool = call("call_read", "read_file", path="f.txt", offset=3, limit=2)
    async with rig(tmp_path, codec, [uses(tool), answer("Seen.")]) as r:
        (r.cli.workspace / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
        turn = await r.cli.run(user_message("read it", r.cli.context), "sonnet")
    clean(turn)
    [read] = [e.read_args for e in turn.execs if e.HasField("read_args")]
    assert (read.offset, read.limit) == (3, 2)
    seen = json.dumps(r.request(1)["messages"][-1])
    assert "line 3\\nline 4\\n" in seen and "line 5" not in seen and "line 2" not in seen
    card = card_of(turn, "tool_call_completed").read_tool_call.result.success
    assert (card.content, card.total_lines) == ("line 3\nline 4\n", 10)


# -- 10. token counter, cancel, error ends ----------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_the_token_counter_moves_while_the_answer_streams(tmp_path: Path, codec: str) -> None:
    text = "A streamed answer of a few dozen characters."  # 11 deltas, 0.03 s apart
    async with rig(tmp_path, codec, [answer(text)], delay=0.03) as r:
        turn = await r.cli.run(user_message("hi", r.cli.context), "sonnet")
    clean(turn)
    assert len(turn.token_deltas) >= 3 and all(step > 0 for step in turn.token_deltas)
    # at most one step per TOKEN_STEP_S while the text streams, the first with the first delta
    assert len(turn.token_deltas) < turn.order.count("text_delta")
    assert turn.order.index("token_delta") < turn.order.index("text_delta") + 2
    assert sum(turn.token_deltas) == -(-len(text) // 4)  # the estimate beats the scripted usage


@pytest.mark.parametrize("codec", CODECS)
async def test_a_burst_of_deltas_moves_the_token_counter_in_fewer_steps_to_the_same_sum(
    tmp_path: Path, codec: str
) -> None:
    text = "A streamed answer of a few dozen characters."
    async with rig(tmp_path, codec, [answer(text)]) as r:  # every delta at once
        turn = await r.cli.run(user_message("hi", r.cli.context), "sonnet")
    clean(turn)
    assert turn.text == text
    assert 1 <= len(turn.token_deltas) < turn.order.count("text_delta")
    assert sum(turn.token_deltas) == -(-len(text) // 4)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_user_cancel_ends_as_a_user_abort(tmp_path: Path, codec: str) -> None:
    long_answer = answer("word " * 200)
    async with rig(tmp_path, codec, [long_answer], delay=0.01) as r:
        turn = await r.cli.run(user_message("hi", r.cli.context), "sonnet", during=[cancel()])
    assert turn.violations == []
    assert turn.error is not None and turn.error["code"] == "canceled"
    assert turn.error_details is not None
    assert turn.error_details.details.detail == "User aborted request"
    assert turn.error_details.error == error_details_pb2.ErrorDetails.ERROR_USER_ABORTED_REQUEST


@pytest.mark.parametrize("codec", CODECS)
async def test_a_provider_failure_ends_with_error_details(tmp_path: Path, codec: str) -> None:
    async with rig(tmp_path, codec, [[error_event("upstream 500")]]) as r:
        turn = await r.cli.run(user_message("hi", r.cli.context), "sonnet")
    assert turn.violations == []
    assert turn.error is not None and turn.error_details is not None
    assert turn.error_details.details.detail == "upstream 500"


# -- 7. checkpoints ---------------------------------------------------------------------------


def turn_history(cli: OfficialCli) -> list[tuple[str, list[str]]]:
    """What the client would render on resume: each turn's user text and steps."""
    assert cli.checkpoint is not None
    rendered = []
    for turn_id in cli.checkpoint.turns:
        turn = pb.ConversationTurnStructure.FromString(cli.blobs[turn_id]).agent_conversation_turn
        user = pb.UserMessage.FromString(cli.blobs[turn.user_message])
        steps = [pb.ConversationStep.FromString(cli.blobs[s]) for s in turn.steps]
        rendered.append((user.text, [str(s.WhichOneof("message")) for s in steps]))
    return rendered


@pytest.mark.parametrize("codec", CODECS)
async def test_checkpoints_carry_turns_stored_as_blobs_and_name_the_pending_call(
    tmp_path: Path, codec: str
) -> None:
    tool = call("call_read", "read_file", path="a.txt")
    scripts = [uses(tool), answer("It says hi."), answer("You are welcome.")]
    async with rig(tmp_path, codec, scripts) as r:
        (r.cli.workspace / "a.txt").write_text("hi\n")
        first = await r.cli.run(user_message("what is in a.txt?", r.cli.context), "sonnet")
        after_first = turn_history(r.cli)
        second = await r.cli.run(user_message("thanks", r.cli.context), "sonnet")
    clean(first)
    clean(second)
    exec_at = first.order.index("exec_server_message")
    assert first.order[exec_at + 1] == "conversation_checkpoint_update"
    [pending] = first.checkpoints[1].pending_tool_calls
    assert json.loads(pending)["content"][0]["toolCallId"] == "call_read"
    assert list(first.checkpoints[-1].pending_tool_calls) == []
    assert after_first == [
        ("what is in a.txt?", ["assistant_message", "tool_call", "assistant_message"])
    ]
    # The second run sent the checkpoint back; its turns follow the first one.
    assert turn_history(r.cli) == [*after_first, ("thanks", ["assistant_message"])]
    details = second.checkpoints[-1].token_details
    assert (details.used_tokens, details.max_tokens) == (10, 200_000)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_fresh_install_without_any_key_still_starts_and_says_what_to_set(
    tmp_path: Path, codec: str
) -> None:
    empty = tmp_path / "config.toml"
    empty.write_text("")  # an empty configuration and no key in the environment
    router = Router(load_config(empty, env={}), env={})
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store, router, models=router.entries, default_model=lambda: router.config.default_model
    )
    async with serving(service) as url:
        cli = OfficialCli(url, codec, tmp_path)
        try:
            model, _title = await cli.bootstrap("hello")
            turn = await cli.run(user_message("hello", cli.context), model)
        finally:
            await cli.close()
    store.close()
    clean(turn)
    assert "ANTHROPIC_API_KEY" in turn.text
