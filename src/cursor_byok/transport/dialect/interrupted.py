"""A tool call whose run was cut off: which tools are asked again, and
what the others tell the model and show on their card.

When the connection to the client is lost while it runs a tool (or the
server restarts meanwhile), the client gives up that exec and resumes the
turn on a new request id. The server cannot know whether the tool ran, ran
halfway, or is still running. A tool that only looks is asked again; any
other is not (a `git commit`, a migration or an `rm` must not run twice):
its result says what ran, what output had arrived, and that how it ended is
unknown, and the model decides what to do next.
"""

from __future__ import annotations

import json

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.tool_base import NativeTool, str_arg
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

REPEATABLE: frozenset[str] = frozenset({"read_file", "list_dir", "grep", "glob", "read_lints"})
"""The tools asked again when their run was cut off: each only reads the
workspace, so running it twice changes nothing but what it reads. Every
other tool (the shell, edits, writes, deletes, MCP tools, whatever a client
adds) is never asked twice: its result is the interruption note instead."""

ARGUMENTS_SHOWN = 500
"""Characters of a tool call's arguments the note quotes."""


def repeatable(tool_name: str) -> bool:
    return tool_name in REPEATABLE


def interrupted_note(call: ToolCall) -> str:
    """What the model is told of the cut-off call (the loop adds the output
    that had arrived, or that none had)."""
    if call.name == "run_terminal_cmd":
        command = str_arg(call.arguments, "command")
        where = str_arg(call.arguments, "working_directory")
        what = f"the command `{command}`" + (f" (in {where})" if where else "")
    else:
        arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        if len(arguments) > ARGUMENTS_SHOWN:
            arguments = arguments[:ARGUMENTS_SHOWN] + "..."
        what = f"{call.name} with {arguments}"
    return (
        f"Interrupted: the connection to the client was lost while it ran {what}. "
        "It was not run again. Whether it finished is unknown: its exit status and any "
        "later output never arrived, and it may have completed, failed or still be running. "
        "Check its effects before running it again."
    )


def interrupted_card_result(
    tool: NativeTool, call: ToolCall, output: str
) -> pb.ExecClientMessage | None:
    """What the cut-off call's card shows: for a command, the output that had
    arrived, marked aborted; other tools show no result."""
    if tool.exec_field != "shell_stream_args":
        return None
    failure = pb.ShellFailure(
        command=str_arg(call.arguments, "command"),
        working_directory=str_arg(call.arguments, "working_directory"),
        exit_code=-1,
        stdout=output,
        aborted=True,
    )
    return pb.ExecClientMessage(shell_result=pb.ShellResult(failure=failure))
