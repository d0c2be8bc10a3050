"""Interrupted turns: what streamed before a cancel is kept as a new
interrupted message, its tool calls get error results, unsigned reasoning is
dropped, and the next turn's request is valid for each of the four APIs
(checked on the bodies each adapter's request builder makes)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from cursor_byok.llm.events import ErrorEvent, ResponseEvent, ToolCallStart
from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.serialize import message_from_json, message_to_json
from cursor_byok.llm.types import (
    AssistantMessage,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from cursor_byok.loop import CallLLM, Cancel, Canceled, Ignored, LLMEvent, ToolResult
from tests.factories import READ_TOOL, assistant, result, start, stream_of, tool_call, user
from tests.fakes import partial_of
from tests.loop.drive import Trace
from tests.loop.test_transition import begin

Builder = Callable[[RequestMessages], dict[str, Any]]


def _anthropic_valid(body: dict[str, Any]) -> None:
    messages = body["messages"]
    assert messages[0]["role"] == "user"  # consecutive turns of one role are merged by the API
    for index, message in enumerate(messages):
        assert message["content"], "no empty message"
        for block in message["content"]:
            if block["type"] == "thinking":
                assert block.get("signature"), "no unsigned thinking"
        uses = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if uses:
            following = messages[index + 1]["content"]
            answered = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
            assert answered == uses, "a tool_result for every tool_use, right after it"


def _chat_valid(body: dict[str, Any]) -> None:
    messages = body["messages"]
    for index, message in enumerate(messages):
        calls = [c["id"] for c in message.get("tool_calls") or []]
        for call in message.get("tool_calls") or []:
            json.loads(call["function"]["arguments"])
        following = messages[index + 1 : index + 1 + len(calls)]
        assert [m.get("tool_call_id") for m in following] == calls


def _responses_valid(body: dict[str, Any]) -> None:
    items = body["input"]
    for index, item in enumerate(items):
        if item.get("type") == "function_call":
            json.loads(item["arguments"])
            rest = items[index + 1 :]
            outputs = [i for i in rest if i.get("type") == "function_call_output"]
            assert item["call_id"] in {o["call_id"] for o in outputs}
        if item.get("type") == "reasoning":
            assert item.get("encrypted_content") or item.get("id")


def _gemini_valid(body: dict[str, Any]) -> None:
    contents = body["contents"]
    for index, content in enumerate(contents):
        calls = [p["functionCall"]["id"] for p in content["parts"] if "functionCall" in p]
        if calls:
            answers = contents[index + 1]["parts"]
            assert [p["functionResponse"]["id"] for p in answers] == calls


CASES: list[tuple[str, Builder, Callable[[dict[str, Any]], None]]] = [
    (
        "anthropic",
        lambda r: anthropic.build_request(ModelSpec("anthropic", "claude-sonnet-4-5", "u"), r),
        _anthropic_valid,
    ),
    (
        "openai-chat",
        lambda r: openai_chat.build_request(ModelSpec("openai", "gpt-4o", "u"), r),
        _chat_valid,
    ),
    (
        "openai-responses",
        lambda r: openai_responses.build_request(ModelSpec("openai", "gpt-5", "u"), r),
        _responses_valid,
    ),
    (
        "gemini",
        lambda r: gemini.build_request(ModelSpec("google", "gemini-2.5-pro", "u"), r),
        _gemini_valid,
    ),
]

SIGNED = ThinkingContent("let me think", "sig-abc")
TEXT = TextContent("Here is what I found so far")
WRITE = ToolCall("toolu_9", "write_file", {"path": "a.py"}, '{"path": "a.py", "content": "x"}')


def interrupted_after(
    events: list[ResponseEvent], partial: AssistantMessage | None = None
) -> Trace:
    """Stream `events`, cancel, then hand over the stopped stream's last
    word: the partial response the adapter's assembler built."""
    trace, call = begin()
    trace.stream(call.call_id, events)
    step = trace.feed(Cancel("user canceled", timestamp=7))
    assert step.command == Canceled("user canceled")
    assert trace.state.committed.messages == (user("hello"),), "nothing before the partial"
    last_word = partial_of(events) if partial is None else ErrorEvent("aborted", partial)
    kept = trace.feed(LLMEvent(call.call_id, last_word))
    assert kept.commit and kept.emit == ()
    return trace


def mid_text() -> Trace:
    events = stream_of(assistant(SIGNED, TEXT), chunk=5)
    return interrupted_after(events[:-3])  # within the text, before its end


def mid_tool_call() -> Trace:
    """Stopped halfway through the second call's arguments."""
    events = stream_of(assistant(SIGNED, TEXT, tool_call("t1"), WRITE), chunk=5)
    second = next(
        i for i, e in enumerate(events) if isinstance(e, ToolCallStart) and e.id == WRITE.id
    )
    return interrupted_after(events[: second + 3])


def test_mid_text_keeps_the_text_as_a_new_interrupted_message_without_reasoning() -> None:
    trace = mid_text()
    messages = trace.state.committed.messages
    assert len(messages) == 2
    kept = messages[-1]
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert kept.stop_reason == "aborted" and kept.error_message is None
    assert kept.content == (TextContent(TEXT.text[: len(kept.text)]),), "unsigned reasoning dropped"
    assert 0 < len(kept.text) < len(TEXT.text)
    assert message_from_json(message_to_json(kept)) == kept
    assert trace.state.committed.interrupted_call is None


def test_signed_reasoning_is_kept_verbatim() -> None:
    partial = replace(assistant(SIGNED, TextContent("so")), stop_reason="aborted")
    trace = interrupted_after(stream_of(assistant(SIGNED))[:2], partial)
    kept = trace.state.committed.messages[-1]
    assert isinstance(kept, AssistantMessage) and kept.content == (SIGNED, TextContent("so"))


def test_mid_tool_call_gives_every_streamed_call_an_error_result() -> None:
    trace = mid_tool_call()
    _, kept, first_result, second_result = trace.state.committed.messages
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert [type(b) for b in kept.content] == [TextContent, ToolCall, ToolCall]
    assert [c.id for c in kept.tool_calls] == ["t1", "toolu_9"]
    assert kept.tool_calls[0].arguments == {"path": "a.txt"}
    assert kept.tool_calls[1].arguments == {}, "half an object is not kept"
    assert isinstance(first_result, ToolResultMessage) and first_result.is_error
    assert isinstance(second_result, ToolResultMessage) and second_result.is_error
    assert second_result.tool_call_id == "toolu_9"


def test_nothing_visible_streamed_appends_nothing() -> None:
    events = stream_of(assistant(SIGNED, TEXT), chunk=5)
    trace = interrupted_after(events[:4])  # only unsigned reasoning so far
    assert len(trace.state.committed.messages) == 1


def test_a_partial_after_a_new_turn_began_is_not_kept() -> None:
    trace, call = begin()
    events = stream_of(assistant(TEXT), chunk=5)
    trace.stream(call.call_id, events[:4])
    trace.feed(Cancel("user canceled", timestamp=7))
    trace.feed(start("something else", timestamp=8))
    late = trace.feed(LLMEvent(call.call_id, partial_of(events[:4])))
    assert isinstance(late.command, Ignored)
    assert not any(isinstance(m, AssistantMessage) for m in trace.state.committed.messages)


@pytest.mark.parametrize("scenario", [mid_text, mid_tool_call], ids=["text", "tool-call"])
@pytest.mark.parametrize(("api", "build", "valid"), CASES, ids=[c[0] for c in CASES])
def test_the_next_turn_is_a_valid_request_for_every_api(
    scenario: Callable[[], Trace],
    api: str,
    build: Builder,
    valid: Callable[[dict[str, Any]], None],
) -> None:
    trace = scenario()
    step = trace.feed(start("go on", timestamp=8))
    assert isinstance(step.command, CallLLM)
    request = RequestMessages("Be brief.", step.command.request.messages, (READ_TOOL,))
    assert any(isinstance(m, AssistantMessage) and m.interrupted for m in request.messages), (
        "the interrupted message is sent"
    )
    valid(build(request))


def test_a_late_result_for_an_interrupted_call_changes_nothing() -> None:
    trace = mid_tool_call()
    before = trace.state
    late = trace.feed(ToolResult(result("t1")))
    assert late.state.committed is before.committed
