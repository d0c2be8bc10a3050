"""The load client's HTTP/2 connection, reading DATA frames itself.

The load client shares the machine's two cores with the server it measures.
Through h2, each DATA frame cost it about 35 us (frame objects, the stream's
state machine, flow-control bookkeeping), about 0.7 of a core at 200 streams
of 100 deltas/s, while the HTTP/1.1 side's client (aiohttp) parses its chunks
in C. So here a whole DATA frame on an open stream is cut out of the bytes
read before h2 sees them: its payload goes to the stream, and the window is
given back with WINDOW_UPDATE frames made here, once half of it is spent, as
h2 would. Every other frame (HEADERS, END_STREAM, RST_STREAM, SETTINGS, ...)
still goes through h2, whole and in order; h2's own inbound windows never
shrink for the bytes taken here, so it never sees them overrun.
"""

from __future__ import annotations

import ssl
import time

import h2.exceptions
from h2.stream import StreamState

from cursor_byok.client.client import CUT_OFF, End
from cursor_byok.client.run_client import H2Client

HEADER = 9
DATA = 0
UPDATE_AT = 32768
"""Bytes taken (on a stream, on the connection) before the window is given back."""
_READING = frozenset({StreamState.OPEN, StreamState.HALF_CLOSED_LOCAL})


def window_update(stream_id: int, increment: int) -> bytes:
    return b"\x00\x00\x04\x08\x00" + stream_id.to_bytes(4, "big") + increment.to_bytes(4, "big")


class FastH2Client(H2Client):
    read_at: dict[int, float]
    """Per stream: when (perf_counter) the bytes of its latest message taken
    here were read off the socket. The direct and HTTP/1.1 sides of the bench
    stamp a delta in the task that read it; a Run stream's reader is another
    task than the turn's, a loop step earlier, so the turn takes this time."""

    async def read(self) -> None:
        buffer = bytearray()
        taken: dict[int, int] = {}  # per stream: bytes not yet given back
        connection_taken = 0
        self.read_at = read_at = {}
        try:
            while data := await self.reader.read(65536):
                now = time.perf_counter()
                buffer += data
                updates = bytearray()
                at = 0
                while len(buffer) - at >= HEADER:
                    length = int.from_bytes(buffer[at : at + 3], "big")
                    end = at + HEADER + length
                    if end > len(buffer):
                        break
                    stream_id = int.from_bytes(buffer[at + 5 : at + 9], "big") & 0x7FFFFFFF
                    stream = self.streams.get(stream_id)
                    h2_stream = self.h2.streams.get(stream_id)
                    if (
                        buffer[at + 3] == DATA
                        and buffer[at + 4] == 0  # no END_STREAM, no padding
                        and stream is not None
                        and not stream.paused
                        and h2_stream is not None
                        and h2_stream.state_machine.state in _READING
                    ):
                        read_at[stream_id] = now
                        stream.take(bytes(buffer[at + HEADER : end]))
                        count = taken.get(stream_id, 0) + length
                        if count >= UPDATE_AT:
                            updates += window_update(stream_id, count)
                            count = 0
                        taken[stream_id] = count
                        connection_taken += length
                        if connection_taken >= UPDATE_AT:
                            updates += window_update(0, connection_taken)
                            connection_taken = 0
                    else:  # through h2, in order
                        for event in self.h2.receive_data(bytes(buffer[at:end])):
                            self.handle(event)
                    at = end
                del buffer[:at]
                if len(taken) > 1000:  # forget the streams that have ended
                    taken = {k: v for k, v in taken.items() if k in self.h2.streams}
                    kept = {k: v for k, v in read_at.items() if k in self.h2.streams}
                    self.read_at = read_at = kept
                if updates:
                    self.writer.write(bytes(updates))
                self.flush()
        except (ConnectionError, ssl.SSLError, h2.exceptions.ProtocolError):
            pass  # the connection is gone: every open stream was cut off
        self.closed = True
        for stream in self.streams.values():
            stream.finish(End({"code": "unknown", "message": CUT_OFF}, b""))
