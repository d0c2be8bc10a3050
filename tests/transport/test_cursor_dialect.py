"""The Cursor dialect, message kind by message kind (seed §17.3): protobuf to
loop inputs, and model events and commands to protobuf."""

from __future__ import annotations

import json
from base64 import b64encode

import pytest
from google.protobuf import json_format, struct_pb2

from cursor_byok.client.client import cancel, exec_reply, run_request, stream_close
from cursor_byok.llm.events import (
    DoneEvent,
    StartEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallStart,
)
from cursor_byok.llm.types import ImageContent, JSONValue, TextContent, ToolDefinition, Usage
from cursor_byok.loop.commands import CallClient, Canceled, Failed, Final
from cursor_byok.loop.inputs import Start
from cursor_byok.transport.connect.errors import Code
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.dialect.clients import CAUTIOUS
from cursor_byok.transport.dialect.meter import turn_ended
from cursor_byok.transport.dialect.run_request import RunStarted
from cursor_byok.transport.dialect.shell import SHELL_KEEP_CHARS, ShellCollector
from cursor_byok.transport.dialect.tools import (
    BUILTIN,
    MAX_RESULT_CHARS,
    NativeTool,
    NextExec,
    ToolOutcome,
    ToolSet,
    offered,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from cursor_byok.transport.sessions.exec_tracker import ExecTracker
from tests.factories import assistant, error_event, tool_call
from tests.image_samples import GIF, GIF_AS_PNG, WEBP, png
from tests.transport.shared_fixtures import load_cursor_fixture


def decode(message: pb.AgentClientMessage) -> dialect.ClientEvent:
    return dialect.decode_client_message(message, "req-9", 1234)


def test_a_run_request_becomes_a_start_with_the_model_and_the_tools() -> None:
    message = run_request("Fix the bug", conversation_id="conv-7", model="claude-sonnet-4-6")
    message.run_request.mcp_tools.mcp_tools.append(
        pb.McpToolDefinition(
            name="github",
            provider_identifier="github",
            tool_name="create_issue",
            description="Open an issue.",
            input_schema=struct_pb2.Value(
                struct_value=struct_pb2.Struct(
                    fields={"type": struct_pb2.Value(string_value="object")}
                )
            ),
        )
    )
    message.run_request.custom_system_prompt = "Always answer in French."
    event = decode(message)
    assert isinstance(event, RunStarted)
    assert (event.conversation_id, event.model) == ("conv-7", "claude-sonnet-4-6")
    assert isinstance(event.start, Start)
    assert event.start.user_message.content == "Fix the bug"
    assert event.start.user_message.timestamp == 1234
    settings = event.start.settings
    assert settings is not None and settings.model == "claude-sonnet-4-6"
    assert settings.system_prompt is not None and "French" in settings.system_prompt
    names = [tool.name for tool in settings.tools]
    # No client headers: the Nov-2025 CLI's row, no tool that asks the user; agent
    # mode, no plan tool.
    asking = ("AskQuestion", "SwitchMode", "CreatePlan")
    cautious = [tool.name for tool in BUILTIN if tool.name not in asking]
    assert names[: len(cautious)] == cautious and not set(names) & set(asking)
    assert "mcp_github_create_issue" in names


def test_a_run_request_without_a_conversation_id_uses_the_request_id() -> None:
    message = run_request("hi")
    message.run_request.ClearField("conversation_id")
    event = decode(message)
    assert isinstance(event, RunStarted) and event.conversation_id == "req-9"


def test_model_details_are_the_fallback_model() -> None:
    message = run_request("hi")
    message.run_request.ClearField("requested_model")
    message.run_request.model_details.model_id = "gpt-5.1"
    event = decode(message)
    assert isinstance(event, RunStarted) and event.model == "gpt-5.1"


def test_a_resume_has_no_new_user_message() -> None:
    message = run_request("ignored")
    message.run_request.action.resume_action.SetInParent()
    event = decode(message)
    assert isinstance(event, RunStarted) and event.start is None


def test_exec_results_throws_cancels_and_follow_ups_are_told_apart() -> None:
    request = pb.ExecServerMessage(id=3, exec_id="op-3")
    reply = decode(exec_reply(request, read_result=pb.ReadResult()))
    assert isinstance(reply, dialect.ExecReply) and (reply.number, reply.exec_id) == (3, "op-3")
    throw = pb.AgentClientMessage(
        exec_client_control_message=pb.ExecClientControlMessage(
            throw=pb.ExecClientThrow(id=3, error="user rejected")
        )
    )
    assert decode(throw) == dialect.ExecThrown(3, "user rejected")
    assert decode(cancel("enough")) == dialect.CancelRequested("enough")
    follow = pb.AgentClientMessage(
        conversation_action=pb.ConversationAction(
            user_message_action=pb.UserMessageAction(user_message=pb.UserMessage(text="also x"))
        )
    )
    follow_up = decode(follow)
    assert isinstance(follow_up, dialect.FollowUp) and follow_up.message.content == "also x"


@pytest.mark.parametrize(
    "message",
    [
        stream_close(1),
        pb.AgentClientMessage(client_heartbeat=pb.ClientHeartbeat()),
        pb.AgentClientMessage(),
    ],
)
def test_messages_that_need_nothing_are_ignored(message: pb.AgentClientMessage) -> None:
    assert isinstance(decode(message), dialect.Ignored)


def test_a_kv_answer_names_the_request_it_answers() -> None:
    reply = pb.KvClientMessage(id=7, set_blob_result=pb.SetBlobResult())
    assert decode(pb.AgentClientMessage(kv_client_message=reply)) == dialect.KvAnswered(7)


def test_model_events_become_interaction_updates() -> None:
    context = dialect.StreamContext(stream_id="req-1")
    tools = ToolSet.for_run()
    assert dialect.encode_event(StartEvent(), context, tools, 0.0) == []
    assert context.model_call_id == "req-1:model:1"
    [text] = dialect.encode_event(TextDelta(0, "Hi"), context, tools, 0.0)
    assert text.SerializeToString().hex() == "0a060a040a024869"  # protocol reference §1.9
    assert context.unsent_tokens == 1  # the session queues the counter's step
    context.unsent_tokens = 0
    assert dialect.encode_event(ThinkingStart(1), context, tools, 10.0) == []
    # "Hi" + "ok" is still one token of four characters: the counter does not move.
    [thinking] = dialect.encode_event(ThinkingDelta(1, "ok"), context, tools, 10.0)
    assert thinking.SerializeToString().hex() == "0a0822060a026f6b1001"
    assert context.unsent_tokens == 0
    [completed] = dialect.encode_event(ThinkingEnd(1, "ok"), context, tools, 10.25)
    assert completed.interaction_update.thinking_completed.thinking_duration_ms == 250
    [partial] = dialect.encode_event(ToolCallStart(2, "call_1", "read_file"), context, tools, 0)
    update = partial.interaction_update.partial_tool_call
    assert (update.call_id, update.model_call_id) == ("call_1", "req-1:model:1")
    assert update.tool_call.WhichOneof("tool") == "read_tool_call"
    assert dialect.encode_event(ToolCallStart(3, "c", "no_such_tool"), context, tools, 0) == []


def test_a_heartbeat_is_the_documented_bytes() -> None:
    assert dialect.heartbeat().SerializeToString().hex() == "0a026a00"


def test_a_tool_call_goes_out_as_started_checkpoint_exec_checkpoint() -> None:
    context = dialect.StreamContext(stream_id="r", model_call_id="r:model:1")
    command = CallClient("conv:turn:1:tool:call_1", tool_call("call_1", "src/a.py"))
    tool = ToolSet.for_run().get("read_file")
    assert isinstance(tool, NativeTool)
    tracker = ExecTracker(context.exec_number)
    exec_request = tracker.start(command.tool_call, tool, command.operation_id)
    assert context.next_exec == 2 and tracker.asked(command.operation_id)
    messages = dialect.encode_call_client(command, tool, context, exec_request)
    started, checkpoint, request, after = messages
    assert list(checkpoint.conversation_checkpoint_update.pending_tool_calls) == []
    [pending] = after.conversation_checkpoint_update.pending_tool_calls
    assert json.loads(pending)["content"][0]["toolCallId"] == "call_1"
    assert started.interaction_update.tool_call_started.call_id == "call_1"
    card = started.interaction_update.tool_call_started.tool_call.read_tool_call
    assert card.args.path == "src/a.py"
    assert checkpoint.HasField("conversation_checkpoint_update")
    exec_message = request.exec_server_message
    assert (exec_message.id, exec_message.exec_id) == (1, "conv:turn:1:tool:call_1")
    assert (exec_message.read_args.path, exec_message.read_args.tool_call_id) == (
        "src/a.py",
        "call_1",
    )


def test_a_call_re_sent_before_any_model_call_still_carries_a_model_call_id() -> None:
    """A stream opened by a resume re-sends the pending call before its own
    first model call; the CLI drops cards with an empty model_call_id."""
    context = dialect.StreamContext(stream_id="resumed")
    command = CallClient("conv:turn:1:tool:call_1", tool_call("call_1", "a.txt"))
    tool = ToolSet.for_run().get("read_file")
    assert isinstance(tool, NativeTool)
    request = ExecTracker(context.exec_number).start(command.tool_call, tool, command.operation_id)
    started = dialect.encode_call_client(command, tool, context, request)[0]
    [completed] = dialect.encode_tool_completed(command.tool_call, tool, None, context)
    assert started.interaction_update.tool_call_started.model_call_id == "resumed:model:0"
    assert completed.interaction_update.tool_call_completed.model_call_id == "resumed:model:0"


def test_turn_ended_encodes_usage_as_the_live_client_saw_it() -> None:
    samples = [
        s
        for s in load_cursor_fixture("turn_ended_usage_live.json")["samples"]
        if s.get("terminal_hex")
    ]
    assert samples
    for sample in samples:
        usage = Usage(
            input=sample["input"],
            output=sample["output"],
            cache_read=sample["cache_read"],
            cache_write=sample["cache_write"],
            reasoning=sample["reasoning"],
        )
        encoded = turn_ended(usage).interaction_update.turn_ended.SerializeToString()
        assert encoded.hex() == sample["terminal_hex"]


def test_the_final_sequence_carries_token_details_then_usage() -> None:
    context = dialect.StreamContext(context_window=256_000)
    usage = Usage(input=100, output=20, cache_read=900, cache_write=5)
    dialect.encode_event(
        DoneEvent("stop", assistant(TextContent("x"))), context, ToolSet.for_run(), 0
    )
    context.usage = usage
    context.last_prompt_tokens = 1005
    checkpoint, ended = dialect.encode_final(Final(assistant(TextContent("x"))), context)
    details = checkpoint.conversation_checkpoint_update.token_details
    official = load_cursor_fixture("checkpoint_token_details_official.json")
    ours = json_format.MessageToDict(details, preserving_proto_field_name=True)
    assert set(ours) <= set(official) and {"used_tokens", "max_tokens"} <= set(ours)
    assert (details.used_tokens, details.max_tokens) == (1005, 256_000)
    assert ended.interaction_update.turn_ended.cache_read_tokens == 900


def test_done_events_add_up_the_turn_usage() -> None:
    context = dialect.StreamContext()
    for _ in range(2):
        dialect.encode_event(
            DoneEvent("stop", assistant(TextContent("x"))), context, ToolSet.for_run(), 0
        )
    assert (context.usage.input, context.usage.output) == (20, 10)
    assert context.last_prompt_tokens == 10


def test_a_provider_failure_ends_with_error_details_for_the_banner() -> None:
    error = dialect.error_for(Failed(error_event("rate limited by provider").message))
    assert error.code is Code.UNAVAILABLE and error.message == "rate limited by provider"
    details = error.details[0].unpack(error_details_pb2.ErrorDetails)
    assert details.error == error_details_pb2.ErrorDetails.ERROR_PROVIDER_ERROR
    assert details.details.detail == "rate limited by provider"
    assert details.details.is_retryable
    canceled = dialect.error_for(Canceled("user stop"))
    assert canceled.code is Code.CANCELED and "user stop" in canceled.message


def shell_message(**event: object) -> pb.ExecClientMessage:
    return pb.ExecClientMessage(id=4, exec_id="op", shell_stream=pb.ShellStream(**event))  # type: ignore[arg-type]


def test_a_shell_stream_is_collected_into_one_result() -> None:
    collector = ShellCollector("ls", "/w")
    assert collector.feed(shell_message(start=pb.ShellStreamStart())) is None
    assert collector.feed(shell_message(stdout=pb.ShellStreamStdout(data="a\n"))) is None
    assert collector.feed(shell_message(stderr=pb.ShellStreamStderr(data="warn\n"))) is None
    final = collector.feed(shell_message(exit=pb.ShellStreamExit(code=0, cwd="/w")))
    assert final is not None
    success = final.shell_result.success
    assert (success.stdout, success.stderr, success.exit_code) == ("a\n", "warn\n", 0)
    tool = ToolSet.for_run().get("run_terminal_cmd")
    assert isinstance(tool, NativeTool)
    outcome = tool.outcome(final)
    assert not outcome.is_error and "exit code 0" in outcome.text and "[stderr]" in outcome.text


def test_a_failing_or_refused_command_is_reported() -> None:
    collector = ShellCollector("false", "/w")
    final = collector.feed(shell_message(exit=pb.ShellStreamExit(code=1)))
    assert final is not None and final.shell_result.failure.exit_code == 1
    refused = ShellCollector("rm -rf /", "/w").feed(
        shell_message(rejected=pb.ShellRejected(command="rm -rf /", reason="not allowed"))
    )
    assert refused is not None
    tool = ToolSet.for_run().get("run_terminal_cmd")
    assert isinstance(tool, NativeTool)
    outcome = tool.outcome(refused)
    assert outcome.is_error and "not allowed" in outcome.text


def outcome_of(name: str, **result: object) -> tuple[str, bool]:
    tool = ToolSet.for_run().get(name)
    assert isinstance(tool, NativeTool)
    done = tool.outcome(pb.ExecClientMessage(**result))  # type: ignore[arg-type]
    return done.text, done.is_error


def test_each_tool_result_reads_well_for_the_model() -> None:
    assert outcome_of(
        "read_file", read_result=pb.ReadResult(file_not_found=pb.ReadFileNotFound(path="x.py"))
    ) == ("file not found: x.py", True)
    tree = pb.LsDirectoryTreeNode(
        abs_path="/w",
        children_dirs=[pb.LsDirectoryTreeNode(abs_path="/w/src", children_were_processed=True)],
        children_files=[pb.LsDirectoryTreeNode.File(name="README.md")],
        children_were_processed=True,
    )
    text, error = outcome_of(
        "list_dir", ls_result=pb.LsResult(success=pb.LsSuccess(directory_tree_root=tree))
    )
    assert not error and text.splitlines() == ["/w/", "  /w/src/", "  README.md"]
    grep = pb.GrepResult(success=pb.GrepSuccess(pattern="x"))
    grep.success.workspace_results["/w"].content.matches.append(
        pb.GrepFileMatch(file="a.py", matches=[pb.GrepContentMatch(line_number=3, content="x = 1")])
    )
    assert outcome_of("grep", grep_result=grep) == ("a.py:3:x = 1", False)
    written = pb.WriteResult(success=pb.WriteSuccess(path="b.py", lines_created=2, file_size=9))
    assert outcome_of("write_file", write_result=written)[0].startswith("Wrote b.py")
    denied = pb.DeleteResult(permission_denied=pb.DeletePermissionDenied(path="c"))
    assert outcome_of("delete_file", delete_result=denied)[1] is True


def test_long_output_is_cut_and_says_so() -> None:
    big = pb.ReadResult(success=pb.ReadSuccess(path="big", content="y" * (MAX_RESULT_CHARS + 50)))
    text, _ = outcome_of("read_file", read_result=big)
    assert len(text) < MAX_RESULT_CHARS + 100 and "50 more characters" in text


def test_mcp_calls_carry_the_server_tool_and_arguments() -> None:
    definition = pb.McpToolDefinition(
        name="github",
        provider_identifier="github",
        tool_name="create_issue",
        input_schema_json=json.dumps({"type": "object"}),
    )
    tool = ToolSet.for_run([definition]).get("mcp_github_create_issue")
    assert isinstance(tool, NativeTool)
    call = tool_call("call_9", "unused")
    call = type(call)("call_9", tool.name, {"title": "Bug", "labels": ["a", "b"], "n": 2})
    request = tool.exec_request(call, 7, "op-7").mcp_args
    assert (request.provider_identifier, request.tool_name) == ("github", "create_issue")
    assert json_format.MessageToDict(request)["args"] == {
        "title": "Bug",
        "labels": ["a", "b"],
        "n": 2,
    }
    result = pb.McpResult(
        success=pb.McpSuccess(
            content=[pb.McpToolResultContentItem(text=pb.McpTextContent(text="#12"))]
        )
    )
    done = tool.outcome(pb.ExecClientMessage(mcp_result=result))
    assert (done.text, done.is_error) == ("#12", False)


def test_the_environment_rules_and_attachments_reach_the_model() -> None:
    message = run_request("Why does this fail?", context=pb.RequestContext())
    action = message.run_request.action.user_message_action
    env = action.request_context.env
    env.workspace_paths.append("/home/me/project")
    env.os_version = "linux 6.8"
    env.shell = "zsh"
    action.request_context.rules.append(
        pb.CursorRule(full_path=".cursor/rules/style.mdc", content="Use tabs.")
    )
    selected = action.user_message.selected_context
    selected.files.append(
        pb.SelectedFile(path="/home/me/project/a.py", relative_path="a.py", content="print(1)")
    )
    selected.selected_images.append(pb.SelectedImage(data=png(), mime_type="image/png"))
    event = decode(message)
    assert isinstance(event, RunStarted) and isinstance(event.start, Start)
    settings = event.start.settings
    assert settings is not None and settings.system_prompt is not None
    assert "Workspace: /home/me/project" in settings.system_prompt
    assert "Shell: zsh" in settings.system_prompt
    assert '<rule path=".cursor/rules/style.mdc">\nUse tabs.' in settings.system_prompt
    content = event.start.user_message.content
    assert isinstance(content, tuple)
    assert content[0] == TextContent('<attached_file path="a.py">\nprint(1)\n</attached_file>')
    assert content[1].mime_type == "image/png"  # type: ignore[union-attr]
    assert content[-1] == TextContent("Why does this fail?")


def test_an_image_is_typed_by_its_bytes_not_by_the_client() -> None:
    """The CLI calls every image JPEG; a provider refuses a PNG sent as one."""
    message = run_request("What is this?")
    selected = message.run_request.action.user_message_action.user_message.selected_context
    selected.selected_images.append(pb.SelectedImage(data=png(), mime_type="image/jpeg"))
    selected.selected_images.append(pb.SelectedImage(data=WEBP, mime_type="image/jpeg"))
    selected.selected_images.append(pb.SelectedImage(data=b"%PDF-1.7", mime_type="image/jpeg"))
    event = decode(message)
    assert isinstance(event, RunStarted) and isinstance(event.start, Start)
    content = event.start.user_message.content
    assert isinstance(content, tuple)
    assert [getattr(block, "mime_type", None) for block in content[:2]] == [
        "image/png",
        "image/webp",
    ]
    note = content[2]
    assert isinstance(note, TextContent) and "not a PNG, JPEG, GIF or WebP image" in note.text
    assert content[-1] == TextContent("What is this?")


def test_a_plain_message_stays_a_plain_string() -> None:
    event = decode(run_request("just text"))
    assert isinstance(event, RunStarted) and isinstance(event.start, Start)
    assert event.start.user_message.content == "just text"


def edit_step(content: str, **arguments: JSONValue) -> ToolOutcome | NextExec:
    tool = ToolSet.for_run().get("edit_file")
    assert isinstance(tool, NativeTool)
    call = type(tool_call("x"))("c1", "edit_file", {"path": "f.py", **arguments})
    read = pb.ExecClientMessage(
        read_result=pb.ReadResult(success=pb.ReadSuccess(path="f.py", content=content))
    )
    return tool.step(call, read, {})


def test_an_edit_refuses_a_missing_or_ambiguous_piece() -> None:
    missing = edit_step("a\nb\n", old_string="zzz", new_string="y")
    assert isinstance(missing, ToolOutcome)
    assert missing.is_error and "not found" in missing.text
    twice = edit_step("x\nx\n", old_string="x", new_string="y")
    assert isinstance(twice, ToolOutcome)
    assert twice.is_error and "occurs 2 times" in twice.text
    every = edit_step("x\nx\n", old_string="x", new_string="y", replace_all=True)
    assert isinstance(every, NextExec)
    assert every.args.file_text == "y\ny\n"


def test_replace_all_may_grow_a_file_by_the_tool_result_limit_at_most() -> None:
    """A short pattern times a long replacement, everywhere it occurs, would
    build a file of any size in the server's memory; it is refused before
    it is built, and the file is left as it was."""
    content = "a" * 100_000
    refused = edit_step(content, old_string="a", new_string="bb", replace_all=True)
    assert isinstance(refused, ToolOutcome) and refused.is_error
    assert "would add 100,000 characters" in refused.text
    assert f"at most {MAX_RESULT_CHARS:,}" in refused.text
    large = "x" * 200_000 + "foo\n" * 1000  # a large file, a modest rename: fine
    renamed = edit_step(large, old_string="foo", new_string="foo_bar", replace_all=True)
    assert isinstance(renamed, NextExec)
    assert renamed.args.file_text == "x" * 200_000 + "foo_bar\n" * 1000


def test_shell_output_is_kept_only_up_to_what_the_model_can_see() -> None:
    collector = ShellCollector("yes", "/w")
    chunk = "y\n" * 10_000
    for _ in range(20):
        collector.feed(shell_message(stdout=pb.ShellStreamStdout(data=chunk)))
    final = collector.feed(shell_message(exit=pb.ShellStreamExit(code=0)))
    assert final is not None
    assert len(final.shell_result.success.stdout) == SHELL_KEEP_CHARS


def test_every_run_offers_the_same_builtin_definitions_and_its_own_mcp_tools() -> None:
    plain = ToolSet.for_run().definitions()
    assert plain == tuple(tool.definition() for tool in BUILTIN if offered(tool, CAUTIOUS))
    assert all(a is b for a, b in zip(plain, ToolSet.for_run([]).definitions(), strict=True))
    definition = pb.McpToolDefinition(name="gh", tool_name="issue", input_schema_json="{}")
    with_mcp = ToolSet.for_run([definition]).definitions()
    assert with_mcp[: len(plain)] == plain and with_mcp[-1].name == "mcp_server_issue"
    read_only = ToolSet.for_run(only=frozenset({"read_file"})).definitions()
    assert [d.name for d in read_only] == ["read_file"]


def test_runs_of_one_kind_share_their_tool_definitions_and_only_plan_mode_may_plan() -> None:
    """A run without MCP tools gets its client's shared set: the same
    definitions (and their metered characters) every time, not a new tuple
    per run; the plan tool is in plan mode's set alone."""
    planning = run_request("make a plan", "conv-3")
    planning.run_request.action.user_message_action.user_message.mode = pb.AGENT_MODE_PLAN
    first, again, planned = (
        decode(message) for message in (run_request("one"), run_request("two", "conv-2"), planning)
    )
    sent: list[tuple[ToolDefinition, ...]] = []
    for run in (first, again, planned):
        assert isinstance(run, RunStarted) and isinstance(run.start, Start)
        assert run.start.settings is not None
        sent.append(run.start.settings.tools)
        # What is metered is what the model is sent.
        size = sum(
            len(t.name + t.description + json.dumps(t.parameters, ensure_ascii=False))
            for t in run.start.settings.tools
        )
        assert run.characters["tools"] == size
    assert isinstance(first, RunStarted) and isinstance(again, RunStarted)
    assert isinstance(planned, RunStarted)
    assert sent[0] is sent[1] and first.tools is again.tools
    assert "CreatePlan" not in first.tools.tools and "CreatePlan" in planned.tools.tools
    assert "CreatePlan" in [tool.name for tool in sent[2]]


def test_a_message_typed_during_a_turn_keeps_its_images() -> None:
    """Inline images come along; one sent by blob id alone is not fetched
    mid-turn, and the model is told so rather than left guessing."""
    typed = pb.UserMessage(text="and this one?")
    typed.selected_context.selected_images.append(pb.SelectedImage(data=GIF))
    typed.selected_context.selected_images.append(pb.SelectedImage(blob_id=b"\x01" * 32))
    action = pb.ConversationAction(user_message_action=pb.UserMessageAction(user_message=typed))
    event = decode(pb.AgentClientMessage(conversation_action=action))
    assert isinstance(event, dialect.FollowUp)
    content = event.message.content
    assert isinstance(content, tuple)
    picture, note, text = content
    # The GIF comes as what it is stored as: a PNG of its first frame.
    assert picture == ImageContent(b64encode(GIF_AS_PNG).decode("ascii"), "image/png")
    assert isinstance(note, TextContent) and "left out" in note.text
    assert text == TextContent("and this one?")
