"""A provider's 400 for a history the server built: the loop records one
`HistoryRepair` step, so the next turn is not rejected again."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.events import ErrorEvent
from cursor_byok.llm.types import HistoryRepair, TextContent, ThinkingContent
from cursor_byok.loop import CallClient, CallLLM, Failed, LLMEvent, Status, ToolResult, UserInput
from tests.factories import assistant, error_event, fresh, result, start, stream_of, tool_call, user
from tests.loop.drive import Trace

RULE = "messages.1.content.0.thinking.signature: Invalid `signature` in `thinking` block"


def rejected(text: str = RULE, status: int = 400, retryable: bool = False) -> ErrorEvent:
    event = error_event(text)
    return replace(event, status=status, retryable=retryable)


def after_a_tool_turn() -> tuple[Trace, CallLLM]:
    """A turn with thinking and one tool call, then the model is called again."""
    trace = Trace(fresh())
    first = trace.feed(start("read a.txt")).command
    assert isinstance(first, CallLLM)
    turn = assistant(ThinkingContent("plan", "sig"), tool_call("t1"))
    dispatched = trace.stream(first.call_id, stream_of(turn)).command
    assert isinstance(dispatched, CallClient)
    again = trace.feed(ToolResult(result("t1"))).command
    assert isinstance(again, CallLLM)
    return trace, again


def test_a_rejected_request_appends_one_repair_and_names_the_rule() -> None:
    trace, call = after_a_tool_turn()
    before = trace.state.committed.messages
    step = trace.feed(LLMEvent(call.call_id, rejected()))
    state = trace.state.committed
    assert state.status is Status.FAILED
    assert state.messages[: len(before)] == before
    assert state.messages[len(before) :] == (HistoryRepair(RULE, timestamp=2),)
    assert isinstance(step.command, Failed)
    banner = step.command.message.error_message
    assert banner is not None and RULE in banner and "plain text" in banner
    assert state.last_error == RULE


def test_the_next_turn_sends_the_history_with_the_repair_in_it() -> None:
    trace, call = after_a_tool_turn()
    trace.feed(LLMEvent(call.call_id, rejected()))
    next_call = trace.feed(UserInput(user("try again", timestamp=9))).command
    assert isinstance(next_call, CallLLM)
    messages = next_call.request.messages
    assert isinstance(messages[-2], HistoryRepair) and messages[-1] == user("try again", 9)


def test_other_failures_record_no_repair() -> None:
    for event in (
        rejected(status=500),
        rejected(status=429, retryable=True),
        rejected(status=None),  # type: ignore[arg-type]
        rejected("prompt is too long: 210000 tokens > 200000 maximum"),
        rejected("This model's maximum context length is 128000 tokens."),
    ):
        trace, call = after_a_tool_turn()
        before = trace.state.committed.messages
        trace.feed(LLMEvent(call.call_id, event))
        assert trace.state.committed.messages == before, event


def test_a_history_that_is_already_plain_gets_no_second_repair() -> None:
    trace, call = after_a_tool_turn()
    trace.feed(LLMEvent(call.call_id, rejected()))
    again = trace.feed(UserInput(user("try again", timestamp=9))).command
    assert isinstance(again, CallLLM)
    count = len(trace.state.committed.messages)
    trace.feed(LLMEvent(again.call_id, rejected()))
    assert len(trace.state.committed.messages) == count
    # Once the model answered after the repair, a new rejection can repair again.
    later = trace.feed(UserInput(user("once more", timestamp=10))).command
    assert isinstance(later, CallLLM)
    trace.stream(later.call_id, stream_of(assistant(TextContent("fine"))))
    last = trace.feed(UserInput(user("and now", timestamp=11))).command
    assert isinstance(last, CallLLM)
    trace.feed(LLMEvent(last.call_id, rejected()))
    assert isinstance(trace.state.committed.messages[-1], HistoryRepair)


def test_a_first_message_rejected_alone_records_nothing() -> None:
    trace = Trace(fresh())
    call = trace.feed(start("hello")).command
    assert isinstance(call, CallLLM)
    trace.feed(LLMEvent(call.call_id, rejected()))
    assert trace.state.committed.messages == (user("hello"),)
