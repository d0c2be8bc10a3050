"""What the official client needs from the dialect, piece by piece: actions,
request context, read ranges, the token counter, titles, error details."""

from __future__ import annotations

import pytest

from cursor_byok.llm.events import DoneEvent, StartEvent, TextDelta, ThinkingDelta, ThinkingEnd
from cursor_byok.llm.types import TextContent
from cursor_byok.loop.commands import Canceled
from cursor_byok.loop.inputs import Start
from cursor_byok.transport.connect.errors import grpc_web_trailers
from cursor_byok.transport.dialect import checkpoints, dialect, meter
from cursor_byok.transport.dialect.checkpoints import TurnBlobs
from cursor_byok.transport.dialect.read_range import apply_range
from cursor_byok.transport.dialect.run_request import (
    Refused,
    RunStarted,
    decode_run_request,
    refused_error,
)
from cursor_byok.transport.dialect.tools import NativeTool
from cursor_byok.transport.http.aux_rpcs import chat_title
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from cursor_byok.transport.sessions.session import Session
from tests.factories import assistant, tool_call
from tests.transport.connect_parsers import details_from_grpc_status, parse_grpc_web_trailers

CONTEXT = pb.RequestContext(env=pb.RequestContextEnv(shell="zsh"))


def run_with(action: pb.ConversationAction) -> pb.AgentClientMessage:
    run = pb.AgentRunRequest(conversation_id="c", action=action)
    run.requested_model.model_id = "m"
    return pb.AgentClientMessage(run_request=run)


def decode(action: pb.ConversationAction) -> dialect.ClientEvent:
    return dialect.decode_client_message(run_with(action), "req", 7)


def test_a_plan_action_starts_a_turn_in_plan_mode_with_read_only_tools() -> None:
    plan = pb.StartPlanAction(user_message=pb.UserMessage(text="plan it"), request_context=CONTEXT)
    event = decode(pb.ConversationAction(start_plan_action=plan))
    assert isinstance(event, RunStarted) and isinstance(event.start, Start)
    assert event.start.user_message.content == "plan it"
    settings = event.start.settings
    assert settings is not None and settings.system_prompt is not None
    assert "plan mode" in settings.system_prompt and "Shell: zsh" in settings.system_prompt
    assert event.tools.get("edit_file") is None and event.tools.get("read_file") is not None


def test_an_action_without_context_waits_for_it_and_then_starts() -> None:
    message = run_with(pb.ConversationAction(execute_plan_action=pb.ExecutePlanAction()))
    event = dialect.decode_client_message(message, "req", 7)
    assert isinstance(event, RunStarted) and event.needs_context and event.start is None
    answered = decode_run_request(message.run_request, "req", 8, CONTEXT, asked=True)
    assert isinstance(answered, RunStarted) and isinstance(answered.start, Start)
    assert answered.start.user_message.content == "Carry out the plan above, step by step."
    settings = answered.start.settings
    assert settings is not None and "Shell: zsh" in (settings.system_prompt or "")
    unanswered = decode_run_request(message.run_request, "req", 8, None, asked=True)
    assert isinstance(unanswered, RunStarted) and isinstance(unanswered.start, Start)


def test_a_resume_needs_no_context_and_an_unknown_action_is_refused() -> None:
    resume = decode(pb.ConversationAction(resume_action=pb.ResumeAction()))
    assert isinstance(resume, RunStarted) and resume.start is None and not resume.needs_context
    shell = pb.ShellCommandAction(shell_command=pb.ShellCommand(command="ls"))
    refused = decode(pb.ConversationAction(shell_command_action=shell))
    assert refused == Refused(refused_error("shell_command_action"))
    error = refused_error("shell_command_action")
    banner = error.details[0].unpack(error_details_pb2.ErrorDetails)
    assert error.code.value == "unimplemented" and "shell command action" in banner.details.detail


def test_mcp_tools_come_from_the_context_and_the_run_request_alike() -> None:
    def tool(name: str) -> pb.McpToolDefinition:
        return pb.McpToolDefinition(name=f"srv-{name}", provider_identifier="srv", tool_name=name)

    context = pb.RequestContext(tools=[tool("a")])
    action = pb.UserMessageAction(user_message=pb.UserMessage(text="x"), request_context=context)
    message = run_with(pb.ConversationAction(user_message_action=action))
    message.run_request.mcp_tools.mcp_tools.append(tool("b"))
    event = dialect.decode_client_message(message, "req", 7)
    assert isinstance(event, RunStarted)
    found = event.tools.get("mcp_srv_a")
    assert isinstance(found, NativeTool) and event.tools.get("mcp_srv_b") is not None
    assert found.exec_args(tool_call("c1", name="mcp_srv_a")).name == "srv-a"


def test_mcp_server_instructions_reach_the_prompt_except_in_plan_mode() -> None:
    context = pb.RequestContext(
        mcp_instructions=[pb.McpInstructions(server_name="github", instructions="Be terse.")]
    )
    user = pb.UserMessage(text="x")
    agent = decode(
        pb.ConversationAction(
            user_message_action=pb.UserMessageAction(user_message=user, request_context=context)
        )
    )
    plan = decode(
        pb.ConversationAction(
            start_plan_action=pb.StartPlanAction(user_message=user, request_context=context)
        )
    )
    prompts = []
    for event in (agent, plan):
        assert isinstance(event, RunStarted) and isinstance(event.start, Start)
        assert event.start.settings is not None
        prompts.append(event.start.settings.system_prompt or "")
    assert '<mcp_server name="github">\nBe terse.\n</mcp_server>' in prompts[0]
    assert "mcp_server" not in prompts[1]


def test_a_context_answer_is_its_own_event() -> None:
    success = pb.RequestContextResult(success=pb.RequestContextSuccess(request_context=CONTEXT))
    reply = pb.ExecClientMessage(id=3, request_context_result=success)
    event = dialect.decode_client_message(pb.AgentClientMessage(exec_client_message=reply), "r", 1)
    assert event == dialect.ContextArrived(3, CONTEXT)
    failed = pb.ExecClientMessage(id=4, request_context_result=pb.RequestContextResult())
    event = dialect.decode_client_message(pb.AgentClientMessage(exec_client_message=failed), "r", 1)
    assert event == dialect.ContextArrived(4, None)


def read_result(content: str, range_applied: bool = False) -> pb.ExecClientMessage:
    success = pb.ReadSuccess(path="f", content=content, range_applied=range_applied)
    return pb.ExecClientMessage(id=1, read_result=pb.ReadResult(success=success))


@pytest.mark.parametrize(
    ("offset", "limit", "expected"),
    [(2, 2, "b\nc\n"), (None, 1, "a\n"), (3, None, "c\nd"), (0, 1, "a\n"), (9, 1, "")],
)
def test_a_read_is_cut_to_the_asked_lines(
    offset: int | None, limit: int | None, expected: str
) -> None:
    args = pb.ReadArgs(path="f")
    if offset is not None:
        args.offset = offset
    if limit is not None:
        args.limit = limit
    cut = apply_range(args, read_result("a\nb\nc\nd")).read_result.success
    assert (cut.content, cut.total_lines, cut.range_applied) == (expected, 4, True)


def test_a_read_the_client_already_cut_or_did_not_narrow_is_kept() -> None:
    applied = read_result("b\n", range_applied=True)
    assert apply_range(pb.ReadArgs(offset=2, limit=1), applied) == applied
    whole = read_result("a\nb\n")
    assert apply_range(pb.ReadArgs(path="f"), whole) == whole


def _token_steps(session: Session) -> list[int]:
    """The token_delta steps the stream's writer would take now."""
    return [
        item.interaction_update.token_delta.tokens
        for item in session.outbox.take(1000)
        if isinstance(item, pb.AgentServerMessage)
        and item.interaction_update.HasField("token_delta")
    ]


def test_the_token_counter_estimates_while_streaming_and_the_usage_tops_it_up() -> None:
    now = [100.0]
    session = Session("r", feedback=lambda *_: None, release=lambda *_: None, clock=lambda: now[0])
    session.show(StartEvent())
    steps = []
    for piece in ("Hello", " wor", "ld"):
        session.show(TextDelta(0, piece))
        steps.append(_token_steps(session))  # the writer takes each delta at once
    # 5 characters -> 2 tokens, at once; 9 -> 3 and 11 -> still 3: held, too soon
    assert steps == [[2], [], []]
    now[0] += 2 * dialect.TOKEN_STEP_S
    session.show(TextDelta(0, "!!"))  # 13 characters -> 4 tokens: the held one and this
    assert _token_steps(session) == [2]
    done = assistant(TextContent("Hello world!!"))  # the provider counted 5 output tokens
    session.show(DoneEvent("stop", done))
    assert _token_steps(session) == [1]


def test_held_counter_steps_go_with_the_next_event_that_is_not_a_delta() -> None:
    now = [100.0]
    session = Session("r", feedback=lambda *_: None, release=lambda *_: None, clock=lambda: now[0])
    session.show(StartEvent())
    session.show(ThinkingDelta(0, "Hmm"))
    assert _token_steps(session) == [1]
    session.show(ThinkingDelta(0, " let me see"))  # 14 characters -> 4 tokens: held
    assert _token_steps(session) == []
    session.show(ThinkingEnd(0, ""))
    assert _token_steps(session) == [3]
    session.show(TextDelta(0, "Yes."))  # within the step's time of the last move: held
    assert _token_steps(session) == []
    now[0] -= 3600  # the wall clock set back an hour: not an hour of silence
    session.show(TextDelta(0, " Sure"))
    assert _token_steps(session) == [2]


def test_a_burst_of_deltas_moves_the_token_counter_once_by_the_same_sum() -> None:
    session = Session("r", feedback=lambda *_: None, release=lambda *_: None)
    session.show(StartEvent())
    for piece in ("Hello", " wor", "ld"):
        session.show(TextDelta(0, piece))
    session.show(DoneEvent("stop", assistant(TextContent("Hello world"))))
    queued = session.outbox.take(1000)
    updates = [
        item.interaction_update for item in queued if isinstance(item, pb.AgentServerMessage)
    ]
    texts = [u.text_delta.text for u in updates if u.HasField("text_delta")]
    assert texts == ["Hello", " wor", "ld"]  # every delta, in order
    assert [u.token_delta.tokens for u in updates if u.HasField("token_delta")] == [5]
    assert updates[1].HasField("token_delta")  # after the first delta it counts


def test_a_cancel_is_a_user_abort_for_the_client() -> None:
    error = dialect.error_for(Canceled("stop pressed"))
    banner = error.details[0].unpack(error_details_pb2.ErrorDetails)
    assert banner.details.detail == dialect.USER_ABORTED == "User aborted request"
    assert banner.error == error_details_pb2.ErrorDetails.ERROR_USER_ABORTED_REQUEST


def test_grpc_web_trailers_carry_the_error_details() -> None:
    error = dialect.error_for(Canceled("stop"))
    trailers = parse_grpc_web_trailers(grpc_web_trailers(error))
    assert trailers["grpc-status"] == "1"
    [detail] = details_from_grpc_status(trailers["grpc-status-details-bin"])
    assert detail == error.details[0]


@pytest.mark.parametrize(
    ("message", "title"),
    [
        (
            "fix the failing test in parser.py please now thanks",
            "Fix the failing test in parser.py",
        ),
        ("\n\n  `npm` **install** fails\nmore", "Npm install fails"),
        ("", "New Agent"),
        ("x" * 100, "X" + "x" * 46 + "…"),
    ],
)
def test_a_chat_title_is_the_first_words_of_the_first_message(message: str, title: str) -> None:
    assert chat_title(message) == title


def test_checkpoint_blobs_go_out_once_before_the_checkpoint_that_names_them() -> None:
    blobs = TurnBlobs()
    blobs.begin(pb.UserMessage(text="hi"), [b"earlier-turn"], "req")
    blobs.add_answer(assistant(TextContent("hello")))
    first = checkpoints.checkpoint(blobs, meter.checkpoint(10, 100, {}))
    *stored, state = first
    assert [m.WhichOneof("message") for m in stored] == ["kv_server_message"] * 3
    ids = {m.kv_server_message.set_blob_args.blob_id for m in stored}
    turns = list(state.conversation_checkpoint_update.turns)
    assert turns[0] == b"earlier-turn" and turns[1] in ids
    # Nothing changed: the next checkpoint names the same turn and sends no blob again.
    again = checkpoints.checkpoint(blobs, meter.checkpoint(10, 100, {}))
    assert len(again) == 1 and list(again[0].conversation_checkpoint_update.turns) == turns


def test_a_resume_keeps_the_turns_it_was_sent_and_adds_none() -> None:
    blobs = TurnBlobs()
    blobs.begin(None, [b"t1", b"t2"], "req")
    blobs.add_answer(assistant(TextContent("more")))
    [state] = checkpoints.checkpoint(blobs, meter.checkpoint(0, 100, {}))
    assert list(state.conversation_checkpoint_update.turns) == [b"t1", b"t2"]
