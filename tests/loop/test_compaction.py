"""Compaction as a recorded loop step: at the threshold (and on /compress)
the model is asked for a summary in a call of its own, the summary is
appended as a new message, a reset is recorded, history stays as it was,
and the requests after the reset are byte-prefix-stable again."""

from __future__ import annotations

import base64
from dataclasses import replace

from cursor_byok.llm.events import TextDelta
from cursor_byok.llm.images import PNG
from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers.anthropic import render_messages
from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from cursor_byok.loop import (
    CallLLM,
    Cancel,
    Compact,
    Compaction,
    Failed,
    Final,
    Ignored,
    LLMEvent,
    SummaryDone,
    SummaryStarted,
    ToolResult,
)
from cursor_byok.loop.codec import state_from_json, state_to_json
from cursor_byok.loop.compaction import (
    IMAGE_TOKENS,
    SUMMARY_HEADER,
    SUMMARY_INSTRUCTION,
    estimated_tokens,
)
from tests.factories import (
    SETTINGS,
    assistant,
    error_event,
    fresh,
    result,
    start,
    stream_of,
    tool_call,
)
from tests.image_samples import png
from tests.llm.conversation import assert_prefix
from tests.loop.drive import Trace

WINDOW = 2_000  # tokens; compaction at 90% = 1,800
BIG = "x" * 2_400  # a tool result of ~600 tokens
SUMMARY = assistant(TextContent("We read a.txt, b.txt and c.txt; next: d.txt."))


def tool_turn(call_id: str) -> AssistantMessage:
    """A tool call without usage: the request size is then estimated from bytes."""
    return replace(assistant(tool_call(call_id, f"{call_id}.txt")), usage=Usage())


def begin_small_window() -> tuple[Trace, CallLLM]:
    trace = Trace(fresh())
    settings = replace(SETTINGS, context_window=WINDOW)
    command = trace.feed(replace(start("read every file"), settings=settings)).command
    assert isinstance(command, CallLLM)
    return trace, command


def run_tools_until_summary(trace: Trace, command: CallLLM) -> tuple[list[CallLLM], CallLLM]:
    """Answer each model call with one tool call and a big result until the
    loop asks for a summary instead of the next request."""
    requests = [command]
    for number in range(1, 20):
        call_id = f"t{number}"
        trace.stream(command.call_id, stream_of(tool_turn(call_id)))
        step = trace.feed(ToolResult(result(call_id, BIG)))
        assert isinstance(step.command, CallLLM)
        command = step.command
        if SummaryStarted() in step.emit:
            return requests, command
        requests.append(command)
    raise AssertionError("no compaction")


def test_the_threshold_triggers_a_summary_call_of_its_own() -> None:
    trace, first = begin_small_window()
    requests, summary_call = run_tools_until_summary(trace, first)
    state = trace.state.committed
    assert state.compaction == Compaction(requested=False)
    assert summary_call.call_id not in {r.call_id for r in requests}
    request = summary_call.request
    assert not request.extended
    assert request.messages[:-1] == state.messages
    assert request.messages[-1] == UserMessage(SUMMARY_INSTRUCTION)
    assert summary_call.messages_hash == messages_hash(request.messages)
    # The request it replaces would have crossed the threshold; the one before did not.
    assert estimated_tokens(state.messages, None, ()) > 0.9 * WINDOW
    last = requests[-1].request
    assert estimated_tokens(last.messages, None, ()) <= 0.9 * WINDOW


def test_the_summary_is_appended_and_requests_start_from_the_reset() -> None:
    trace, first = begin_small_window()
    _, summary_call = run_tools_until_summary(trace, first)
    before = trace.state.committed.messages
    events = stream_of(SUMMARY)
    streamed = [trace.feed(LLMEvent(summary_call.call_id, e)) for e in events[:-1]]
    assert all(step.emit == () for step in streamed), "summary text is not passed on"
    step = trace.feed(LLMEvent(summary_call.call_id, events[-1]))
    state = trace.state.committed
    assert step.emit == (SummaryDone(SUMMARY.text),)
    assert state.messages[: len(before)] == before, "history is untouched"
    assert all(a is b for a, b in zip(state.messages, before, strict=False))
    assert state.resets == (len(before),)
    summary = state.messages[-1]
    assert summary == UserMessage(SUMMARY_HEADER + SUMMARY.text, SUMMARY.timestamp)
    assert isinstance(step.command, CallLLM) and state.compaction is None
    assert step.command.request.messages == (summary,)
    assert step.command.request.extended
    # Three more calls after the reset: each request a byte prefix of the next.
    after = [step.command]
    command = step.command
    for number in (50, 51):
        trace.stream(command.call_id, stream_of(tool_turn(f"t{number}")))
        next_step = trace.feed(ToolResult(result(f"t{number}", "small")))
        assert isinstance(next_step.command, CallLLM)
        command = next_step.command
        after.append(command)
    spec = ModelSpec("anthropic", "claude-sonnet-4-5", "u")
    assert_prefix([render_messages(spec, c.request) for c in after])
    assert all(c.request.messages[0] is summary for c in after)


def test_compress_asks_for_a_summary_and_ends_the_turn() -> None:
    trace = Trace(fresh())
    command = trace.feed(start("read a.txt")).command
    assert isinstance(command, CallLLM)
    trace.stream(command.call_id, stream_of(assistant(TextContent("done"))))
    step = trace.feed(Compact())
    assert step.emit == (SummaryStarted(),)
    assert isinstance(step.command, CallLLM) and not step.command.request.extended
    assert trace.state.committed.compaction == Compaction(requested=True)
    done = trace.stream(step.command.call_id, stream_of(SUMMARY))
    assert isinstance(done.command, Final)
    assert done.emit == (SummaryDone(SUMMARY.text),)
    state = trace.state.committed
    assert state.resets == (2,) and len(state.messages) == 3
    follow = trace.feed(start("and b.txt?", timestamp=9)).command
    assert isinstance(follow, CallLLM)
    after = trace.state.committed.messages
    assert follow.request.messages == (after[2], after[3])


def test_compress_while_busy_or_with_nothing_to_summarize_is_ignored() -> None:
    empty = fresh()
    assert Trace(empty).feed(Compact()).command == Ignored("nothing to summarize")
    trace = Trace(fresh())
    command = trace.feed(start("read a.txt")).command
    assert isinstance(command, CallLLM)
    busy = trace.feed(Compact())
    assert busy.command == Ignored("summary asked for during a turn")
    assert busy.state is trace.transitions[-2].state and not busy.commit


def test_cancel_during_a_summary_keeps_nothing_of_it() -> None:
    trace = Trace(fresh())
    command = trace.feed(start("read a.txt")).command
    assert isinstance(command, CallLLM)
    trace.stream(command.call_id, stream_of(assistant(TextContent("done"))))
    summary_call = trace.feed(Compact()).command
    assert isinstance(summary_call, CallLLM)
    trace.stream(summary_call.call_id, stream_of(SUMMARY)[:4])
    trace.feed(Cancel("stop", timestamp=5))
    state = trace.state.committed
    assert len(state.messages) == 2 and state.resets == () and state.compaction is None
    late = trace.feed(LLMEvent(summary_call.call_id, TextDelta(0, "late")))
    assert isinstance(late.command, Ignored)


def test_a_failed_or_empty_summary_fails_the_turn_and_records_no_reset() -> None:
    for ending in (error_event(), None):
        trace = Trace(fresh())
        command = trace.feed(start("read a.txt")).command
        assert isinstance(command, CallLLM)
        trace.stream(command.call_id, stream_of(assistant(TextContent("done"))))
        summary_call = trace.feed(Compact()).command
        assert isinstance(summary_call, CallLLM)
        events = [ending] if ending else stream_of(assistant(TextContent("  ")))
        step = trace.stream(summary_call.call_id, events)
        assert isinstance(step.command, Failed)
        state = trace.state.committed
        assert state.resets == () and state.compaction is None and len(state.messages) == 2


def test_resets_and_a_compaction_in_flight_survive_storage() -> None:
    trace, first = begin_small_window()
    run_tools_until_summary(trace, first)
    state = trace.state.committed
    assert state_from_json(state_to_json(state), state.messages) == state
    done = replace(state, compaction=None, resets=(3, 7))
    assert state_from_json(state_to_json(done), done.messages) == done


def test_no_window_no_compaction() -> None:
    trace = Trace(fresh())
    command = trace.feed(start("go")).command
    for number in range(1, 6):
        assert isinstance(command, CallLLM)
        assert SummaryStarted() not in trace.transitions[-1].emit
        trace.stream(command.call_id, stream_of(tool_turn(f"t{number}")))
        command = trace.feed(ToolResult(result(f"t{number}", BIG * 20))).command
    assert isinstance(command, CallLLM) and command.request.extended


def test_an_image_a_tool_returned_counts_as_an_image_not_as_its_base64_length() -> None:
    """A 1 MB screenshot is about 1.4 million base64 characters but a few
    thousand tokens to the model: reading it must not set off a summary."""
    trace = Trace(fresh())
    settings = replace(SETTINGS, context_window=200_000)
    command = trace.feed(replace(start("look at shot.png"), settings=settings)).command
    assert isinstance(command, CallLLM)
    trace.stream(command.call_id, stream_of(assistant(tool_call("t1", "shot.png"))))
    screenshot = base64.b64encode(png(1, 1) + bytes(1_000_000)).decode("ascii")
    read = ToolResultMessage(
        "t1", "read_file", (TextContent("shot.png: an image"), ImageContent(screenshot, PNG))
    )
    step = trace.feed(ToolResult(read))
    assert isinstance(step.command, CallLLM) and SummaryStarted() not in step.emit
    assert step.command.request.messages[-1] == read
    assert estimated_tokens(step.command.request.messages, None, ()) < 3 * IMAGE_TOKENS
