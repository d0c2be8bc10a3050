"""Input ids name what a message is, so a seqno that starts over (a client
reconnecting to a restarted server with the same request id) never names
a committed input, and a resend of the same message is the duplicate it is."""

from __future__ import annotations

from cursor_byok.transport.dialect import input_ids
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def run(text: str, message_id: str, checkpoint_turn: bytes = b"") -> pb.AgentRunRequest:
    action = pb.ConversationAction(
        user_message_action=pb.UserMessageAction(
            user_message=pb.UserMessage(text=text, message_id=message_id)
        )
    )
    request = pb.AgentRunRequest(conversation_id="c", action=action)
    if checkpoint_turn:
        request.conversation_state.turns.append(checkpoint_turn)
    return request


def test_a_run_is_named_by_its_message_not_by_the_checkpoint_or_the_request_id() -> None:
    first = input_ids.run_id("r-1", run("hi", "m-1"))
    assert first == input_ids.run_id("r-2", run("hi", "m-1", checkpoint_turn=b"t"))
    assert first != input_ids.run_id("r-1", run("hi again", "m-1"))  # one id reused for all
    assert first != input_ids.run_id("r-1", run("hi", "m-2"))


def test_a_run_without_a_message_id_is_named_by_its_request_id_and_action() -> None:
    resume = pb.AgentRunRequest(
        conversation_id="c", action=pb.ConversationAction(resume_action=pb.ResumeAction())
    )
    named = input_ids.run_id("r-1", resume)
    assert named == input_ids.run_id("r-1", resume)
    assert named != input_ids.run_id("r-2", resume)
    assert named != input_ids.run_id("r-1", run("hi", ""))


def test_a_tool_result_is_named_by_its_operation_whatever_carried_it() -> None:
    assert input_ids.tool_result_id("op-1") == input_ids.tool_result_id("op-1")
    assert input_ids.tool_result_id("op-1") != input_ids.tool_result_id("op-2")


def test_a_typed_message_is_named_by_its_id_and_bytes() -> None:
    typed = pb.UserMessage(text="note", message_id="m-9")
    assert input_ids.user_message_id(typed) == input_ids.user_message_id(
        pb.UserMessage(text="note", message_id="m-9")
    )
    assert input_ids.user_message_id(pb.UserMessage(text="note")) is None
    assert input_ids.message_id_of("r", b"a") != input_ids.message_id_of("r", b"b")
