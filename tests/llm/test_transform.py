"""Cross-provider history rules, independent of any wire format."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.transform import NO_RESULT, Target, prepare_history
from cursor_byok.llm.types import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import assistant, result, user

SAME = Target("test-api", "test", "test-model")
OTHER = Target("other-api", "other", "other-model")


def test_same_model_keeps_signed_and_redacted_thinking() -> None:
    message = assistant(ThinkingContent("t", "sig"), ThinkingContent("", "opaque", redacted=True))
    assert prepare_history([message], SAME) == [message]


def test_other_model_gets_thinking_as_text_and_loses_signatures() -> None:
    message = assistant(
        ThinkingContent("idea", "sig"),
        ThinkingContent("", "opaque", redacted=True),
        TextContent("answer", "msg_1"),
        ToolCall("c1", "read_file", {}, thought_signature="ts"),
    )
    (out,) = prepare_history([message], OTHER)
    assert isinstance(out, AssistantMessage)
    assert out.content == (
        TextContent("idea"),
        TextContent("answer"),
        ToolCall("c1", "read_file", {}),
    )


def test_failed_and_aborted_turns_are_left_out() -> None:
    history: list[Message] = [
        user("q"),
        assistant(TextContent("half"), stop_reason="error"),
        assistant(TextContent("cut"), stop_reason="aborted"),
        user("again"),
    ]
    assert prepare_history(history, SAME) == [history[0], history[3]]


def test_ids_are_normalized_on_calls_and_their_results_alike() -> None:
    call = ToolCall("a|b", "read_file", {})
    history: list[Message] = [user("q"), assistant(call), result("a|b")]
    out = prepare_history(history, SAME, lambda i: i.replace("|", "_"))
    assert out[1].content[0].id == "a_b"  # type: ignore[union-attr]
    assert isinstance(out[2], ToolResultMessage) and out[2].tool_call_id == "a_b"


def test_orphaned_calls_get_an_error_result_once_the_conversation_moves_on() -> None:
    history: list[Message] = [
        user("q"),
        assistant(ToolCall("c1", "read_file", {})),
        user("never mind"),
    ]
    out = prepare_history(history, SAME)
    synthetic = out[2]
    assert isinstance(synthetic, ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.is_error) == ("c1", True)
    assert synthetic.content == (TextContent(NO_RESULT),)
    assert out[3] == history[2]


def test_calls_awaiting_results_at_the_end_are_left_alone() -> None:
    history: list[Message] = [user("q"), assistant(ToolCall("c1", "read_file", {}))]
    assert prepare_history(history, SAME) == history


def test_the_transform_is_deterministic_and_does_not_touch_its_input() -> None:
    message = assistant(ThinkingContent("idea", "sig"))
    history: list[Message] = [UserMessage("q"), message]
    first = prepare_history(history, OTHER)
    assert first == prepare_history(history, OTHER)
    assert history[1] is message and message == replace(message)
