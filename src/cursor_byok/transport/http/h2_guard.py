"""DATA for an HTTP/2 stream whose response has ended, without ending the connection.

A Run stream's response may end while its client is still sending: a
message refused for want of memory, a malformed stream, a turn over while
a heartbeat is on its way. hypercorn 0.18 then looks the stream up among
those it serves, no longer finds it, and the KeyError ends the whole
connection with every other stream on it (a known bug, unfixed in 0.18).
Here such DATA is acknowledged (so the connection's flow-control window is
not lost) and dropped, and the stream is reset with NO_ERROR, which RFC 9113
section 8.1 gives a server for a request it no longer needs ("a complete
response prior to the client sending an entire request"), so the client
stops sending it. Each such frame is counted (`late_data`, in /metrics).
Installed once, when hypercorn is loaded; every other event is hypercorn's
own handling.
"""

from __future__ import annotations

import contextlib
from typing import Any

import h2.errors
import h2.events
import h2.exceptions
import hypercorn.protocol
from hypercorn.protocol.events import Body
from hypercorn.protocol.h2 import H2Protocol

from cursor_byok.transport.http.late_data import DROPPED


class GuardedH2Protocol(H2Protocol):
    async def _handle_events(self, events: list[h2.events.Event]) -> None:
        others: list[h2.events.Event] = []
        for event in events:
            if not isinstance(event, h2.events.DataReceived):
                others.append(event)
                continue
            if others:  # in order: what came before this DATA first
                await super()._handle_events(others)
                others = []
            stream: Any = self.streams.get(event.stream_id)
            if stream is not None:
                await stream.handle(Body(stream_id=event.stream_id, data=event.data))
            self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if stream is None:
                DROPPED.frames += 1
                with contextlib.suppress(h2.exceptions.StreamClosedError):
                    self.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.NO_ERROR)
        await super()._handle_events(others)  # and it sends what is due


def install() -> None:
    """hypercorn's connections speak HTTP/2 through the guarded protocol."""
    setattr(hypercorn.protocol, "H2Protocol", GuardedH2Protocol)  # noqa: B010 (not exported)
