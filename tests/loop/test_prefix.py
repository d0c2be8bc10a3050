"""Prefix stability (seed §12, §17.2): each request's serialized messages are a
strict byte prefix of the next request's."""

from __future__ import annotations

from cursor_byok.llm.serialize import messages_hash, serialize_messages
from cursor_byok.llm.types import TextContent, ThinkingContent
from cursor_byok.loop import CallLLM, ToolResult
from cursor_byok.loop.steps import append
from tests.factories import assistant, fresh, result, start, stream_of, tool_call, user
from tests.loop.drive import Trace


def test_three_consecutive_requests_extend_each_other_byte_for_byte() -> None:
    trace = Trace(fresh())
    requests: list[CallLLM] = []

    first = trace.feed(start("list the files")).command
    assert isinstance(first, CallLLM)
    requests.append(first)
    reply = assistant(ThinkingContent("look first", "sig-a"), tool_call("t1", "."))
    trace.stream(first.call_id, stream_of(reply))
    second = trace.feed(ToolResult(result("t1", "a.txt\nb.txt"))).command
    assert isinstance(second, CallLLM)
    requests.append(second)
    reply = assistant(TextContent("Two files. Reading one."), tool_call("t2", "a.txt"))
    trace.stream(second.call_id, stream_of(reply))
    third = trace.feed(ToolResult(result("t2", "hello"))).command
    assert isinstance(third, CallLLM)
    requests.append(third)

    m1, m2, m3 = (serialize_messages(r.request.messages) for r in requests)
    assert m2.startswith(m1) and len(m2) > len(m1)
    assert m3.startswith(m2) and len(m3) > len(m2)
    for request in requests:
        assert request.messages_hash == messages_hash(request.request.messages)
    assert len({r.call_id for r in requests}) == 3


def test_appending_makes_its_other_changes_in_the_same_copy() -> None:
    state = fresh().committed
    same = append(state, ())
    assert same is state
    renamed = append(state, (), call_id="x")
    assert renamed.call_id == "x" and renamed.messages == state.messages
    grown = append(state, (user("a"), user("b")), turn_seq=5)
    assert grown.messages == (user("a"), user("b")) and grown.turn_seq == 5
    assert grown.messages_hash == messages_hash(grown.messages)
