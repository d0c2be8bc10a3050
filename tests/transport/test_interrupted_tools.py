"""Tool calls whose run was cut off, without I/O: the table of tools asked
again, what the model is told and the card shows, the output a running
command brings to keep (both streams, marked, capped), and what a stream
that takes a conversation over does with the old stream's execs."""

from __future__ import annotations

from itertools import count

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.interrupted import (
    REPEATABLE,
    interrupted_card_result,
    interrupted_note,
    repeatable,
)
from cursor_byok.transport.dialect.shell import PROGRESS_CUT, PROGRESS_KEEP_CHARS
from cursor_byok.transport.dialect.tools import BUILTIN, READ_ONLY, NativeTool, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.exec_tracker import ExecTracker, MoreToCome
from cursor_byok.transport.sessions.handover import settle_execs
from cursor_byok.transport.sessions.session import Session
from tests.factories import tool_call

SHELL = ToolCall("c1", "run_terminal_cmd", {"command": "make", "working_directory": "/src"}, None)


def piece(exec_id: str, **event: object) -> pb.ExecClientMessage:
    stream = pb.ShellStream(**event)  # type: ignore[arg-type]
    return pb.ExecClientMessage(id=1, exec_id=exec_id, shell_stream=stream)


def test_only_tools_that_read_are_asked_again() -> None:
    names = {tool.name for tool in BUILTIN}
    assert names >= REPEATABLE and REPEATABLE <= READ_ONLY
    for name in ("run_terminal_cmd", "edit_file", "write_file", "delete_file", "github-x"):
        assert not repeatable(name)
    assert repeatable("read_file") and repeatable("grep")


def test_the_note_says_what_ran_and_that_its_end_is_unknown() -> None:
    note = interrupted_note(SHELL)
    assert "`make` (in /src)" in note and "not run again" in note and "unknown" in note
    edit = interrupted_note(ToolCall("e1", "edit_file", {"path": "a.py", "x": "y" * 900}, None))
    assert 'edit_file with {"path": "a.py"' in edit and len(edit) < 900


def test_the_card_of_a_cut_off_command_shows_what_arrived_marked_aborted() -> None:
    tools = ToolSet.for_run()
    shell = tools.get("run_terminal_cmd")
    read = tools.get("read_file")
    assert isinstance(shell, NativeTool) and isinstance(read, NativeTool)
    shown = interrupted_card_result(shell, SHELL, "half\n")
    assert shown is not None
    failure = shown.shell_result.failure
    assert failure.aborted and failure.stdout == "half\n" and failure.command == "make"
    assert interrupted_card_result(read, tool_call("r1"), "") is None


def test_a_running_command_brings_its_output_both_streams_marked_and_capped() -> None:
    execs = ExecTracker(count(1).__next__)
    shell = ToolSet.for_run().get("run_terminal_cmd")
    assert isinstance(shell, NativeTool)
    execs.start(SHELL, shell, "op-1")
    steps = [
        execs.reply(1, "op-1", piece("op-1", start=pb.ShellStreamStart())),
        execs.reply(1, "op-1", piece("op-1", stdout=pb.ShellStreamStdout(data="a\n"))),
        execs.reply(1, "op-1", piece("op-1", stderr=pb.ShellStreamStderr(data="warn\n"))),
        execs.reply(1, "op-1", piece("op-1", stdout=pb.ShellStreamStdout(data="b\n"))),
    ]
    assert all(isinstance(step, MoreToCome) for step in steps)
    outputs = [step.output for step in steps if isinstance(step, MoreToCome)]
    assert outputs == ["", "a\n", "\n[stderr]\nwarn\n", "\n[stdout]\nb\n"]
    big = "x" * PROGRESS_KEEP_CHARS
    cut = execs.reply(1, "op-1", piece("op-1", stdout=pb.ShellStreamStdout(data=big)))
    assert isinstance(cut, MoreToCome) and cut.output.endswith(PROGRESS_CUT)
    kept = sum(len(o) for o in outputs) + len(cut.output) - len(PROGRESS_CUT)
    assert kept == PROGRESS_KEEP_CHARS
    after = execs.reply(1, "op-1", piece("op-1", stdout=pb.ShellStreamStdout(data="more")))
    assert isinstance(after, MoreToCome) and after.output == ""


def session(request_id: str) -> Session:
    return Session(request_id, lambda *_: None, lambda *_: None)


def test_a_stream_taking_over_asks_reads_and_unsent_execs_again_and_cuts_off_the_rest() -> None:
    tools = ToolSet.for_run()
    old, new = session("old"), session("new")
    shell, read = tools.get("run_terminal_cmd"), tools.get("read_file")
    assert isinstance(shell, NativeTool) and isinstance(read, NativeTool)
    old.execs.start(SHELL, shell, "op-shell")
    old.execs.start(tool_call("r1"), read, "op-read")
    unsent_shell = ToolCall("c2", "run_terminal_cmd", {"command": "ls"}, None)
    old.execs.start(unsent_shell, shell, "op-unsent")
    cut_off = settle_execs(new, old, {"op-unsent"})
    assert [p.operation_id for p in cut_off] == ["op-shell"]
    # The cut-off one is never asked on the new stream, and the old one still
    # takes its late output; the others are the new stream's to ask.
    assert new.execs.asked("op-shell") and not new.execs.asked("op-read")
    assert new.execs.safe == {"op-read", "op-unsent"}
    assert [p.operation_id for p in old.execs.pending()] == ["op-shell"]
    # A stream that takes over from `new` in turn knows what was cut off.
    newer = session("newer")
    assert settle_execs(newer, new) == [] and newer.execs.asked("op-shell")
