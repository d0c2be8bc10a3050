"""The parts of a client's transcript the end-to-end tests do not reach:
arguments that are no JSON object, empty messages, a tool message with no
content, and which assistant messages `stamped` names."""

from __future__ import annotations

from cursor_byok.llm.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from cursor_byok.transport.dialect.transcript import (
    EMPTY_RESULT,
    UNSTAMPED,
    stamped,
    transcript_messages,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant


def history(*messages: pb.ConversationHistoryMessage) -> pb.ConversationHistory:
    return pb.ConversationHistory(messages=messages)


def call(args: str) -> pb.ConversationHistoryMessage:
    made = pb.ConversationHistoryToolCall(tool_call_id="c1", tool_name="grep", args_json=args)
    content = pb.ConversationHistoryAssistantContent(tool_call=made)
    return pb.ConversationHistoryMessage(
        assistant=pb.ConversationHistoryAssistantMessage(content=[content])
    )


def test_arguments_that_are_no_json_object_are_kept_as_none_were_given() -> None:
    """As the assembler keeps a call whose arguments were cut off: `{}`, no raw text."""
    (message,) = transcript_messages(history(call('["not", "an object"]')), 7)
    assert isinstance(message, AssistantMessage)
    assert message.content == (ToolCall("c1", "grep", {}, None),)
    assert message.stop_reason == "toolUse" and message.timestamp == 7


def test_empty_messages_are_left_out_and_an_empty_tool_result_says_so() -> None:
    empty_user = pb.ConversationHistoryMessage(user=pb.ConversationHistoryUserMessage())
    empty_said = pb.ConversationHistoryMessage(assistant=pb.ConversationHistoryAssistantMessage())
    tool = pb.ConversationHistoryToolMessage(tool_call_id="c1", tool_name="grep")
    found = transcript_messages(
        history(empty_user, call("{}"), empty_said, pb.ConversationHistoryMessage(tool=tool)), 1
    )
    assert [type(m) for m in found] == [AssistantMessage, ToolResultMessage]
    assert found[1] == ToolResultMessage("c1", "grep", (TextContent(EMPTY_RESULT),), False, 1)


def test_stamped_names_only_the_transcripts_own_assistant_messages() -> None:
    (mine,) = transcript_messages(history(call("{}")), 1)
    other = assistant(TextContent("from elsewhere"))
    named = stamped((mine, other), ("anthropic-messages", "p", "claude-x"))
    assert isinstance(mine, AssistantMessage) and mine.api == UNSTAMPED
    assert isinstance(named[0], AssistantMessage)
    assert (named[0].api, named[0].provider, named[0].model) == (
        "anthropic-messages",
        "p",
        "claude-x",
    )
    assert named[1] is other
    assert stamped((mine,), None) == (mine,)
