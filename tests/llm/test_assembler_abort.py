"""An abort keeps what had streamed, the open block included (a failure
does not): the partial response a canceled turn keeps."""

from __future__ import annotations

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.events import ErrorEvent, TextDelta
from cursor_byok.llm.types import TextContent, ThinkingContent, ToolCall
from cursor_byok.llm.upstream_errors import UpstreamError


def last_error(assembler: Assembler) -> ErrorEvent:
    event = assembler.out[-1]
    assert isinstance(event, ErrorEvent)
    return event


def test_an_abort_keeps_the_open_text_block_without_emitting_its_end() -> None:
    asm = Assembler("api", "p", "m")
    asm.open_thinking(signature="sig")
    asm.delta("plan")
    asm.close()
    asm.open_text()
    asm.delta("Hel")
    asm.delta("lo")
    before = len(asm.out)
    asm.fail(UpstreamError("stopped"), reason="aborted")
    assert len(asm.out) == before + 1, "only the error event"
    assert last_error(asm).message.content == (ThinkingContent("plan", "sig"), TextContent("Hello"))
    assert [e.delta for e in asm.out if isinstance(e, TextDelta)] == ["Hel", "lo"]


def test_an_open_tool_call_keeps_only_complete_arguments() -> None:
    asm = Assembler("api", "p", "m")
    asm.open_tool_call("c1", "read")
    asm.delta('{"path": "a.txt"}')
    asm.open_tool_call("c2", "write")
    asm.delta('{"path": "b.t')
    asm.fail(UpstreamError("stopped"), reason="aborted")
    first, second = last_error(asm).message.content
    assert first == ToolCall("c1", "read", {"path": "a.txt"}, '{"path": "a.txt"}')
    assert second == ToolCall("c2", "write", {}, None)


def test_a_failure_leaves_the_open_block_out() -> None:
    asm = Assembler("api", "p", "m")
    asm.open_text()
    asm.delta("partial")
    asm.fail(UpstreamError("broken"))
    assert last_error(asm).message.content == ()
