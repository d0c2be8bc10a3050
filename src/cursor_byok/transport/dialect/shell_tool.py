"""The terminal tool: a command the client runs in the user's shell, its
output streamed back (see `shell.ShellCollector`). The exec carries a real
parse of the command line (`shell_parsing`), which the client's approval
checks read."""

from __future__ import annotations

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.shell_parsing import fill_shell_args
from cursor_byok.transport.dialect.tool_base import (
    SHELL_TIMEOUT_MS,
    NativeTool,
    ToolOutcome,
    branch_error,
    cap,
    int_arg,
    object_schema,
    str_arg,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


class RunTerminalCommand(NativeTool):
    name = "run_terminal_cmd"
    description = (
        "Run a shell command in the user's workspace and return its output and exit code. "
        "The user may be asked to approve it."
    )
    parameters = object_schema(
        {
            "command": {"type": "string", "description": "The command line to run."},
            "working_directory": {"type": "string", "description": "Where to run it."},
            "timeout_ms": {"type": "integer", "description": "Time limit in milliseconds."},
        },
        ["command"],
    )
    exec_field = "shell_stream_args"

    def exec_args(self, call: ToolCall) -> pb.ShellArgs:
        timeout = int_arg(call.arguments, "timeout_ms") or SHELL_TIMEOUT_MS
        timeout = timeout if timeout > 0 else SHELL_TIMEOUT_MS
        args = pb.ShellArgs(
            command=str_arg(call.arguments, "command"),
            working_directory=str_arg(call.arguments, "working_directory"),
            timeout=timeout,
            tool_call_id=call.id,
            timeout_behavior=pb.TIMEOUT_BEHAVIOR_BACKGROUND,
            hard_timeout=86_400_000,
            file_output_threshold_bytes=40_000,
        )
        return fill_shell_args(args)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.ShellToolCall(args=self.exec_args(call))
        if result is not None and result.WhichOneof("message") == "shell_result":
            card.result.CopyFrom(result.shell_result)
        return pb.ToolCall(shell_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        shell = result.shell_result
        kind = shell.WhichOneof("result")
        if kind in ("success", "failure"):
            done = getattr(shell, kind)
            parts = [f"exit code {done.exit_code}"]
            if done.stdout:
                parts.append(done.stdout)
            if done.stderr:
                parts.append(f"[stderr]\n{done.stderr}")
            return ToolOutcome(cap("\n".join(parts)), False)
        return ToolOutcome(branch_error(shell) or "the command did not run", True)
