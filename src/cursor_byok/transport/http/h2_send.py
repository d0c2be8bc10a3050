"""hypercorn's HTTP/2 sending, made as cheap per relayed delta as the
HTTP/1.1 path's.

hypercorn 0.18 sends every body write through one task per connection: the
app's write is put in the stream's buffer, the task is woken, walks the
priority tree, pops the buffer and writes one DATA frame to the socket under
a lock, then walks the tree again to find it blocked. At 50 streams that was
about 1.4x the HTTP/1.1 path's CPU per delta (README, "Performance"). Here:

- A body write whose stream has nothing queued ahead of it and whose
  flow-control windows have room is framed at once, with no task, buffer
  or tree in between, and not by h2's `send_data` either: its DATA frames
  are queued in h2's outgoing bytes and its windows spent as `send_data`
  does (h2 is pinned below 5), without the state machine's no-op steps and
  frame objects. Anything else (a window spent, a
  write queued behind one) takes hypercorn's path, which waits for the
  window; the two never reorder a stream's bytes, since the direct path is
  taken only when that stream's buffer is empty. The end of a stream with
  nothing queued is sent the same way.
- What h2 has framed is written to the transport synchronously, in h2's
  order, and not under a lock: every write takes all of `data_to_send()`,
  so bytes leave in the order they were framed. The frames the direct path
  makes are written once per event-loop pass (`call_soon`): the streams of
  a connection whose deltas arrived together go out in one write.
- The same framing is offered to the app synchronously (`send_body_now`,
  found by `send_now.direct_sender`): a stream's writer parked on its
  outbox has a delta framed by whoever put it there, without its task
  being woken to await the ASGI `send`.
- A WINDOW_UPDATE wakes the send task only for the streams that have
  something queued, and the task serves them in turn (`h2_rotation`), not
  by hypercorn's priority tree.
- Back-pressure as before: past `HIGH_WATER` bytes unsent the writer waits
  for the transport to drain.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import h2.exceptions
import priority.priority
from h2.connection import ConnectionState
from h2.stream import StreamState
from hypercorn.events import Closed
from hypercorn.protocol.events import Body, EndBody
from hypercorn.protocol.events import Event as StreamEvent
from hypercorn.protocol.http_stream import ASGIHTTPState

from cursor_byok.transport.http.h2_rotation import StreamRotation

_SENDING = frozenset({StreamState.OPEN, StreamState.HALF_CLOSED_REMOTE})
"""The stream states in which sending DATA leaves the state as it is."""
_DATA_NO_FLAGS = b"\x00\x00"
"""A frame header's type (DATA) and flags (none)."""


def _queued(buffer: Any) -> bool:
    """Whether a stream's send buffer holds bytes or an end to send."""
    return bool(buffer.buffer or buffer._complete)


def _stream_bytes(stream_id: int) -> bytes:
    return stream_id.to_bytes(4, "big")


HIGH_WATER = 2**16
"""Bytes in the transport's buffer past which a write waits for it to drain."""


class DirectSend:
    """Mixed into hypercorn's `H2Protocol`: the body writes of the app framed
    and written without the connection's send task where the windows allow."""

    connection: Any
    has_data: Any
    priority: Any
    stream_buffers: dict[int, Any]
    send: Any
    closed: bool

    def _writer(self) -> asyncio.StreamWriter | None:
        """The connection's writer (hypercorn's `TCPServer`, whose `protocol_send` is `send`)."""
        writer = getattr(getattr(self.send, "__self__", None), "writer", None)
        return writer if isinstance(writer, asyncio.StreamWriter) else None

    def _direct_init(self) -> None:
        self._direct_writer = self._writer()
        self._write_due = False
        self.priority = StreamRotation()  # in place of hypercorn's priority tree

    async def stream_send(self, event: StreamEvent) -> None:
        if self._direct_writer is not None:
            if isinstance(event, Body) and self._frame(event.stream_id, event.data):
                if self._direct_writer.transport.get_write_buffer_size() > HIGH_WATER:
                    await self._flush()
                else:
                    self._write_soon()
                return
            if isinstance(event, EndBody) and self._idle_buffer(event.stream_id) is not None:
                await self._end(event.stream_id)
                return
        await super().stream_send(event)  # type: ignore[misc]

    def send_body_now(self, stream: Any, data: bytes) -> bool:
        """A body write of hypercorn's `stream` framed now, as `stream_send`
        would frame it, if it can be without waiting: the response begun and
        not ended, nothing of the stream queued, the windows open, the
        transport not backed up. False leaves it to the ASGI path."""
        if (
            self._direct_writer is None
            or self.closed
            or stream.closed
            or stream.state is not ASGIHTTPState.RESPONSE
            or self._direct_writer.transport.get_write_buffer_size() > HIGH_WATER
            or not self._frame(stream.stream_id, data)
        ):
            return False
        self._write_soon()
        return True

    def _write_soon(self) -> None:
        """The first frames of a loop pass are written at once, the rest
        together at the pass's end: a delta is not held for a step of
        every other stream's work, and a burst still costs two writes."""
        if not self._write_due:
            self._write_due = True
            self._write_now()
            asyncio.get_running_loop().call_soon(self._write_framed)

    def _idle_buffer(self, stream_id: int) -> Any:
        """The stream's send buffer if nothing is queued in it, else None."""
        buffer = self.stream_buffers.get(stream_id)
        return None if buffer is None or _queued(buffer) else buffer

    async def _end(self, stream_id: int) -> None:
        """END_STREAM at once, as the send task would send it once the
        buffer is empty (it is), and the stream's buffer let go."""
        with contextlib.suppress(h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self.connection.end_stream(stream_id)  # (reset meanwhile: nothing to end)
        del self.stream_buffers[stream_id]
        with contextlib.suppress(priority.priority.MissingStreamError):
            self.priority.remove_stream(stream_id)
        await self._flush()

    def _frame(self, stream_id: int, data: bytes) -> bool:
        """Frame a body write of `data` at once if nothing of its stream is
        queued and its windows hold it whole; False to leave it to hypercorn's
        send task."""
        if self._idle_buffer(stream_id) is None:
            return False
        connection = self.connection
        stream = connection.streams.get(stream_id)
        length = len(data)
        if (
            stream is None
            or connection.state_machine.state is not ConnectionState.SERVER_OPEN
            or stream.state_machine.state not in _SENDING
            or length > connection.outbound_flow_control_window
            or length > stream.outbound_flow_control_window
        ):
            return False  # hypercorn's path: it waits for the window, or drops
        # What h2's `send_data` does for a stream that may send, without its
        # state machine's self-transitions and frame objects (about 35 us a
        # call on the development machine, more than the rest of a delta's
        # relay): the windows spent, DATA frames of at most the peer's
        # frame size queued.
        connection.outbound_flow_control_window -= length
        stream.outbound_flow_control_window -= length
        size = connection.max_outbound_frame_size
        queued = connection._data_to_send
        for start in range(0, length, size):
            chunk = data[start : start + size] if length > size else data
            queued += len(chunk).to_bytes(3, "big") + _DATA_NO_FLAGS + _stream_bytes(stream_id)
            queued += chunk
        return True

    async def _window_updated(self, stream_id: int | None) -> None:
        """Wake the send task for the streams that have something queued
        (hypercorn wakes every stream of the connection on a connection-level
        WINDOW_UPDATE, and the task then visits each to find nothing: at 100
        streams, a few ms each time the client gives the window back)."""
        if self._direct_writer is None:
            await super()._window_updated(stream_id)  # type: ignore[misc]
            return
        buffers = self.stream_buffers
        ids = buffers.keys() if stream_id is None or stream_id == 0 else (stream_id,)
        waiting = [sid for sid in ids if (b := buffers.get(sid)) is not None and _queued(b)]
        for sid in waiting:
            self.priority.unblock(sid)
        if waiting:
            await self.has_data.set()

    def _write_framed(self) -> None:
        """Once per loop pass: what the direct path framed since its first write."""
        self._write_due = False
        self._write_now()

    def _write_now(self) -> None:
        writer = self._direct_writer
        if writer is None or self.closed:
            return
        data = self.connection.data_to_send()
        if data:
            with contextlib.suppress(ConnectionError, RuntimeError):
                writer.write(data)  # (failing: the connection is going, its reader sees it)

    async def _flush(self) -> None:
        writer = self._direct_writer
        if writer is None:
            await super()._flush()  # type: ignore[misc]
            return
        data = self.connection.data_to_send()
        if not data:
            return
        try:
            writer.write(data)
            if writer.transport.get_write_buffer_size() > HIGH_WATER:
                await writer.drain()
        except (ConnectionError, RuntimeError):
            await self.handle(Closed())  # type: ignore[attr-defined]
