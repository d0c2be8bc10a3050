"""Asking the client for something a turn needs before it starts.

A run request without a request context (the CLI's print mode, the plan
actions) gets an `exec_server_message.request_context_args`; the official
client answers with its environment, rules and MCP tools. An image attached
by blob id alone is asked for with `kv_server_message.get_blob_args`; the
client answers with the bytes from its KV store. Other clients may never
answer, so the turn starts without the answer after a bounded wait: a
missing answer delays a turn, it never stalls one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

CONTEXT_WAIT_S = 3.0
"""How long a turn waits for the client's request context before it starts without."""

BLOB_WAIT_S = 5.0
"""How long a turn waits for the images it asked the client for before it
starts without them (the model is told which were left out)."""

T = TypeVar("T")


class Answers(Generic[T]):
    """Questions asked on one stream, by number, and their answers."""

    def __init__(self) -> None:
        self._waiting: dict[int, asyncio.Future[T | None]] = {}
        self.canceled: str | None = None
        """Why the user canceled while a turn waited for an answer, if they did."""

    def _expect(self, number: int) -> None:
        self._waiting[number] = asyncio.get_running_loop().create_future()

    def answer(self, number: int, value: T | None) -> bool:
        """Take the client's answer (None: it failed or declined). False when
        `number` is not a question this stream asked."""
        waiting = self._waiting.pop(number, None)
        if waiting is None:
            return False
        if not waiting.done():
            waiting.set_result(value)
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

    async def wait(self, number: int, timeout_s: float) -> T | None:
        """The answer to question `number`, or None if none came within
        `timeout_s`; either way the question is no longer waited for."""
        answer = self._waiting.get(number)
        if answer is None:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout_s)
        except TimeoutError:
            return None
        finally:
            self._waiting.pop(number, None)


class ContextRequests(Answers[pb.RequestContext]):
    """The request contexts asked on one stream, by exec number."""

    def ask(self, number: int) -> pb.AgentServerMessage:
        """The exec request to send; `wait` then waits for its answer."""
        self._expect(number)
        request = pb.ExecServerMessage(
            id=number,
            exec_id=f"request-context-{number}",
            request_context_args=pb.RequestContextArgs(),
        )
        return pb.AgentServerMessage(exec_server_message=request)


class BlobRequests(Answers[bytes]):
    """The blobs asked from the client's KV store on one stream, by KV id."""

    def ask(self, number: int, blob_id: bytes) -> pb.AgentServerMessage:
        """The KV request to send; `wait` then waits for its answer."""
        self._expect(number)
        request = pb.KvServerMessage(id=number, get_blob_args=pb.GetBlobArgs(blob_id=blob_id))
        return pb.AgentServerMessage(kv_server_message=request)

    async def ask_all(
        self,
        blob_ids: Iterable[bytes],
        number: Callable[[], int],
        send: Callable[[pb.AgentServerMessage], None],
        timeout_s: float,
    ) -> dict[bytes, bytes | None]:
        """Ask for each blob (`number` gives each KV request its id, `send`
        sends it); the blobs, each None when it did not come within
        `timeout_s` of the call."""
        asked = {}
        for blob_id in blob_ids:
            kv_id = number()
            asked[kv_id] = blob_id
            send(self.ask(kv_id, blob_id))
        numbers = list(asked)
        found = await asyncio.gather(*(self.wait(n, timeout_s) for n in numbers))
        return {asked[n]: data for n, data in zip(numbers, found, strict=True)}
