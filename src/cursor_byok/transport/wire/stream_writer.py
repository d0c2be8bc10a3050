"""The one writer of a RunSSE stream: it drains the session's queue in
order, batches what is ready into one write, sends heartbeats while the
queue is idle and the end-of-stream last. Whatever could not be sent goes
back to the head of the queue for the next reader."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from cursor_byok.transport.cursor import dialect
from cursor_byok.transport.cursor.session import EndOfStream, QueueItem, Session
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.wire.codec import Codec, ContentType, encode_message
from cursor_byok.transport.wire.errors import (
    EndStream,
    WireError,
    end_stream_json,
    grpc_web_trailers,
)
from cursor_byok.transport.wire.framing import (
    encode_end_stream_envelope,
    encode_envelope,
    encode_trailers_envelope,
)

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_BATCH = 256


class StreamWriter:
    def __init__(self, heartbeat_s: float) -> None:
        self.heartbeat_s = heartbeat_s

    async def pump(
        self,
        session: Session,
        content_type: ContentType,
        send: Send,
        disconnected: asyncio.Future[None],
    ) -> None:
        """The one writer of this stream: queue items in order, heartbeats
        while the queue is idle, the end-of-stream last. Whatever is queued
        goes out in one write, so a busy stream costs one send per batch, not
        one per delta."""
        while True:
            if session.outbox.empty():
                first = await self._wait_item(session, disconnected)
                if first is None:
                    return
                batch = [first]
            else:
                batch = []
            while not session.outbox.empty() and len(batch) < MAX_BATCH:
                batch.append(session.outbox.get_nowait())
            if disconnected.done():
                # The server may drop writes after a disconnect without an error:
                # keep the batch for the next reader instead.
                for item in reversed(batch):
                    requeue_first(session, item)
                return
            frames: list[bytes] = []
            for item in batch:
                if isinstance(item, EndOfStream):
                    await self._write(send, b"".join(frames), more=True)
                    await self.finish(send, item.error, content_type)
                    return
                frames.append(encode_envelope(encode_message(item, content_type.codec)))
            if not await self._write(send, b"".join(frames), more=True):
                for item in reversed(batch):
                    requeue_first(session, item)
                return

    async def _wait_item(
        self, session: Session, disconnected: asyncio.Future[None]
    ) -> QueueItem | None:
        """The next item, a heartbeat after an idle interval, or None when
        the client went away (an item taken meanwhile goes back first)."""
        getter: asyncio.Future[QueueItem] = asyncio.ensure_future(session.outbox.get())
        watched: set[asyncio.Future[Any]] = {getter, disconnected}
        done, _ = await asyncio.wait(
            watched, timeout=self.heartbeat_s, return_when=asyncio.FIRST_COMPLETED
        )
        if getter in done:
            if disconnected in done:
                requeue_first(session, getter.result())
                return None
            return getter.result()
        getter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await getter
        taken = getter.result() if getter.done() and not getter.cancelled() else None
        if disconnected in done:
            if taken is not None:
                requeue_first(session, taken)
            return None
        return taken if taken is not None else dialect.heartbeat()

    async def finish(self, send: Send, error: WireError | None, content_type: ContentType) -> None:
        """The last write of the stream: its end-of-stream frame."""
        await send({"type": "http.response.body", "body": end_frame(error, content_type)})

    async def _write(self, send: Send, body: bytes, more: bool) -> bool:
        """False when the body could not be written (the batch is kept)."""
        if not body:
            return True
        try:
            await send({"type": "http.response.body", "body": body, "more_body": more})
        except OSError:
            return False
        return True


def requeue_first(session: Session, item: pb.AgentServerMessage | EndOfStream) -> None:
    """Put an unsent item back at the head of the queue for the next reader."""
    rest: list[pb.AgentServerMessage | EndOfStream] = []
    while not session.outbox.empty():
        rest.append(session.outbox.get_nowait())
    session.outbox.put_nowait(item)
    for other in rest:
        session.outbox.put_nowait(other)


async def wait_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


def stream_content_type(content_type: ContentType) -> str:
    if content_type.grpc_web:
        return "application/grpc-web+proto"
    if content_type.codec is Codec.JSON:
        return "application/connect+json"
    return "text/event-stream"


def end_frame(error: WireError | None, content_type: ContentType) -> bytes:
    if content_type.grpc_web:
        return encode_trailers_envelope(grpc_web_trailers(error))
    return encode_end_stream_envelope(end_stream_json(EndStream(error)))
