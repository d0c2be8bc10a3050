"""The KV requests a stream sent, and the client's answers to them.

The server stores the turn's blobs on the client (`kv_server_message`
`set_blob_args`) just before each checkpoint, the last ones just before
`turn_ended`. The official clients answer each with a `kv_client_message`
append, and do so after they read `turn_ended`: a stream that ended at once
would leave those appends with no stream to belong to (an HTTP/1.1 Connect
client aborts them; an HTTP/2 one can no longer send them). So the end of a
stream waits, at most `KV_ANSWER_WAIT_S`, until every KV request it sent has
its answer; a client that never answers costs the stream that much. An
answer that comes after the end is taken all the same (an append always
gets 200), logged and counted.
"""

from __future__ import annotations

import asyncio
import logging

from cursor_byok.transport.connect.codec import Codec, CodecError, decode_message
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.counters import Counters

log = logging.getLogger(__name__)

KV_ANSWER_WAIT_S = 2.0
"""How long the end of a stream waits for the answers to its KV requests."""


class KvAnswers:
    """The ids of the KV requests still unanswered on one stream."""

    __slots__ = ("_settled", "counters", "pending", "wait_s")

    def __init__(self, counters: Counters | None = None, wait_s: float | None = None) -> None:
        self.counters = counters if counters is not None else Counters()
        self.wait_s = KV_ANSWER_WAIT_S if wait_s is None else wait_s
        self.pending: set[int] = set()
        self._settled: asyncio.Event | None = None

    def asked(self, kv_id: int) -> None:
        self.pending.add(kv_id)

    def answered(self, kv_id: int) -> bool:
        """Take an answer; False when no request of this stream waits for it
        (it came after the end, or names an id never asked)."""
        if kv_id not in self.pending:
            return False
        self.pending.discard(kv_id)
        if not self.pending:
            self.wake()
        return True

    def answered_in(self, payload: bytes) -> None:
        """An append applied elsewhere (a piped stream's, on its way to the
        process hosting its turn): the KV answer it may be still ends the
        wait here. Read only while answers are waited for."""
        if not self.pending:
            return
        try:
            message = decode_message(payload, pb.AgentClientMessage, Codec.PROTO)
        except CodecError:
            return
        if message.HasField("kv_client_message"):
            self.answered(message.kv_client_message.id)

    def wake(self) -> None:
        """Stop waiting now (every answer came, or the client went away)."""
        if self._settled is not None:
            self._settled.set()

    def clear(self) -> None:
        """Nothing is waited for any more (the stream's turn moved elsewhere)."""
        self.pending.clear()
        self.wake()

    async def settle(self, request_id: str) -> None:
        """Until every request has its answer, `wake()` is called, or
        `wait_s` has passed; what is still unanswered then is counted and
        given up (an answer to it later is a late one)."""
        if self.pending:
            self._settled = asyncio.Event()
            try:
                async with asyncio.timeout(self.wait_s):
                    await self._settled.wait()
            except TimeoutError:
                pass
            finally:
                self._settled = None
        if self.pending:
            missing = len(self.pending)
            self.counters.kv_unanswered += missing
            log.info(
                "request %s: stream ended with %d KV request(s) unanswered after %ss",
                request_id,
                missing,
                self.wait_s,
            )
            self.pending.clear()
