"""`agent.v1.AgentService/Run`: the bidirectional stream HTTP/2 clients speak.

One HTTP/2 stream carries what RunSSE + BidiAppend carry over HTTP/1.1: the
request body is a stream of enveloped `AgentClientMessage`s (in order, so no
seqno), the response body the session's `AgentServerMessage`s. Each Run
stream is a session of its own; the request stream feeds it as appends
numbered in arrival order, and the same writer as RunSSE drains it.

A stream that goes away (reset, lost connection, a client that stops
reading) is not a cancel: the session lets go of its conversation, whose
output is kept for the next stream, and the turn goes on for the grace
period, so a resume on a new stream picks it up. The outbox is bounded: a
client that does not read gets its stream failed with a retryable error
rather than growing the server's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cursor_byok.runtime.observe import Metrics, StageClock
from cursor_byok.store.owners import scoped
from cursor_byok.transport.connect.codec import Codec, ContentType
from cursor_byok.transport.connect.errors import Code, ErrorDetail, WireError, grpc_web_trailers
from cursor_byok.transport.http.direct_receive import SETTLE, DirectReceive
from cursor_byok.transport.http.run_messages import RunMessages, Taken
from cursor_byok.transport.http.send_now import SendNow, direct_sender
from cursor_byok.transport.http.stream_writer import Receive, Send, StreamWriter
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb
from cursor_byok.transport.sessions.hub import SessionHub
from cursor_byok.transport.sessions.outbox import Outbox
from cursor_byok.transport.sessions.session import Session

log = logging.getLogger(__name__)

RUN = "/agent.v1.AgentService/Run"
OUTBOX_LIMIT = 4096
"""Messages a Run stream may have waiting for a client that does not read
(a busy turn produces a few thousand per minute; the writer sends up to 256
at a time)."""
FAIL_WRITE_S = 2.0
"""How long the error that fails a slow reader's stream may wait for room."""
END_WRITE_S = 30.0
"""How long the end of a stream may wait for the client to read what is
before it. hypercorn keeps every body write in its own buffer and sends the
end only once the client has read the lot: one that stopped reading would
hold the stream for ever. After this the end is left to hypercorn, which
sends it if the client reads again (gRPC's trailers excepted) before the
connection is closed: with no other stream open, after its keep-alive time.
A client cut off so resumes the turn on a new stream."""


class Protocol(Enum):
    CONNECT = "connect"
    GRPC = "grpc"
    GRPC_WEB = "grpc-web"


@dataclass(frozen=True, slots=True)
class RunFraming:
    """What a Run request's content type says: the codec and how the stream ends."""

    codec: Codec
    protocol: Protocol
    media_type: str  # the response mirrors the request

    @property
    def content_type(self) -> ContentType:
        return ContentType(self.codec, grpc_web=self.protocol is Protocol.GRPC_WEB, streaming=True)


_RUN_TYPES: dict[str, tuple[Codec, Protocol]] = {
    "application/connect+proto": (Codec.PROTO, Protocol.CONNECT),
    "application/connect+json": (Codec.JSON, Protocol.CONNECT),
    "application/grpc": (Codec.PROTO, Protocol.GRPC),
    "application/grpc+proto": (Codec.PROTO, Protocol.GRPC),
    "application/grpc+json": (Codec.JSON, Protocol.GRPC),
    "application/grpc-web": (Codec.PROTO, Protocol.GRPC_WEB),
    "application/grpc-web+proto": (Codec.PROTO, Protocol.GRPC_WEB),
    "application/grpc-web+json": (Codec.JSON, Protocol.GRPC_WEB),
}


def run_framing(header: str | None) -> RunFraming | None:
    """None when the content type is not a streaming Connect, gRPC or gRPC-Web one."""
    media_type = (header or "").split(";", 1)[0].strip().lower()
    known = _RUN_TYPES.get(media_type)
    return None if known is None else RunFraming(known[0], known[1], media_type)


def grpc_trailers(error: WireError | None) -> list[tuple[bytes, bytes]]:
    """gRPC's `grpc-status` / `grpc-message` as HTTP/2 trailers."""
    block = grpc_web_trailers(error).decode()
    pairs = (line.split(": ", 1) for line in block.split("\r\n") if line)
    return [(name.encode(), value.encode()) for name, value in pairs]


def slow_reader_error() -> WireError:
    details = errors_pb.ErrorDetails(
        error=errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE,
        details=errors_pb.CustomErrorDetails(
            title="The connection fell behind",
            detail="The client stopped reading the agent stream; the turn goes on. "
            "Retry to resume it.",
            is_retryable=True,
        ),
        is_expected=True,
    )
    message = f"more than {OUTBOX_LIMIT} messages waited for the client; resume the run"
    return WireError(Code.UNAVAILABLE, message, (ErrorDetail.of(details),))


class RunWriter(StreamWriter):
    """The RunSSE writer, plus: a write gives up when the outbox overflows or
    the client goes away, and gRPC ends with trailers.

    A write stalled on HTTP/2 flow control is abandoned by cancelling the
    writer's own task from the overflow or disconnect callback (and taking
    that cancel back), so a write costs no Task of its own."""

    def __init__(
        self,
        heartbeat_s: float,
        framing: RunFraming,
        outbox: Outbox,
        disconnected: asyncio.Future[None],
        stages: StageClock | None = None,
        send_now: SendNow | None = None,
    ) -> None:
        super().__init__(heartbeat_s, stages, send_now)
        self.framing = framing
        self.outbox = outbox
        self.disconnected = disconnected
        self._writing: asyncio.Task[Any] | None = None
        self._aborted = False

    def watch(self) -> None:
        """Abandon a write in progress when the outbox overflows or the client goes."""
        self.outbox.on_overflow(self._abort)
        self.disconnected.add_done_callback(self._gone)

    def unwatch(self) -> None:
        self.outbox.on_overflow(None)
        self.disconnected.remove_done_callback(self._gone)

    def _gone(self, _: object) -> None:
        self._abort()

    def _abort(self) -> None:
        if self._writing is not None and not self._aborted:
            self._aborted = True
            self._writing.cancel()

    def stopped(self, outbox: Outbox, disconnected: asyncio.Future[None]) -> bool:
        return outbox.overflowed or disconnected.done()

    async def finish(
        self, send: Send, error: WireError | None, content_type: ContentType, pending: bytes = b""
    ) -> None:
        # The pending frames go through `_write`, which a stalled write can be
        # abandoned from; only then the end of the stream, abandoned the same
        # way or after END_WRITE_S.
        await self._write(send, pending, more=True)
        try:
            async with asyncio.timeout(END_WRITE_S):
                await self._abandonable(self._end(send, error, content_type))
        except TimeoutError:
            log.info("run: the client did not read the stream's end in %ss; let go", END_WRITE_S)

    async def _end(self, send: Send, error: WireError | None, content_type: ContentType) -> bool:
        if self.framing.protocol is not Protocol.GRPC:
            await super().finish(send, error, content_type)
            return True
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        await send({"type": "http.response.trailers", "headers": grpc_trailers(error)})
        return True

    async def _write(self, send: Send, body: bytes, more: bool) -> bool:
        if not body:
            return True
        if self.stopped(self.outbox, self.disconnected):
            return False
        return await self._abandonable(super()._write(send, body, more))

    async def _abandonable(self, write: Awaitable[bool]) -> bool:
        """`write`, or False when the overflow or disconnect callback abandoned it."""
        task = asyncio.current_task()
        self._writing = task
        try:
            return await write
        except asyncio.CancelledError:
            if not self._aborted or task is None or task.uncancel() > 0:
                raise  # a cancel from outside too: the stream is being torn down
            return False
        finally:
            self._writing = None
            self._aborted = False


class RunHandler:
    """Serves Run streams on the hub's sessions."""

    def __init__(
        self,
        hub: SessionHub,
        metrics: Metrics,
        heartbeat_s: float,
        max_message_bytes: int,
        outbox_limit: int = OUTBOX_LIMIT,
    ) -> None:
        self.hub = hub
        self.metrics = metrics
        self.heartbeat_s = heartbeat_s
        self.max_message_bytes = max_message_bytes
        self.outbox_limit = outbox_limit

    def open(self, owner: int, headers: Mapping[str, str] | None = None) -> Session:
        """A session for `owner`'s new stream (`headers`: its request's), read
        from now on (so the memory budget never drops it meanwhile);
        OverBudget when there is no room."""
        session = self.hub.session(scoped(owner, f"run-{uuid.uuid4().hex}"), headers)
        session.outbox.limit = self.outbox_limit
        self.hub.reader_attached(session)
        return session

    async def serve(
        self, session: Session, framing: RunFraming, receive: Receive, send: Send
    ) -> None:
        try:
            await self._serve(session, framing, receive, send)
        finally:
            self._gone(session)

    async def _serve(
        self, session: Session, framing: RunFraming, receive: Receive, send: Send
    ) -> None:
        outbox = session.outbox
        headers = [(b"content-type", framing.media_type.encode()), (b"cache-control", b"no-cache")]
        if framing.protocol is Protocol.CONNECT:
            headers.append((b"connect-protocol-version", b"1"))
        start = {"type": "http.response.start", "status": 200, "headers": headers}
        if framing.protocol is Protocol.GRPC:
            start["trailers"] = True
        await send(start)
        disconnected: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        reader = asyncio.ensure_future(self._read(session, framing, receive, disconnected))
        stages, send_now = self.metrics.stages, direct_sender(send)
        writer = RunWriter(self.heartbeat_s, framing, outbox, disconnected, stages, send_now)
        writer.watch()
        self.metrics.active_streams.inc()
        try:
            await writer.pump(session, framing.content_type, send, disconnected)
            writer.unwatch()
            if outbox.overflowed and not disconnected.done():
                log.info("run %s: the client stopped reading; stream failed", session.request_id)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        writer.finish(send, slow_reader_error(), framing.content_type),
                        FAIL_WRITE_S,
                    )
        finally:
            writer.unwatch()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self.metrics.active_streams.dec()

    def _gone(self, session: Session) -> None:
        """The stream is gone, ended or not. A Run session is never read
        again (a resume opens a new stream), so an unfinished one lets go of
        its conversation: output goes to the stash for the next stream, and
        the turn goes on for the grace period."""
        if not session.ended:
            if session.conversation_id is not None:
                self.hub.sink.release(session.conversation_id, session)
            session.outbox.clear()
        self.hub.reader_detached(session)

    async def _read(
        self,
        session: Session,
        framing: RunFraming,
        receive: Receive,
        disconnected: asyncio.Future[None],
    ) -> None:
        """Feed the request stream to the session in order until the client
        goes away (`run_messages`); a malformed stream ends the response with
        the reason. Where the server allows it, a message that finds this
        reader waiting is taken in the step that read it (`direct_receive`)."""
        messages = RunMessages(self.hub, session, framing.codec, self.max_message_bytes)
        direct = DirectReceive.behind(receive, messages.take)
        taken = Taken.MORE
        try:
            while taken is Taken.MORE:
                if direct is not None:
                    direct.waiting = True
                message = await receive()
                if direct is not None:
                    direct.waiting = False
                    taken = await direct.settle()
                    if taken is not Taken.MORE or message is SETTLE:
                        continue
                taken = await messages.take(message)
        finally:
            if direct is not None:
                direct.close()
            messages.close()
        if taken is Taken.GONE and not disconnected.done():
            disconnected.set_result(None)
