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
from cursor_byok.loop import (
    CallLLM,
    Cancel,
    Canceled,
    Ignored,
    LLMEvent,
    RuntimeState,
    Status,
    StopCall,
    ToolResult,
)
from tests.factories import READ_TOOL, assistant, result, start, stream_of, tool_call, user
from tests.fakes import partial_of
from tests.llm.provider_rules import check_request
from tests.loop.drive import Trace
from tests.loop.test_transition import begin

Builder = Callable[[RequestMessages], dict[str, Any]]

# Each API's request builder, with a model the provider rules know.
CASES: list[tuple[str, str, Builder]] = [
    (
        "anthropic",
        "claude-sonnet-4-5",
        lambda r: anthropic.build_request(ModelSpec("anthropic", "claude-sonnet-4-5", "u"), r),
    ),
    (
        "openai-chat",
        "gpt-4o",
        lambda r: openai_chat.build_request(ModelSpec("openai", "gpt-4o", "u"), r),
    ),
    (
        "openai-responses",
        "gpt-5",
        lambda r: openai_responses.build_request(ModelSpec("openai", "gpt-5", "u"), r),
    ),
    (
        "gemini",
        "gemini-2.5-pro",
        lambda r: gemini.build_request(ModelSpec("google", "gemini-2.5-pro", "u"), r),
    ),
]

SIGNED = ThinkingContent("let me think", "sig-abc")
TEXT = TextContent("Here is what I found so far")
WRITE = ToolCall("toolu_9", "write_file", {"path": "a.py"}, '{"path": "a.py", "content": "x"}')


def interrupted_after(
    events: list[ResponseEvent], partial: AssistantMessage | None = None
) -> Trace:
    """Stream `events`, cancel, then hand over the stopped stream's last
    word: the partial response the adapter's assembler built. The cancel
    commits nothing until that word comes: then both are one commit, and
    only that ends the turn canceled."""
    trace, call = begin()
    trace.stream(call.call_id, events)
    step = trace.feed(Cancel("user canceled", timestamp=7))
    assert step.command == StopCall(call.call_id) and not step.commit
    stopping = trace.state.committed
    assert stopping.status is Status.WAITING_LLM, "nothing committed yet"
    assert stopping.messages == (user("hello"),), "nothing before the partial"
    last_word = partial_of(events) if partial is None else ErrorEvent("aborted", partial)
    kept = trace.feed(LLMEvent(call.call_id, last_word))
    assert kept.commit and kept.emit == ()
    assert kept.command == Canceled("user canceled")
    canceled = trace.state.committed
    assert canceled.status is Status.CANCELED and canceled.last_error == "user canceled"
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


def test_a_partial_the_stopped_call_never_gave_leaves_a_canceled_turn() -> None:
    """A stream that had nothing to say (or never said it: the runner hands
    over an empty `aborted` event then) still ends the turn canceled."""
    trace, call = begin()
    trace.feed(Cancel("user canceled", timestamp=7))
    empty = ErrorEvent("aborted", replace(assistant(), content=(), stop_reason="aborted"))
    ended = trace.feed(LLMEvent(call.call_id, empty))
    assert ended.command == Canceled("user canceled") and ended.commit
    assert trace.state.committed.messages == (user("hello"),)


def test_a_partial_after_a_new_turn_began_is_not_kept() -> None:
    """A state an earlier version stored, whose cancel was committed before
    its partial came (`interrupted_call`): a new turn began since."""
    trace, call = begin()
    events = stream_of(assistant(TEXT), chunk=5)
    trace.stream(call.call_id, events[:4])
    conv = trace.state.committed
    legacy = replace(
        conv, status=Status.CANCELED, call_id=None, interrupted_call=call.call_id, last_error="x"
    )
    trace.state = RuntimeState(legacy)
    trace.feed(start("something else", timestamp=8))
    late = trace.feed(LLMEvent(call.call_id, partial_of(events[:4])))
    assert isinstance(late.command, Ignored)
    assert not any(isinstance(m, AssistantMessage) for m in trace.state.committed.messages)


@pytest.mark.parametrize("scenario", [mid_text, mid_tool_call], ids=["text", "tool-call"])
@pytest.mark.parametrize(("api", "model", "build"), CASES, ids=[c[0] for c in CASES])
def test_the_next_turn_is_a_valid_request_for_every_api(
    scenario: Callable[[], Trace], api: str, model: str, build: Builder
) -> None:
    trace = scenario()
    step = trace.feed(start("go on", timestamp=8))
    assert isinstance(step.command, CallLLM)
    request = RequestMessages("Be brief.", step.command.request.messages, (READ_TOOL,))
    assert any(isinstance(m, AssistantMessage) and m.interrupted for m in request.messages), (
        "the interrupted message is sent"
    )
    body = build(request)
    check_request(api, json.dumps(body).encode(), model)
    assert "Here is what" in json.dumps(body), "what streamed is in the request"


def test_a_late_result_for_an_interrupted_call_changes_nothing() -> None:
    trace = mid_tool_call()
    before = trace.state
    late = trace.feed(ToolResult(result("t1")))
    assert late.state.committed is before.committed
