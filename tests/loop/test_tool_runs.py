"""A tool call while it runs, and one whose run was cut off: output kept with
the call as it arrives, a result made of the note and that output (once,
whatever comes after), a cancel that says what arrived; and messages typed
during the turn, named by the client, acknowledged once they enter history.
The stored form keeps all of it, and states stored before load as they were."""

from __future__ import annotations

from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop import (
    CallClient,
    CallLLM,
    Cancel,
    Ignored,
    QueuedEntered,
    Status,
    ToolInterrupted,
    ToolProgress,
    ToolResult,
    UserInput,
    WaitInput,
)
from cursor_byok.loop.codec import state_from_json, state_to_json
from cursor_byok.loop.tool_runs import NO_OUTPUT, OUTPUT_ARRIVED
from tests.factories import assistant, result, stream_of, tool_call, user
from tests.loop.drive import Trace
from tests.loop.test_transition import begin

NOTE = "Interrupted: the connection was lost while it ran `make`."


def waiting_for_two() -> Trace:
    trace, call = begin()
    reply = assistant(tool_call("t1", name="run_terminal_cmd"), tool_call("t2"))
    asked = trace.stream(call.call_id, stream_of(reply))
    assert isinstance(asked.command, CallClient)
    return trace


def test_output_is_kept_with_the_running_call_and_committed() -> None:
    trace = waiting_for_two()
    first = trace.feed(ToolProgress("t1", "compiling a.c\n"))
    second = trace.feed(ToolProgress("t1", "compiling b.c\n"))
    assert first.commit and second.commit and second.command == WaitInput()
    waiting = trace.state.committed.waiting
    assert waiting is not None and waiting.output == "compiling a.c\ncompiling b.c\n"
    assert len(trace.state.committed.messages) == 2, "history is untouched"


def test_output_for_a_call_not_running_is_ignored() -> None:
    trace = waiting_for_two()
    for stray in (ToolProgress("t2", "not yet"), ToolProgress("t1", "")):
        step = trace.feed(stray)
        assert isinstance(step.command, Ignored) and not step.commit


def test_a_cut_off_call_gets_the_note_and_what_arrived_then_the_next_call_goes() -> None:
    trace = waiting_for_two()
    trace.feed(ToolProgress("t1", "compiling a.c\n"))
    step = trace.feed(ToolInterrupted("t1", NOTE, timestamp=9))
    assert isinstance(step.command, CallClient) and step.command.tool_call.id == "t2"
    cut = trace.state.committed.messages[-1]
    assert isinstance(cut, ToolResultMessage) and cut.is_error and cut.timestamp == 9
    assert cut.content == (TextContent(f"{NOTE}\n{OUTPUT_ARRIVED}\ncompiling a.c\n"),)
    waiting = trace.state.committed.waiting
    assert waiting is not None and waiting.output == "", "the next call starts with none"


def test_a_cut_off_call_with_no_output_says_so() -> None:
    trace = waiting_for_two()
    trace.feed(ToolInterrupted("t1", NOTE))
    cut = trace.state.committed.messages[-1]
    assert isinstance(cut, ToolResultMessage)
    assert cut.content == (TextContent(f"{NOTE}\n{NO_OUTPUT}"),)


def test_one_result_whichever_comes_first() -> None:
    """The real result and the interruption: the second is nobody's, and late
    output is too."""
    trace = waiting_for_two()
    trace.feed(ToolInterrupted("t1", NOTE))
    settled = trace.state
    for late in (ToolResult(result("t1")), ToolInterrupted("t1", NOTE), ToolProgress("t1", "x")):
        step = trace.feed(late)
        assert isinstance(step.command, Ignored) and step.state is settled
    trace = waiting_for_two()
    trace.feed(ToolResult(result("t1")))
    assert isinstance(trace.feed(ToolInterrupted("t1", NOTE)).command, Ignored)


def test_a_cancel_while_a_command_runs_keeps_what_it_printed() -> None:
    trace = waiting_for_two()
    trace.feed(ToolProgress("t1", "compiling a.c\n"))
    trace.feed(Cancel("user pressed stop", timestamp=9))
    *_, first, second = trace.state.committed.messages
    assert isinstance(first, ToolResultMessage) and isinstance(second, ToolResultMessage)
    assert first.content == (
        TextContent(f"Tool call canceled: user pressed stop\n{OUTPUT_ARRIVED}\ncompiling a.c\n"),
    )
    assert second.content == (TextContent("Tool call canceled: user pressed stop"),)


def test_a_typed_message_is_acknowledged_when_it_enters_history() -> None:
    trace = waiting_for_two()
    typed = user("also update the README", 7)
    queued = trace.feed(UserInput(typed, ref="typed-1"))
    assert queued.commit and queued.emit == ()
    assert trace.state.committed.queued_refs == (("typed-1", 0),)
    trace.feed(UserInput(user("no name", 8)))  # nothing to acknowledge
    trace.feed(ToolResult(result("t1")))
    step = trace.feed(ToolResult(result("t2")))
    assert isinstance(step.command, CallLLM)
    assert step.emit == (QueuedEntered((("typed-1", typed),)),)
    assert step.command.request.messages[-2:] == (typed, user("no name", 8))
    state = trace.state.committed
    assert state.queued == () and state.queued_refs == ()


def test_a_typed_message_at_rest_is_acknowledged_at_once() -> None:
    trace, call = begin()
    trace.stream(call.call_id, stream_of(assistant(TextContent("done"))))
    assert trace.state.committed.status is Status.FINAL
    typed = user("one more thing", 9)
    step = trace.feed(UserInput(typed, ref="typed-2"))
    assert isinstance(step.command, CallLLM)
    assert step.emit == (QueuedEntered((("typed-2", typed),)),)


def test_output_and_names_survive_the_stored_form_and_older_documents_load() -> None:
    trace = waiting_for_two()
    trace.feed(ToolProgress("t1", "compiling a.c\n"))
    trace.feed(UserInput(user("also this", 7), ref="typed-1"))
    state = trace.state.committed
    doc = state_to_json(state)
    assert state_from_json(doc, state.messages) == state
    plain = waiting_for_two().state.committed
    plain_doc = state_to_json(plain)
    # Nothing new is written when there is nothing to keep: a document is
    # byte for byte what an earlier version wrote, and loads as it did.
    assert b"output" not in canonical_dumps(plain_doc)
    assert b"queuedRefs" not in canonical_dumps(plain_doc)
    assert state_from_json(plain_doc, plain.messages) == plain
