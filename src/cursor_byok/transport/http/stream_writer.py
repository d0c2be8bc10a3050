"""The one writer of a RunSSE stream: it drains the session's outbox in
order, batches what is ready into one write, sends heartbeats while the
outbox is idle and the end-of-stream last. Whatever could not be sent goes
back to the head of the outbox for the next reader. It parks on the outbox
(one future per idle spell) and its heartbeat is one re-armed timer: no
Task, timeout or future per item."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from cursor_byok.runtime.observe import StageClock
from cursor_byok.transport.connect.codec import Codec, ContentType, message_encoder
from cursor_byok.transport.connect.errors import (
    EndStream,
    WireError,
    end_stream_json,
    grpc_web_trailers,
)
from cursor_byok.transport.connect.framing import (
    encode_end_stream_envelope,
    encode_envelope,
    encode_trailers_envelope,
)
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.http.send_now import SendNow
from cursor_byok.transport.sessions.outbox import EndOfStream, Outbox, QueueItem
from cursor_byok.transport.sessions.session import Session

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_BATCH = 256


class Heartbeat:
    """One timer per stream, not one per wait: it fires `interval` after the
    last write, re-arms itself from its own callback, and wakes the writer
    only when nothing was sent meanwhile. A busy stream only records the
    time of each write."""

    __slots__ = ("_handle", "_interval", "_loop", "_outbox", "due", "last_write")

    def __init__(self, interval: float, outbox: Outbox) -> None:
        self._loop = asyncio.get_running_loop()
        self._interval = interval
        self._outbox = outbox
        self.due = False
        self.last_write = self._loop.time()
        self._handle = self._loop.call_at(self.last_write + interval, self._fire)

    def _fire(self) -> None:
        idle_until = self.last_write + self._interval
        if self._loop.time() >= idle_until:
            self.due = True
            self._outbox.wake()
            idle_until = self._loop.time() + self._interval
        self._handle = self._loop.call_at(idle_until, self._fire)

    def wrote(self) -> None:
        self.due = False
        self.last_write = self._loop.time()

    def cancel(self) -> None:
        self._handle.cancel()


class StreamWriter:
    def __init__(
        self, heartbeat_s: float, stages: StageClock | None = None, send_now: SendNow | None = None
    ) -> None:
        """`stages` is told how long each batch took to encode and write
        (`relay`). With `send_now`, what is put while the writer is parked
        is written at once by the putter (`Outbox.flush`), not by this
        writer's task woken for it: one event-loop step less per delta."""
        self.heartbeat_s = heartbeat_s
        self.stages = stages if stages is not None else StageClock()
        self.send_now = send_now

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
        one per delta; an idle one parks on its outbox, woken by an item, the
        client leaving or a heartbeat due."""
        outbox = session.outbox

        def wake(_: object) -> None:
            outbox.wake()

        disconnected.add_done_callback(wake)
        beat = Heartbeat(self.heartbeat_s, outbox)
        try:
            await self._pump(session, beat, content_type, send, disconnected)
        finally:
            beat.cancel()
            disconnected.remove_done_callback(wake)

    async def _pump(
        self,
        session: Session,
        beat: Heartbeat,
        content_type: ContentType,
        send: Send,
        disconnected: asyncio.Future[None],
    ) -> None:
        outbox = session.outbox
        direct = self._direct(outbox, beat, content_type, disconnected)
        while True:
            if outbox.empty() and not beat.due and not self.stopped(outbox, disconnected):
                await outbox.wait(direct)
            if self.stopped(outbox, disconnected):
                # The server may drop writes after a disconnect without an
                # error: what is queued stays for the next reader.
                return
            batch = outbox.take(MAX_BATCH)
            queued = bool(batch)
            if not queued:
                if not beat.due:
                    continue
                batch = [dialect.heartbeat()]
            began = time.perf_counter_ns()  # one batch: one clock read, not one per item
            frames: list[bytes] = []
            encode = message_encoder(content_type.codec)
            for index, item in enumerate(batch):
                if isinstance(item, EndOfStream):
                    outbox.put_back(batch[index + 1 :])
                    pending = b"".join(frames)
                    # The client answers the KV requests once it has read what
                    # came before the end: send that, wait (bounded) for the
                    # answers, then end the stream.
                    waits = item.error is None and bool(session.kv.pending)
                    if waits and await self._write(send, pending, more=True):
                        pending = b""
                        self.stages.since("relay", began)  # the client's answers are no relay
                        await self._kv_answers(session, disconnected)
                        began = time.perf_counter_ns()
                    await self.finish(send, item.error, content_type, pending)
                    self.stages.since("relay", began)
                    return
                frames.append(encode_envelope(encode(item)))
            written = await self._write(send, b"".join(frames), more=True)
            self.stages.since("relay", began)
            if not written:
                if queued:
                    outbox.put_back(batch)
                return
            beat.wrote()

    def _direct(
        self,
        outbox: Outbox,
        beat: Heartbeat,
        content_type: ContentType,
        disconnected: asyncio.Future[None],
    ) -> Callable[[list[QueueItem]], bool] | None:
        """The parked writer's direct path: a batch encoded as `_pump` would
        and written through `send_now`; never the end of the stream."""
        send_now = self.send_now
        if send_now is None:
            return None
        encode = message_encoder(content_type.codec)

        def direct(batch: list[QueueItem]) -> bool:
            if self.stopped(outbox, disconnected):
                return False
            began = time.perf_counter_ns()
            frames = []
            for item in batch:
                if isinstance(item, EndOfStream):
                    return False
                frames.append(encode_envelope(encode(item)))
            if not send_now(b"".join(frames)):
                return False
            self.stages.since("relay", began)
            beat.wrote()
            return True

        return direct

    async def _kv_answers(self, session: Session, disconnected: asyncio.Future[None]) -> None:
        """Until the stream's KV requests are answered, the bound has passed,
        or the client went away."""

        def gone(_: object) -> None:
            session.kv.wake()

        disconnected.add_done_callback(gone)
        try:
            await session.kv.settle(session.request_id)
        finally:
            disconnected.remove_done_callback(gone)

    def stopped(self, outbox: Outbox, disconnected: asyncio.Future[None]) -> bool:
        """Whether the writer must stop taking items: the client went away."""
        return disconnected.done()

    async def finish(
        self, send: Send, error: WireError | None, content_type: ContentType, pending: bytes = b""
    ) -> None:
        """The last write of the stream: the frames still `pending` and the
        end-of-stream frame, in one send (a short turn's last messages and
        its end would otherwise cost a write each)."""
        await send({"type": "http.response.body", "body": pending + end_frame(error, content_type)})

    async def _write(self, send: Send, body: bytes, more: bool) -> bool:
        """False when the body could not be written (the batch is kept)."""
        if not body:
            return True
        try:
            await send({"type": "http.response.body", "body": body, "more_body": more})
        except OSError:
            return False
        return True


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
