"""The transition rules, one behaviour per test (seed §7.3, §10, §11)."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    StartEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
)
from cursor_byok.llm.serialize import EMPTY_MESSAGES_HASH, messages_hash
from cursor_byok.llm.types import TextContent, ThinkingContent, ToolResultMessage
from cursor_byok.loop import (
    CallClient,
    CallEnded,
    CallLLM,
    CallPlanned,
    Cancel,
    Canceled,
    Failed,
    Final,
    Ignored,
    Input,
    LLMEvent,
    OperationChanged,
    Start,
    Status,
    StopCall,
    ToolResult,
    UserInput,
    WaitInput,
    transition,
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
    user,
)
from tests.loop.drive import Trace


def begin(text: str = "hello") -> tuple[Trace, CallLLM]:
    trace = Trace(fresh())
    command = trace.feed(start(text)).command
    assert isinstance(command, CallLLM)
    return trace, command


def test_start_appends_the_user_message_and_calls_the_model() -> None:
    trace, call = begin("hello")
    state = trace.state.committed
    assert state.messages == (user("hello"),)
    assert state.status is Status.WAITING_LLM
    assert state.turn_seq == 1
    assert call.call_id == state.call_id == "conv-1:call:1"
    assert call.model == "test-model"
    assert call.request.system_prompt == "You are a test."
    assert call.request.tools == SETTINGS.tools
    assert call.request.messages == state.messages
    assert call.messages_hash == messages_hash(state.messages) != EMPTY_MESSAGES_HASH


def test_text_stream_reemits_every_event_and_appends_one_message_at_done() -> None:
    trace, call = begin()
    reply = assistant(TextContent("Hello there, how can I help?"))
    events = stream_of(reply)
    for event in events[:-1]:
        step = trace.feed(LLMEvent(call.call_id, event))
        assert step.command == WaitInput() and not step.commit
        assert trace.state.committed.messages == (user("hello"),)
    done = trace.feed(LLMEvent(call.call_id, events[-1]))
    assert trace.emitted == events
    assert done.command == Final(reply)
    assert trace.state.committed.messages == (user("hello"), reply)
    assert trace.state.committed.status is Status.FINAL
    assert trace.state.pending is None


def test_pending_keeps_only_the_started_tool_call_ids() -> None:
    trace, call = begin()
    reply = assistant(ThinkingContent("let me think", "sig-1"), tool_call("t1"), tool_call("t2"))
    events = stream_of(reply, chunk=3)
    trace.stream(call.call_id, events[:-1])
    pending = trace.state.pending
    assert pending is not None
    assert pending.tool_call_ids == ("t1", "t2")


def test_a_delta_changes_no_state_and_commits_nothing() -> None:
    trace, call = begin()
    trace.feed(LLMEvent(call.call_id, StartEvent()))
    before = trace.state
    step = trace.feed(LLMEvent(call.call_id, TextDelta(0, "x" * 10_000)))
    assert step.state is before  # not even copied
    assert step.emit == (TextDelta(0, "x" * 10_000),)
    assert not step.commit and step.records == ()


def test_thinking_with_signature_is_kept_verbatim() -> None:
    trace, call = begin()
    reply = assistant(ThinkingContent("hmm", "opaque+/sig=="), TextContent("done"))
    trace.stream(call.call_id, stream_of(reply))
    stored = trace.state.committed.messages[-1]
    assert stored == reply
    assert any(isinstance(e, ThinkingDelta) for e in trace.emitted)


def test_length_stop_ends_the_turn_with_the_truncated_message() -> None:
    trace, call = begin()
    reply = assistant(TextContent("cut off mid"), stop_reason="length")
    final = trace.stream(call.call_id, stream_of(reply))
    assert final.command == Final(reply)
    assert trace.state.committed.messages[-1].stop_reason == "length"  # type: ignore[union-attr]


def test_one_tool_call_is_dispatched_then_the_model_is_called_again() -> None:
    trace, call = begin()
    reply = assistant(TextContent("Reading."), tool_call("t1"))
    step = trace.stream(call.call_id, stream_of(reply))
    state = trace.state.committed
    assert isinstance(step.command, CallClient)
    assert step.command.tool_call == tool_call("t1")
    assert step.command.operation_id == "conv-1:turn:1:call:1:tool:t1"
    assert state.status is Status.WAITING_CLIENT
    assert state.messages[-1] == reply

    after = trace.feed(ToolResult(result("t1", "file body")))
    assert isinstance(after.command, CallLLM)
    assert after.command.call_id == "conv-1:call:2"
    assert after.command.request.messages == (user("hello"), reply, result("t1", "file body"))
    assert trace.state.committed.waiting is None


def test_three_tool_calls_go_out_one_at_a_time_in_content_order() -> None:
    trace, call = begin()
    reply = assistant(tool_call("t1", "a"), tool_call("t2", "b"), tool_call("t3", "c"))
    first = trace.stream(call.call_id, stream_of(reply))
    assert isinstance(first.command, CallClient) and first.command.tool_call.id == "t1"
    # A result for a call not yet dispatched is not taken out of order.
    early = trace.feed(ToolResult(result("t3")))
    assert early.command == Ignored("tool result nobody waits for")
    assert trace.state.committed.messages[-1] == reply
    second = trace.feed(ToolResult(result("t1")))
    assert isinstance(second.command, CallClient) and second.command.tool_call.id == "t2"
    third = trace.feed(ToolResult(result("t2")))
    assert isinstance(third.command, CallClient) and third.command.tool_call.id == "t3"
    last = trace.feed(ToolResult(result("t3")))
    assert isinstance(last.command, CallLLM)
    assert trace.state.committed.messages[-3:] == (result("t1"), result("t2"), result("t3"))


def test_a_failed_tool_is_a_result_that_goes_back_to_the_model() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"))))
    failure = result("t1", "ENOENT: no such file", is_error=True)
    step = trace.feed(ToolResult(failure))
    assert isinstance(step.command, CallLLM)
    assert step.command.request.messages[-1] == failure


def test_error_mid_stream_drops_the_partial_and_appends_nothing() -> None:
    trace, call = begin()
    events = stream_of(assistant(TextContent("a long answer that breaks")))
    trace.stream(call.call_id, events[:4])
    error = error_event("connection reset")
    step = trace.feed(LLMEvent(call.call_id, error))
    assert step.command == Failed(error.message)
    assert step.emit == (error,)
    state = trace.state.committed
    assert state.messages == (user("hello"),)
    assert state.status is Status.FAILED
    assert state.last_error == "connection reset"
    assert trace.state.pending is None


def test_abort_cancels_the_turn_and_appends_nothing() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(TextContent("abc def")))[:3])
    step = trace.feed(LLMEvent(call.call_id, error_event("stopped", aborted=True)))
    assert step.command == Canceled("stopped")
    assert trace.state.committed.status is Status.CANCELED
    assert trace.state.committed.messages == (user("hello"),)


def test_a_retry_attempt_starts_a_fresh_pending_response() -> None:
    trace, call = begin()
    events = stream_of(assistant(TextContent("first attempt")))
    trace.stream(call.call_id, events[:3])
    trace.feed(LLMEvent(call.call_id, StartEvent()))
    assert trace.state.pending is not None and trace.state.pending.tool_call_ids == ()


def test_a_duplicate_done_appends_nothing() -> None:
    trace, call = begin()
    reply = assistant(TextContent("once"))
    events = stream_of(reply)
    trace.stream(call.call_id, events)
    settled = trace.state
    again = trace.feed(LLMEvent(call.call_id, events[-1]))
    assert again.state is settled
    assert again.emit == ()
    assert again.command == Ignored("model event of a call not in flight")
    assert not again.commit
    assert trace.state.committed.messages == (user("hello"), reply)


def test_a_done_for_an_already_committed_call_is_ignored_during_the_next_call() -> None:
    trace, call = begin()
    first = assistant(tool_call("t1"))
    trace.stream(call.call_id, stream_of(first))
    next_call = trace.feed(ToolResult(result("t1"))).command
    assert isinstance(next_call, CallLLM)
    before = trace.state
    stale = trace.feed(LLMEvent(call.call_id, DoneEvent("toolUse", first)))
    assert stale.state is before and stale.emit == () and isinstance(stale.command, Ignored)


def test_an_event_with_a_stale_call_id_changes_nothing() -> None:
    trace, _call = begin()
    before = trace.state
    step = trace.feed(LLMEvent("conv-1:call:99", TextDelta(0, "ghost")))
    assert step.state is before
    assert step.emit == ()
    assert step.command == Ignored("model event of a call not in flight")


def test_a_duplicate_tool_result_appends_nothing() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"), tool_call("t2"))))
    trace.feed(ToolResult(result("t1")))
    before = trace.state
    again = trace.feed(ToolResult(result("t1")))
    assert again.state is before and again.command == Ignored("tool result nobody waits for")


def test_a_duplicate_start_while_busy_is_queued_not_lost() -> None:
    trace, call = begin()
    step = trace.feed(start("and another thing", timestamp=5))
    assert step.command == WaitInput()
    assert trace.state.committed.queued == (user("and another thing", 5),)
    reply = assistant(TextContent("first answer"))
    after = trace.stream(call.call_id, stream_of(reply))
    assert isinstance(after.command, CallLLM)
    assert after.emit == (DoneEvent("stop", reply),)
    assert after.command.request.messages == (
        user("hello"),
        reply,
        user("and another thing", 5),
    )
    assert not trace.state.committed.queued


def test_a_user_message_during_tool_calls_waits_for_all_results() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"))))
    trace.feed(UserInput(user("also check b.txt", 7)))
    step = trace.feed(ToolResult(result("t1")))
    assert isinstance(step.command, CallLLM)
    assert step.command.request.messages[-2:] == (result("t1"), user("also check b.txt", 7))


def test_cancel_while_waiting_for_the_client_closes_every_open_tool_call() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"), tool_call("t2"))))
    trace.feed(ToolResult(result("t1")))
    step = trace.feed(Cancel("user pressed stop", timestamp=9))
    assert step.command == Canceled("user pressed stop")
    state = trace.state.committed
    assert state.status is Status.CANCELED
    assert state.waiting is None
    closing = state.messages[-1]
    assert isinstance(closing, ToolResultMessage)
    assert closing.tool_call_id == "t2"
    assert closing.is_error
    assert closing.timestamp == 9
    # A late result for the canceled call changes nothing.
    late = trace.feed(ToolResult(result("t2")))
    assert late.state is trace.transitions[-2].state
    # The next turn starts from a complete transcript.
    follow = trace.feed(start("next", timestamp=10)).command
    assert isinstance(follow, CallLLM)
    assert follow.request.messages[-1] == user("next", 10)


def test_cancel_while_streaming_drops_pending_and_stale_events_are_ignored() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(TextContent("streaming text")))[:3])
    step = trace.feed(Cancel("stop"))
    assert step.command == StopCall(call.call_id)
    ended = trace.feed(
        LLMEvent(call.call_id, ErrorEvent("aborted", assistant(stop_reason="aborted")))
    )
    assert ended.command == Canceled("stop")
    assert trace.state.pending is None
    assert trace.state.committed.messages == (user("hello"),)
    late = trace.feed(LLMEvent(call.call_id, TextDelta(0, "late")))
    assert isinstance(late.command, Ignored) and late.emit == ()


def test_cancel_when_idle_changes_nothing() -> None:
    state = fresh()
    step = transition(state, Cancel("nothing running"))
    assert step.state is state
    assert step.command == Ignored("nothing to cancel")
    assert not step.commit


def test_a_done_with_duplicate_tool_call_ids_fails_the_turn() -> None:
    trace, call = begin()
    bad = assistant(tool_call("t1"), tool_call("t1"))
    step = trace.feed(LLMEvent(call.call_id, DoneEvent("toolUse", bad)))
    assert isinstance(step.command, Failed)
    assert isinstance(step.emit[0], ErrorEvent)
    assert "duplicate tool call id" in (step.command.message.error_message or "")
    assert trace.state.committed.messages == (user("hello"),)


def test_a_done_with_a_tool_call_without_an_id_fails_the_turn() -> None:
    """Results are matched to calls by id: a call with none could never be
    answered, so it is not dispatched (the turn would wait for ever)."""
    trace, call = begin()
    bad = assistant(tool_call(""))
    step = trace.stream(call.call_id, stream_of(bad))
    assert isinstance(step.command, Failed)
    assert isinstance(step.emit[0], ErrorEvent)
    assert "a tool call has no id" in (step.command.message.error_message or "")
    assert trace.state.committed.messages == (user("hello"),)
    assert trace.state.committed.status is Status.FAILED


def test_a_streamed_tool_call_missing_from_done_fails_the_turn() -> None:
    """The client saw `t2` start: a done that drops it is not a response to
    commit (the client would show a call that is never run or answered)."""
    trace, call = begin()
    streamed = assistant(tool_call("t1"), tool_call("t2", "b.txt"))
    trace.stream(call.call_id, stream_of(streamed)[:-1])
    dropped = assistant(tool_call("t1"))
    step = trace.feed(LLMEvent(call.call_id, DoneEvent("toolUse", dropped)))
    assert isinstance(step.command, Failed)
    assert isinstance(step.emit[0], ErrorEvent)
    assert "tool call 't2' missing at done" in (step.command.message.error_message or "")
    assert trace.state.committed.messages == (user("hello"),)
    assert trace.state.committed.status is Status.FAILED


def test_a_new_turn_after_failure_continues_the_same_history() -> None:
    trace, call = begin()
    trace.feed(LLMEvent(call.call_id, error_event()))
    step = trace.feed(start("try again", timestamp=4))
    assert isinstance(step.command, CallLLM)
    assert step.command.call_id == "conv-1:call:2"
    assert step.command.request.messages == (user("hello"), user("try again", 4))
    assert trace.state.committed.last_error is None


def test_tool_calls_cut_off_by_the_output_limit_are_not_run() -> None:
    trace, call = begin()
    cut = assistant(tool_call("t1", "src/app.py"), stop_reason="length")
    step = trace.stream(call.call_id, stream_of(cut))
    assert step.command == Final(cut)
    state = trace.state.committed
    assert state.status is Status.FINAL and state.waiting is None
    unrun = state.messages[-1]
    assert unrun.tool_call_id == "t1" and unrun.is_error  # type: ignore[union-attr]
    assert "output token limit" in unrun.content[0].text  # type: ignore[union-attr]


def test_the_same_tool_call_id_in_two_responses_is_two_operations() -> None:
    trace, call = begin()
    first = trace.stream(call.call_id, stream_of(assistant(tool_call("call_0", "a.txt"))))
    assert isinstance(first.command, CallClient)
    again = trace.feed(ToolResult(result("call_0")))
    assert isinstance(again.command, CallLLM)
    second = trace.stream(again.command.call_id, stream_of(assistant(tool_call("call_0", "b.txt"))))
    assert isinstance(second.command, CallClient)
    assert second.command.operation_id != first.command.operation_id


def limited_start(text: str, limit: int, timestamp: int = 1) -> Start:
    return Start(user(text, timestamp), settings=replace(SETTINGS, max_model_calls=limit))


def test_the_call_limit_ends_the_turn_with_a_notice_that_is_not_history() -> None:
    trace = Trace(fresh())
    call = trace.feed(limited_start("loop", 2)).command
    assert isinstance(call, CallLLM)
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"))))
    second = trace.feed(ToolResult(result("t1"))).command
    assert isinstance(second, CallLLM)
    assert trace.state.committed.turn_calls == 2
    trace.stream(second.call_id, stream_of(assistant(tool_call("t2"))))
    stop = trace.feed(ToolResult(result("t2")))
    assert isinstance(stop.command, Final)
    assert "limit of 2 model calls" in stop.command.message.text
    assert [type(e) for e in stop.emit] == [TextStart, TextDelta, TextEnd]
    state = trace.state.committed
    assert state.status is Status.FINAL and state.call_seq == 2
    assert state.messages[-1] == result("t2")  # the notice is not history
    assert [type(r) for r in stop.records] == [OperationChanged]  # no call planned
    # The next turn counts afresh and its request never holds the notice.
    follow = trace.feed(limited_start("go on", 2, timestamp=9)).command
    assert isinstance(follow, CallLLM)
    assert trace.state.committed.turn_calls == 1
    assert follow.request.messages[-2:] == (result("t2"), user("go on", 9))


def test_model_calls_a_tool_made_for_the_turn_count_in_its_limit() -> None:
    """A server-run subagent's calls are the turn's too: a Task result that
    spent 3 of a limit of 5 leaves the parent one more call, not four."""
    trace = Trace(fresh())
    call = trace.feed(limited_start("delegate", 5)).command
    assert isinstance(call, CallLLM)
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"))))
    second = trace.feed(ToolResult(result("t1"), model_calls=3)).command
    assert isinstance(second, CallLLM)
    assert trace.state.committed.turn_calls == 1 + 3 + 1
    trace.stream(second.call_id, stream_of(assistant(tool_call("t2"))))
    stop = trace.feed(ToolResult(result("t2")))
    assert isinstance(stop.command, Final)
    assert "limit of 5 model calls" in stop.command.message.text


def test_a_response_without_content_is_streamed_but_not_history() -> None:
    trace, call = begin()
    notice = replace(assistant(TextContent("No API key configured.")), content=())
    events: list[ResponseEvent] = [
        StartEvent(),
        TextStart(0),
        TextDelta(0, "No API key."),
        TextEnd(0, "No API key."),
    ]
    done = trace.stream(call.call_id, [*events, DoneEvent("stop", notice)])
    assert done.command == Final(notice)
    assert trace.emitted[-2] == TextEnd(0, "No API key.")
    assert trace.state.committed.messages == (user("hello"),)
    assert done.records == (CallEnded(call.call_id, "committed", None),)


def test_each_committed_step_names_its_records() -> None:
    trace, call = begin()
    assert [type(r) for r in trace.transitions[0].records] == [CallPlanned]
    reply = assistant(tool_call("t1"))
    asked = trace.stream(call.call_id, stream_of(reply))
    ended, waiting = asked.records
    assert ended == CallEnded(call.call_id, "committed", reply)
    assert isinstance(waiting, OperationChanged) and waiting.status == "waiting"
    assert isinstance(asked.command, CallClient)
    assert waiting.operation_id == asked.command.operation_id
    answered = trace.feed(ToolResult(result("t1")))
    completed, planned = answered.records
    assert isinstance(completed, OperationChanged) and completed.status == "completed"
    assert completed.result == result("t1")
    assert isinstance(planned, CallPlanned) and planned.call_id == "conv-1:call:2"
    stopping = trace.feed(Cancel("stop"))
    assert stopping.records == () and not stopping.commit
    aborted = ErrorEvent("aborted", assistant(stop_reason="aborted"))
    canceled = trace.feed(LLMEvent("conv-1:call:2", aborted))
    assert canceled.records == (CallEnded("conv-1:call:2", "canceled", error="canceled"),)


def test_ignored_inputs_commit_nothing_and_say_why() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(TextContent("done"))))
    settled = trace.state
    cases: list[tuple[Input, str]] = [
        (LLMEvent(call.call_id, TextDelta(0, "late")), "model event of a call not in flight"),
        (ToolResult(result("nobody")), "tool result nobody waits for"),
        (Cancel("again"), "nothing to cancel"),
    ]
    for input_, reason in cases:
        step = trace.feed(input_)
        assert step.command == Ignored(reason)
        assert step.state is settled and step.emit == () and step.records == ()
        assert not step.commit


def test_a_paused_response_is_kept_and_sent_back_for_the_provider_to_go_on() -> None:
    """Anthropic pauses a long turn of its own tools (`pause_turn`): the
    response enters history and the next call ends with it, in the same turn."""
    trace, call = begin("search the web")
    paused = replace(assistant(TextContent("Searching")), stop_reason="pause")
    after = trace.stream(call.call_id, stream_of(paused))
    assert isinstance(after.command, CallLLM)
    assert after.command.call_id != call.call_id
    assert after.command.request.messages == (user("search the web"), paused)
    assert trace.state.committed.status is Status.WAITING_LLM
    done = assistant(TextContent("Found it."))
    final = trace.stream(after.command.call_id, stream_of(done))
    assert isinstance(final.command, Final)
    assert trace.state.committed.messages == (user("search the web"), paused, done)


def test_pauses_stop_at_the_turns_call_limit() -> None:
    trace = Trace(fresh())
    limited = replace(start("search"), settings=replace(SETTINGS, max_model_calls=2))
    command = trace.feed(limited).command
    paused = replace(assistant(TextContent("Searching")), stop_reason="pause")
    for _ in range(2):
        assert isinstance(command, CallLLM)
        command = trace.stream(command.call_id, stream_of(paused)).command
    assert not isinstance(command, CallLLM)
