"""The execs one stream has asked the client to run, without I/O.

A tool may take several execs (an edit reads, then writes) and one exec may
answer in many messages (a shell streams its output). The tracker keeps each
asked exec until its final answer and says what a client message leads to;
the session sends and submits what it says. It also remembers the tool
calls whose run was cut off and that are not asked again on this stream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.shell import ShellCollector
from cursor_byok.transport.dialect.tools import NativeTool, NextExec, ToolOutcome, exec_message
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


@dataclass(slots=True)
class PendingExec:
    """One asked tool call; `number` and `exec_id` are those of its current exec."""

    call: ToolCall
    tool: NativeTool
    operation_id: str
    number: int
    exec_id: str
    shell: ShellCollector | None = None
    memo: dict[str, Any] = field(default_factory=dict)
    pieces: int = 0
    """Pieces of output taken so far (each a loop input of its own)."""


@dataclass(frozen=True, slots=True)
class Finished:
    """The tool call is over: show `result` on its card, give `outcome` to the model."""

    pending: PendingExec
    result: pb.ExecClientMessage | None
    outcome: ToolOutcome


@dataclass(frozen=True, slots=True)
class SendNext:
    """The tool needs another exec: send `request`."""

    request: pb.ExecServerMessage


@dataclass(frozen=True, slots=True)
class MoreToCome:
    """A piece of a streamed answer: `output` is what it brought to keep
    with the running call (empty: nothing to keep)."""

    pending: PendingExec | None = None
    output: str = ""


@dataclass(frozen=True, slots=True)
class Unknown:
    """No asked exec has this number or id (late, or from another stream)."""


Step: TypeAlias = Finished | SendNext | MoreToCome | Unknown


class ExecTracker:
    """The pending execs of one stream, by exec id. `numbers` hands out the
    stream's exec numbers (shared with the other messages that count them)."""

    def __init__(self, numbers: Callable[[], int]) -> None:
        self._numbers = numbers
        self._pending: dict[str, PendingExec] = {}
        self.interrupted: set[str] = set()
        """Operations whose run was cut off: they are never asked here."""
        self.safe: set[str] = set()
        """Operations another stream of this process asked without their
        running (or harmlessly): asking them here is no second run."""

    def __len__(self) -> int:
        return len(self._pending)

    def asked(self, operation_id: str) -> bool:
        """Asked on this stream (or cut off, and so never to be asked)."""
        if operation_id in self.interrupted:
            return True
        return any(p.operation_id == operation_id for p in self._pending.values())

    def pending(self) -> list[PendingExec]:
        return list(self._pending.values())

    def forget(self, pending: PendingExec) -> None:
        """Stop waiting for `pending` (what comes for it is unknown now)."""
        if self._pending.get(pending.exec_id) is pending:
            del self._pending[pending.exec_id]

    def start(self, call: ToolCall, tool: NativeTool, operation_id: str) -> pb.ExecServerMessage:
        """Register a tool call and return its first exec request."""
        number = self._numbers()
        shell = None
        if tool.exec_field == "shell_stream_args":
            args = tool.exec_args(call)
            shell = ShellCollector(args.command, args.working_directory)
        pending = PendingExec(call, tool, operation_id, number, operation_id, shell)
        self._pending[operation_id] = pending
        return tool.exec_request(call, number, operation_id)

    def reply(self, number: int, exec_id: str, message: pb.ExecClientMessage) -> Step:
        pending = self._pending.get(exec_id) or self._by_number(number)
        if pending is None:
            return Unknown()
        final = pending.shell.feed(message) if pending.shell else message
        if final is None:
            return MoreToCome(pending, pending.shell.fresh if pending.shell else "")
        step = pending.tool.step(pending.call, final, pending.memo)
        if isinstance(step, NextExec):
            del self._pending[pending.exec_id]
            pending.number = self._numbers()
            pending.exec_id = f"{pending.operation_id}#{pending.number}"
            self._pending[pending.exec_id] = pending
            return SendNext(exec_message(pending.number, pending.exec_id, step.field, step.args))
        del self._pending[pending.exec_id]
        return Finished(pending, final, step)

    def thrown(self, number: int, error: str) -> Finished | Unknown:
        """The client declined or failed the exec numbered `number`."""
        pending = self._by_number(number)
        if pending is None:
            return Unknown()
        del self._pending[pending.exec_id]
        return Finished(pending, None, ToolOutcome(error, True))

    def abandon(self, error: str) -> list[Finished]:
        """Every pending exec ends with `error` (its answer will never come)."""
        ended = [Finished(p, None, ToolOutcome(error, True)) for p in self._pending.values()]
        self._pending.clear()
        return ended

    def clear(self) -> None:
        self._pending.clear()

    def _by_number(self, number: int) -> PendingExec | None:
        return next((p for p in self._pending.values() if p.number == number), None)
