"""A client's transcript in the loop's Start (`Start.history`): the start of
an empty conversation's history, committed with the user's message in one
transition; left out of a conversation that has history of its own."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop import CallLLM, transition
from tests.factories import assistant, fresh, start, stream_of, tool_call, user
from tests.loop.drive import Trace

TRANSCRIPT = (
    user("what is in a.txt?"),
    assistant(TextContent("Let me look."), tool_call("call-1")),
    ToolResultMessage("call-1", "read_file", (TextContent("apples"),), False, 1),
    assistant(TextContent("Apples.")),
)


def test_a_transcript_opens_an_empty_conversation_with_the_message_after_it() -> None:
    state = fresh()
    step = transition(state, replace(start("and b.txt?"), history=TRANSCRIPT))
    assert step.commit and isinstance(step.command, CallLLM)
    assert step.state.committed.messages == (*TRANSCRIPT, user("and b.txt?"))
    assert step.command.request.messages == step.state.committed.messages
    assert state.committed.messages == ()  # the input state is untouched: pure


def test_a_conversation_with_history_keeps_it_and_leaves_the_transcript_out() -> None:
    trace = Trace(fresh())
    call = trace.feed(start("hello")).command
    assert isinstance(call, CallLLM)
    trace.stream(call.call_id, stream_of(assistant(TextContent("Hi."))))
    before = trace.state.committed.messages
    trace.feed(replace(start("and b.txt?", timestamp=3), history=TRANSCRIPT))
    assert trace.state.committed.messages == (*before, user("and b.txt?", 3))
