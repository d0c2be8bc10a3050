"""hypercorn's HTTP/2 connection, held to RFC 9113 where 0.18 is not, and
bounded against floods. Installed once, when hypercorn is loaded; every
event not named here is hypercorn's own handling.

- DATA for a stream whose response has ended: hypercorn looks the stream up
  among those it serves, no longer finds it, and the KeyError ends the whole
  connection with every other stream on it (a known bug, unfixed in 0.18).
  Here such DATA is acknowledged (so the connection's flow-control window is
  not lost) and dropped, and the stream is reset with NO_ERROR, which RFC
  9113 section 8.1 gives a server for a request it no longer needs ("a
  complete response prior to the client sending an entire request"), so the
  client stops sending it. Each such frame is counted (`late_data`, in
  /metrics).
- The client's GOAWAY: h2's state machine closes the connection on it, so
  the next frame on a stream still open (a tool result, the END_STREAM) is a
  connection error, and hypercorn closes at once. RFC 9113 section 6.8 lets
  streams already open run to completion: here the GOAWAY is noted, the
  streams go on, and the connection is closed (with the server's own GOAWAY)
  once none is left open.
- Idle: hypercorn stops its keep-alive timer when a connection's first bytes
  arrive and restarts it only when a stream closes, so one that sent the
  preface and nothing else was never closed. Here the timer is restarted as
  soon as the connection speaks HTTP/2 with no stream open. And a connection
  closed by the server is told so first (GOAWAY NO_ERROR, the last stream
  taken), where hypercorn closed the socket bare.
- A response that has ended while the client's request stream is still
  open (a Run client need not half-close it): the stream would stay open on
  both sides and hold one of the connection's MAX_CONCURRENT_STREAMS places
  for ever, so after 100 turns the connection took no more. `LINGER_S`
  after its end (room for answers the client sends late), such a stream is
  reset with NO_ERROR (RFC 9113 section 8.1); DATA that still comes for it
  is dropped by h2, acknowledged, and counted with the rest.
- A client that closes its side: hypercorn noted it but kept the socket
  until its keep-alive timer ran out; here it is closed at once.
- Receive windows: HTTP/2's defaults (64 KiB per stream and per connection,
  given back half at a time) let a client send about one window per round
  trip, so a 6 MiB tool result up a Run stream took 5.9 s to send at a 50 ms
  round trip. Here a stream may have `STREAM_WINDOW` in flight and a connection
  `CONNECTION_WINDOW` (Go's HTTP/2 server allows 1 MiB of each). What
  arrives is handed to the stream and acknowledged as before, so this
  changes how soon the client may send, not what the server holds.
- The server's own GOAWAY after a connection's last request
  (`keep_alive_max_requests`): hypercorn took one stream more than the
  limit, sent GOAWAY naming it, and closed h2's state machine with it, so
  that stream's response could not be sent and its turn died. Here the
  limit's last stream is the last taken: GOAWAY NO_ERROR names it, the
  streams up to it run to completion (RFC 9113 section 6.8), one opened
  after it is refused (REFUSED_STREAM: not processed, safe to send again on
  a new connection), and the connection closes once none is left open.
- Floods: RST_STREAM (the 2023 "rapid reset" attack: HEADERS + RST_STREAM
  pairs cost the client nothing and the server a request each), PING,
  SETTINGS and PRIORITY frames, empty DATA frames that do not end a request
  and streams refused over MAX_CONCURRENT_STREAMS are counted; more than
  `FLOOD_BUDGET` of them within `FLOOD_WINDOW_S` ends the connection with
  GOAWAY ENHANCE_YOUR_CALM, and the rest of what it sent is not read. The count knows nothing of
  tokens: a flood is stopped before any of its requests is looked at.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import copy
import sys
import time
from typing import Any

import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import hypercorn.protocol
from h2.connection import ConnectionState
from h2.settings import SettingCodes, Settings
from h2.stream import StreamClosedBy, StreamState
from hypercorn.events import Closed, Event, Updated
from hypercorn.protocol.events import Body, StreamClosed
from hypercorn.protocol.events import Event as StreamEvent
from hypercorn.protocol.h2 import H2Protocol
from hyperframe.frame import DataFrame, GoAwayFrame, HeadersFrame, RstStreamFrame

from cursor_byok.transport.http.h2_goaway import goaway_received
from cursor_byok.transport.http.h2_send import DirectSend
from cursor_byok.transport.http.late_data import DROPPED

FLOOD_BUDGET = 200
"""Cheap frames (RST_STREAM, PING, SETTINGS, PRIORITY) a connection may send
within `FLOOD_WINDOW_S`: far more than a client cancelling turns and
pinging needs, far fewer than a flood sends in a second."""
FLOOD_WINDOW_S = 10.0
LINGER_S = 2.0
"""How long a stream whose response has ended may wait for the client to
end its request side before the server resets it."""
STREAM_WINDOW = 2**20
"""Bytes a client may send on one stream ahead of the server's WINDOW_UPDATE."""
CONNECTION_WINDOW = 4 * 2**20
"""The same for all the streams of a connection together."""

_FLOOD_EVENTS = (
    h2.events.StreamReset,
    h2.events.PingReceived,
    h2.events.RemoteSettingsChanged,
    h2.events.PriorityUpdated,
)


class PatientConnection(h2.connection.H2Connection):
    """h2's server connection, except that GOAWAY, the client's or the
    server's own, does not close it (the streams already opened go on), and
    a stream over MAX_CONCURRENT_STREAMS, or opened after the server's
    GOAWAY, is refused on its own (RST_STREAM REFUSED_STREAM, RFC 9113
    section 5.1.2) rather than ending the connection with every stream on it."""

    refused_streams = 0
    """Streams refused so far: a client that keeps opening them floods."""
    last_taken: int | None = None
    """The last stream the server's GOAWAY promised to process, once sent."""

    def go_away(self) -> None:
        """GOAWAY NO_ERROR naming the last stream taken, the state machine
        left open for the streams up to it."""
        self.last_taken = self.highest_inbound_stream_id
        self._prepare_for_sending([GoAwayFrame(0, last_stream_id=self.last_taken)])

    def _receive_headers_frame(self, frame: HeadersFrame) -> tuple[list[Any], list[Any]]:
        sid = frame.stream_id
        if (
            sid in self.streams
            or sid % 2 == 0
            or sid <= self.highest_inbound_stream_id
            or (
                self.last_taken is None
                and self.open_inbound_streams < self.local_settings.max_concurrent_streams
            )
        ):
            return super()._receive_headers_frame(frame)
        # The header block is decoded all the same: HPACK's table must keep
        # step with the client's for the streams that come after.
        h2.connection._decode_headers(self.decoder, frame.data)
        self.highest_inbound_stream_id = sid
        self.refused_streams += 1
        # Later frames on it are a stream error, as on any stream reset.
        self._closed_streams[sid] = StreamClosedBy.SEND_RST_STREAM
        return [RstStreamFrame(sid, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)], []

    def _handle_data_on_closed_stream(
        self, events: list[Any], exc: h2.exceptions.StreamClosedError, frame: DataFrame
    ) -> tuple[list[Any], list[Any]]:
        DROPPED.frames += 1  # h2 acknowledges it and answers with RST_STREAM
        return super()._handle_data_on_closed_stream(events, exc, frame)

    def _receive_goaway_frame(self, frame: GoAwayFrame) -> tuple[list[Any], list[Any]]:
        return [], [goaway_received(frame)]


class GuardedH2Protocol(DirectSend, H2Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._direct_init()
        # hypercorn closes h2's state machine once a request beyond the limit
        # is taken, which can come in the same read as the last: its check is
        # put out of reach, and `_create_stream` keeps the limit instead.
        self.max_requests = self.config.keep_alive_max_requests
        self.config = copy.copy(self.config)
        self.config.keep_alive_max_requests = sys.maxsize
        values = dict(self.connection.local_settings)
        values[SettingCodes.INITIAL_WINDOW_SIZE] = STREAM_WINDOW
        self.patient = PatientConnection(config=self.connection.config)
        self.connection = self.patient
        self.connection.DEFAULT_MAX_INBOUND_FRAME_SIZE = self.config.h2_max_inbound_frame_size
        self.connection.local_settings = Settings(client=False, initial_values=values)
        self.client_went_away = False
        self.flood: collections.deque[float] = collections.deque(maxlen=FLOOD_BUDGET + 1)
        self._refused_seen = 0
        self._lingering: dict[int, float] = {}
        """Streams whose response has ended, the client's side still open: when to reset each."""
        self._linger_timer: asyncio.TimerHandle | None = None

    async def initiate(
        self, headers: list[tuple[bytes, bytes]] | None = None, settings: bytes | None = None
    ) -> None:
        await super().initiate(headers, settings)
        window = self.connection.inbound_flow_control_window  # the protocol's 64 KiB
        self.connection.increment_flow_control_window(CONNECTION_WINDOW - window)
        await self._flush()
        # The keep-alive timer runs while no stream is open, from the preface on.
        await self.send(Updated(idle=self.idle))

    async def handle(self, event: Event) -> None:
        if isinstance(event, Closed) and not self.closed:
            await self._say_goodbye()
        await super().handle(event)
        if isinstance(event, Closed):
            if self._linger_timer is not None:
                self._linger_timer.cancel()
                self._linger_timer = None
            # The client is gone: the socket is closed now. hypercorn would
            # close it only when its keep-alive timer ran out, holding the
            # connection (and its place among the port's) until then.
            await self.send(Closed())

    async def _say_goodbye(self) -> None:
        """Before a close the server makes (idle, shutting down) or meets (the
        client's end): GOAWAY NO_ERROR naming the last stream taken, unless
        one has ended the connection already. hypercorn closed the socket
        bare, so a request sent at that moment was lost, processed or not
        for all the client could tell; named, the ones after are known
        unprocessed and safe to send again."""
        if self.connection.state_machine.state is ConnectionState.CLOSED:
            return
        with contextlib.suppress(h2.exceptions.ProtocolError):
            self.connection.close_connection(last_stream_id=self.patient.last_taken)
        await self._flush()

    async def _handle_events(self, events: list[h2.events.Event]) -> None:
        others: list[h2.events.Event] = []
        refused = self.patient.refused_streams - self._refused_seen
        self._refused_seen += refused
        if any(self._flooded() for _ in range(refused)):
            await self._calm_down()
            return
        # A priority inside HEADERS comes as an event of its own: it is part
        # of opening the stream, not a PRIORITY frame.
        opening = {
            id(event.priority_updated)
            for event in events
            if isinstance(event, h2.events.RequestReceived) and event.priority_updated
        }
        for event in events:
            if id(event) not in opening and self._floods(event) and self._flooded():
                await super()._handle_events(others)
                await self._calm_down()
                return
            if isinstance(event, h2.events.ConnectionTerminated):
                self.client_went_away = True
                continue
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
        await self._close_if_done()

    async def _create_stream(self, request: h2.events.RequestReceived) -> None:
        """The connection's last request taken: GOAWAY, so the client opens
        the next stream elsewhere while this one runs on. (Streams that came
        in the same read are named by the GOAWAY and served too.)"""
        await super()._create_stream(request)
        last = self.keep_alive_requests >= self.max_requests
        if last and self.patient.last_taken is None:
            self.patient.go_away()

    async def stream_send(self, event: StreamEvent) -> None:
        await super().stream_send(event)
        if isinstance(event, StreamClosed):
            self._linger(event.stream_id)
            await self._close_if_done()

    def _linger(self, stream_id: int) -> None:
        """A served stream whose response has ended while the client's side is
        still open: reset it `LINGER_S` from now, unless the client ends it."""
        if self._half_closed_local(stream_id):
            loop = asyncio.get_running_loop()
            self._lingering[stream_id] = loop.time() + LINGER_S
            if self._linger_timer is None:
                self._linger_timer = loop.call_at(loop.time() + LINGER_S, self._linger_due)

    def _half_closed_local(self, stream_id: int) -> bool:
        stream = self.connection.streams.get(stream_id)
        return stream is not None and stream.state_machine.state is StreamState.HALF_CLOSED_LOCAL

    def _linger_due(self) -> None:
        self._linger_timer = None
        if self.closed:
            return
        resetting = self._reset_lingering()
        try:
            self.task_group.spawn(lambda: resetting)
        except RuntimeError:  # the connection's tasks have ended: nothing is left to reset
            resetting.close()
            self.closed = True

    async def _reset_lingering(self) -> None:
        """The streams whose time is up reset (one write for all), the timer
        re-armed for the next."""
        now = asyncio.get_running_loop().time()
        for stream_id, due in list(self._lingering.items()):
            if due > now:
                break  # in order of their ends
            del self._lingering[stream_id]
            if self._half_closed_local(stream_id):
                with contextlib.suppress(h2.exceptions.ProtocolError):
                    self.connection.reset_stream(stream_id, h2.errors.ErrorCodes.NO_ERROR)
        if self.closed:
            return
        await self._flush()
        if self._lingering and self._linger_timer is None:
            first = next(iter(self._lingering.values()))
            self._linger_timer = asyncio.get_running_loop().call_at(first, self._linger_due)

    @staticmethod
    def _floods(event: h2.events.Event) -> bool:
        """Whether `event` is one of the frames a flood is made of."""
        if isinstance(event, h2.events.StreamReset):
            return bool(event.remote_reset)  # not the server's own reset
        if isinstance(event, h2.events.DataReceived):  # empty, and not ending the request
            return not event.flow_controlled_length and event.stream_ended is None
        return isinstance(event, _FLOOD_EVENTS)

    def _flooded(self) -> bool:
        """One more flood frame counted: whether the budget is spent."""
        now = time.monotonic()
        self.flood.append(now)
        return len(self.flood) > FLOOD_BUDGET and now - self.flood[0] < FLOOD_WINDOW_S

    async def _calm_down(self) -> None:
        """GOAWAY ENHANCE_YOUR_CALM, then the connection closed."""
        with contextlib.suppress(h2.exceptions.ProtocolError):
            self.connection.close_connection(h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
        await self._flush()
        await self.send(Closed())

    async def _close_if_done(self) -> None:
        """After either side's GOAWAY, the connection ends with its last stream."""
        going = self.client_went_away or self.patient.last_taken is not None
        if going and not self.closed and self.idle:
            await self._say_goodbye()
            await self.send(Closed())


def install() -> None:
    """hypercorn's connections speak HTTP/2 through the guarded protocol."""
    setattr(hypercorn.protocol, "H2Protocol", GuardedH2Protocol)  # noqa: B010 (not exported)
