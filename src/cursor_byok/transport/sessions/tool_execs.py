"""The execs a server-run tool sends on one stream (a subagent's
`subagent_args`), and their answers.

A tool run asks once per key; its exec gets the stream's next number. The
answer (`exec_client_message` with that number, or a `throw`) may come
before anyone waits for it (a subagent started early with the ones before
it), so it is kept until it is taken. When the turn ends (a cancel, a
failure, another stream taking over) every exec still out is aborted
(`exec_server_control_message.abort`): the client stops its side.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cursor_byok.transport.dialect.tool_base import exec_message
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

Send = Callable[[pb.AgentServerMessage], None]
Answer = pb.ExecClientMessage | str | None
"""The client's answer, the error it failed the exec with, or None (none came)."""


@dataclass(slots=True)
class _Sent:
    number: int
    sent_ms: int
    send: Send
    answer: asyncio.Future[Answer] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class ToolExecs:
    """The server tools' execs of one stream, by key and by number."""

    def __init__(self) -> None:
        self._by_key: dict[str, _Sent] = {}
        self._by_number: dict[int, _Sent] = {}

    def __len__(self) -> int:
        return sum(not sent.answer.done() for sent in self._by_key.values())

    def send(
        self,
        key: str,
        field_name: str,
        args: Any,
        numbers: Callable[[], int],
        now_ms: int,
        send: Send,
    ) -> int:
        """Send the exec `key` (the stream's next number) unless it went
        out already; the time it was sent."""
        found = self._by_key.get(key)
        if found is not None:
            return found.sent_ms
        number = numbers()
        sent = _Sent(number, now_ms, send)
        self._by_key[key] = self._by_number[number] = sent
        send(pb.AgentServerMessage(exec_server_message=exec_message(number, key, field_name, args)))
        return now_ms

    def answer(self, number: int, message: pb.ExecClientMessage | str) -> bool:
        """Take the client's answer to exec `number` (a string: the error it
        failed the exec with).
        False when no exec of a server tool has that number."""
        sent = self._by_number.get(number)
        if sent is None:
            return False
        if not sent.answer.done():
            sent.answer.set_result(message)
        return True

    async def result(self, key: str, timeout_s: float) -> Answer:
        """The answer to exec `key`; None when it was never sent, the turn
        ended, or none came within `timeout_s` (the exec is aborted then)."""
        sent = self._by_key.get(key)
        if sent is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(sent.answer), timeout_s)
        except TimeoutError:
            self._abort(sent)
            return None

    def _abort(self, sent: _Sent) -> None:
        if sent.answer.done():
            return
        sent.answer.set_result(None)
        abort = pb.ExecServerControlMessage(abort=pb.ExecServerAbort(id=sent.number))
        with contextlib.suppress(Exception):  # the stream may be gone: nothing to tell
            sent.send(pb.AgentServerMessage(exec_server_control_message=abort))

    def abort_all(self) -> None:
        """The turn ended here: abort every exec still out."""
        for sent in list(self._by_key.values()):
            self._abort(sent)
