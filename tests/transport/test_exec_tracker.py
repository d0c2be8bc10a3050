"""The exec tracker, without I/O: numbering, shell streams, read-then-write
edits, throws, and answers nobody asked for."""

from __future__ import annotations

from itertools import count

from cursor_byok.llm.types import JSONObject, ToolCall
from cursor_byok.transport.dialect.tools import NativeTool, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.exec_tracker import (
    ExecTracker,
    Finished,
    MoreToCome,
    SendNext,
    Unknown,
)
from tests.factories import tool_call


def tool(name: str) -> NativeTool:
    found = ToolSet.for_run().get(name)
    assert isinstance(found, NativeTool)
    return found


def tracker() -> ExecTracker:
    return ExecTracker(count(1).__next__)


def test_a_one_step_tool_finishes_with_its_outcome() -> None:
    execs = tracker()
    request = execs.start(tool_call("c1", "a.txt"), tool("read_file"), "op-1")
    assert (request.id, request.exec_id, request.read_args.path) == (1, "op-1", "a.txt")
    assert execs.asked("op-1") and not execs.asked("op-2")
    answer = pb.ExecClientMessage(
        id=1, exec_id="op-1", read_result=pb.ReadResult(success=pb.ReadSuccess(content="hi"))
    )
    step = execs.reply(1, "op-1", answer)
    assert isinstance(step, Finished)
    assert step.pending.operation_id == "op-1" and step.result is answer
    assert "hi" in step.outcome.text and not step.outcome.is_error
    assert len(execs) == 0 and not execs.asked("op-1")
    assert isinstance(execs.reply(1, "op-1", answer), Unknown)  # a duplicate


def test_a_shell_stream_waits_for_its_exit() -> None:
    execs = tracker()
    call = ToolCall("c1", "run_terminal_cmd", {"command": "ls"}, '{"command": "ls"}')
    execs.start(call, tool("run_terminal_cmd"), "op-1")

    def piece(**event: object) -> pb.ExecClientMessage:
        stream = pb.ShellStream(**event)  # type: ignore[arg-type]
        return pb.ExecClientMessage(id=1, exec_id="op-1", shell_stream=stream)

    output = piece(stdout=pb.ShellStreamStdout(data="a\n"))
    assert isinstance(execs.reply(1, "op-1", output), MoreToCome)
    step = execs.reply(1, "", piece(exit=pb.ShellStreamExit(code=0)))  # found by number
    assert isinstance(step, Finished) and "a\n" in step.outcome.text


def test_an_edit_reads_then_writes_under_a_new_exec_number() -> None:
    execs = tracker()
    arguments: JSONObject = {"path": "a.txt", "old_string": "hello", "new_string": "bye"}
    call = ToolCall("e1", "edit_file", arguments, None)
    execs.start(call, tool("edit_file"), "op-1")
    read = pb.ExecClientMessage(
        id=1, exec_id="op-1", read_result=pb.ReadResult(success=pb.ReadSuccess(content="hello"))
    )
    step = execs.reply(1, "op-1", read)
    assert isinstance(step, SendNext)
    write = step.request
    assert (write.id, write.exec_id, write.write_args.file_text) == (2, "op-1#2", "bye")
    assert isinstance(execs.reply(1, "op-1", read), Unknown)  # the read is over
    written = pb.ExecClientMessage(
        id=2, exec_id="op-1#2", write_result=pb.WriteResult(success=pb.WriteSuccess(path="a.txt"))
    )
    done = execs.reply(2, "op-1#2", written)
    assert isinstance(done, Finished) and done.pending.operation_id == "op-1"
    assert "1 replacement" in done.outcome.text


def test_a_thrown_exec_finishes_as_an_error_and_an_unknown_one_is_reported() -> None:
    execs = tracker()
    execs.start(tool_call("c1"), tool("read_file"), "op-1")
    assert isinstance(execs.thrown(9, "nope"), Unknown)
    step = execs.thrown(1, "the user declined")
    assert isinstance(step, Finished) and step.result is None
    assert step.outcome.is_error and step.outcome.text == "the user declined"
    execs.start(tool_call("c2"), tool("read_file"), "op-2")
    execs.clear()
    assert len(execs) == 0
