"""Asking the client for its request context.

A run request without one (the CLI's print mode, the plan actions) gets an
`exec_server_message.request_context_args`; the official client answers
with its environment, rules and MCP tools. Other clients may never answer,
so the turn starts without a context after a bounded wait: a missing answer
delays a turn, it never stalls one.
"""

from __future__ import annotations

import asyncio

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

CONTEXT_WAIT_S = 3.0
"""How long a turn waits for the client's request context before it starts without."""


class ContextRequests:
    """The request contexts asked on one stream, by exec number."""

    def __init__(self) -> None:
        self._waiting: dict[int, asyncio.Future[pb.RequestContext | None]] = {}
        self.canceled: str | None = None
        """Why the user canceled while a turn waited for its context, if they did."""

    def ask(self, number: int) -> pb.AgentServerMessage:
        """The exec request to send; `wait` then waits for its answer."""
        answer: asyncio.Future[pb.RequestContext | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._waiting[number] = answer
        request = pb.ExecServerMessage(
            id=number,
            exec_id=f"request-context-{number}",
            request_context_args=pb.RequestContextArgs(),
        )
        return pb.AgentServerMessage(exec_server_message=request)

    def answer(self, number: int, context: pb.RequestContext | None) -> bool:
        """Take the client's answer (None: it failed or declined). False when
        `number` is not a request context this stream asked for."""
        waiting = self._waiting.pop(number, None)
        if waiting is None:
            return False
        if not waiting.done():
            waiting.set_result(context)
        return True

    def cancel(self, reason: str) -> bool:
        """The user canceled: stop waiting, and say whether a turn was waiting
        (it then never starts)."""
        if not self._waiting:
            return False
        self.canceled = reason
        for number in list(self._waiting):
            self.answer(number, None)
        return True

    async def wait(self, number: int, timeout_s: float) -> pb.RequestContext | None:
        """The answer to request `number`, or None if none came within
        `timeout_s`; either way the request is no longer waited for."""
        answer = self._waiting.get(number)
        if answer is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout_s)
        except TimeoutError:
            return None
        finally:
            self._waiting.pop(number, None)
