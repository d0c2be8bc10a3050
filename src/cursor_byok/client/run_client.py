"""A Cursor-side `AgentService/Run` client over HTTP/2, written from the
protocol notes: one connection (h2c with prior knowledge, or TLS with ALPN
`h2`) carrying full-duplex Run streams. The end-to-end tests and the server
bench speak through it; `paused` streams stop reading, as a stalled client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
from google.protobuf import json_format
from hyperframe.frame import GoAwayFrame

from cursor_byok.client.client import CUT_OFF, End, Stream
from cursor_byok.transport.connect.framing import EnvelopeDecoder, encode_envelope
from cursor_byok.transport.http.h2_goaway import goaway_received
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

RUN = "/agent.v1.AgentService/Run"
GONE_AWAY = "the server went away before taking the stream; open it on a new connection"
REFUSED = "the server refused the stream before taking it (REFUSED_STREAM); open it again"
RUN_TYPES = {
    "proto": "application/connect+proto",
    "json": "application/connect+json",
    "grpc": "application/grpc+proto",
    "grpc-web": "application/grpc-web+proto",
}


@dataclass
class RunStream(Stream):
    """One Run call: `send` client messages, read server items (an `End` last)."""

    connection: H2Client | None = None
    stream_id: int = 0
    codec: str = "proto"
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    paused: bool = False
    unread: int = 0  # bytes received while paused, not yet given back as window
    decoder: EnvelopeDecoder = field(default_factory=EnvelopeDecoder)
    ended: bool = False
    refusal: bytes = b""
    responded: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the response's headers (or the stream's end) have come."""
    untaken: bool = False
    """Ended before the server took it (its GOAWAY, REFUSED_STREAM): safe to send again."""

    def not_taken(self, why: str) -> None:
        """Ended before the server took it: `unavailable`, safe to send again."""
        self.untaken = True
        self.finish(End({"code": "unavailable", "message": why}, b""))

    async def send(self, message: pb.AgentClientMessage) -> None:
        assert self.connection is not None
        if self.codec == "json":
            data = json.dumps(json_format.MessageToDict(message)).encode()
        else:
            data = message.SerializeToString()
        await self.connection.send_data(self.stream_id, encode_envelope(data))

    def end_request(self) -> None:
        """Half-close the request stream (END_STREAM): nothing more will be
        sent, so once the response has ended too the stream is closed and its
        place among the connection's streams free."""
        assert self.connection is not None
        with contextlib.suppress(h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self.connection.h2.end_stream(self.stream_id)
            self.connection.flush()

    def reset(self) -> None:
        """Drop the stream as a client whose connection broke would (RST_STREAM)."""
        assert self.connection is not None
        self.connection.reset(self.stream_id)

    def decode(self, payload: bytes) -> pb.AgentServerMessage:
        if self.codec == "json":
            return json_format.Parse(payload.decode(), pb.AgentServerMessage())
        return pb.AgentServerMessage.FromString(payload)

    def take(self, data: bytes) -> None:
        if self.status != 200:  # a refusal: a unary Connect error body, not envelopes
            self.refusal += data
            return
        for envelope in self.decoder.feed(data):
            payload = envelope.message()
            if envelope.is_end_stream:
                error = json.loads(payload or b"{}").get("error")
                self.finish(End(error, payload))
            elif envelope.is_trailers:
                ok = b"grpc-status: 0" in payload
                self.finish(End(None if ok else {"trailers": payload.decode()}, b""))
            else:
                self.items.put_nowait(self.decode(payload))

    def finish(self, end: End) -> None:
        self.responded.set()
        if not self.ended:
            self.ended = True
            self.items.put_nowait(end)
            if self.connection is not None:
                self.connection.window_open.set()  # a send waiting for room gives up


class PatientClient(h2.connection.H2Connection):
    """h2's client side, except that the server's GOAWAY leaves the streams
    it names open to run to completion (RFC 9113 section 6.8), as nghttp2's
    and Node's clients do: `h2` alone closes the whole connection on it, and
    a turn in flight could no longer send its tool results."""

    def _receive_goaway_frame(self, frame: GoAwayFrame) -> tuple[list[Any], list[Any]]:
        return [], [goaway_received(frame)]


class H2Client:
    """One HTTP/2 connection; its reader task dispatches frames to streams."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.h2 = PatientClient(h2.config.H2Configuration(client_side=True))
        self.streams: dict[int, RunStream] = {}
        self.window_open = asyncio.Event()
        self.authority = ""
        self.task: asyncio.Task[None] | None = None
        self.closed = False  # the server said goodbye (GOAWAY) or the connection dropped

    @classmethod
    async def connect(cls, base_url: str, ssl_context: ssl.SSLContext | None = None) -> H2Client:
        url = urllib.parse.urlsplit(base_url)
        if url.scheme == "https" and ssl_context is None:
            ssl_context = ssl.create_default_context()
        if ssl_context is not None:
            ssl_context.set_alpn_protocols(["h2"])
        reader, writer = await asyncio.open_connection(url.hostname, url.port, ssl=ssl_context)
        if ssl_context is not None:
            chosen = writer.get_extra_info("ssl_object").selected_alpn_protocol()
            if chosen != "h2":
                writer.close()
                raise ConnectionError(f"the server chose {chosen!r} over TLS, not h2")
        return cls.over(reader, writer, url.netloc)

    @classmethod
    def over(
        cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, authority: str
    ) -> H2Client:
        """HTTP/2 on a connection already open (and, through a proxy's
        tunnel, already TLS with ALPN h2) to `authority`."""
        client = cls(reader, writer)
        client.authority = authority
        client.h2.initiate_connection()
        client.flush()
        client.task = asyncio.create_task(client.read())
        return client

    def flush(self) -> None:
        self.writer.write(self.h2.data_to_send())

    async def open(
        self, codec: str = "proto", token: str | None = None, paused: bool = False
    ) -> RunStream:
        stream_id = self.h2.get_next_available_stream_id()
        headers = [
            (":method", "POST"),
            (":scheme", "https" if self.writer.get_extra_info("ssl_object") else "http"),
            (":authority", self.authority),
            (":path", RUN),
            ("content-type", RUN_TYPES[codec]),
            ("connect-protocol-version", "1"),
            ("te", "trailers"),
        ]
        if token:
            headers.append(("authorization", f"Bearer {token}"))
        stream = RunStream(connection=self, stream_id=stream_id, codec=codec, paused=paused)
        if self.closed:  # after the server's GOAWAY, or the connection's end: never sent
            stream.not_taken(GONE_AWAY)
            return stream
        self.streams[stream_id] = stream
        self.h2.send_headers(stream_id, headers)
        self.flush()
        return stream

    async def send_data(self, stream_id: int, data: bytes) -> None:
        while data:
            stream = self.streams.get(stream_id)
            if stream is None or stream.ended:
                raise ConnectionError("the stream has ended; nothing more can be sent")
            window = min(self.h2.local_flow_control_window(stream_id), len(data))
            if window <= 0:
                self.window_open.clear()
                await self.window_open.wait()
                continue
            size = min(window, self.h2.max_outbound_frame_size)
            self.h2.send_data(stream_id, data[:size])
            data = data[size:]
            self.flush()
        await self.writer.drain()

    def unpause(self, stream: RunStream) -> None:
        """Read again: give the server back the window a paused stream held."""
        stream.paused = False
        if stream.unread:
            self.h2.acknowledge_received_data(stream.unread, stream.stream_id)
            stream.unread = 0
            self.flush()

    def reset(self, stream_id: int) -> None:
        with contextlib.suppress(h2.exceptions.StreamClosedError):
            self.h2.reset_stream(stream_id)
            self.flush()
        stream = self.streams.pop(stream_id, None)
        if stream is not None:
            stream.finish(End({"code": "canceled", "message": "reset by the client"}, b""))

    async def read(self) -> None:
        try:
            while data := await self.reader.read(65536):
                for event in self.h2.receive_data(data):
                    self.handle(event)
                self.flush()
        except (ConnectionError, ssl.SSLError, h2.exceptions.ProtocolError):
            pass  # the connection is gone: every open stream was cut off
        self.closed = True
        for stream in self.streams.values():
            stream.finish(End({"code": "unknown", "message": CUT_OFF}, b""))

    def handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.WindowUpdated | h2.events.RemoteSettingsChanged):
            self.window_open.set()
            return
        if isinstance(event, h2.events.ConnectionTerminated):
            self.closed = True  # streams in flight still finish; no new ones here
            last = event.last_stream_id or 0
            for stream_id in [sid for sid in self.streams if sid > last]:
                self.streams.pop(stream_id).not_taken(GONE_AWAY)  # sent again elsewhere
            return
        stream = self.streams.get(getattr(event, "stream_id", 0) or 0)
        if stream is None:
            return
        match event:
            case h2.events.ResponseReceived(headers=headers):
                stream.headers = {bytes(k).decode(): bytes(v).decode() for k, v in headers or []}
                stream.status = int(stream.headers.get(":status", "0"))
                stream.content_type = stream.headers.get("content-type", "")
                stream.responded.set()
            case h2.events.DataReceived(data=data, flow_controlled_length=length):
                if stream.paused:
                    stream.unread += length
                else:
                    self.h2.acknowledge_received_data(length, event.stream_id)
                stream.take(data or b"")
            case h2.events.TrailersReceived(headers=headers):
                trailers = {bytes(k).decode(): bytes(v).decode() for k, v in headers or []}
                ok = trailers.get("grpc-status") == "0"
                stream.finish(End(None if ok else {"trailers": trailers}, b""))
            case h2.events.StreamReset(error_code=h2.errors.ErrorCodes.REFUSED_STREAM):
                stream.not_taken(REFUSED)
            case h2.events.StreamReset(error_code=code):
                stream.finish(End({"code": "unknown", "message": f"stream reset ({code})"}, b""))
            case h2.events.StreamEnded() if "grpc-status" in stream.headers:
                # Trailers-only: a gRPC call refused before its stream began.
                ok = stream.headers["grpc-status"] == "0"
                stream.finish(End(None if ok else {"trailers": stream.headers}, b""))
            case h2.events.StreamEnded() if stream.status != 200:
                error = json.loads(stream.refusal or b"{}") or {"code": "unknown"}
                stream.finish(End({**error, "http_status": stream.status}, stream.refusal))
            case h2.events.StreamEnded():
                stream.finish(End({"code": "unknown", "message": CUT_OFF}, b""))

    async def close(self) -> None:
        with contextlib.suppress(h2.exceptions.ProtocolError):
            self.h2.close_connection()
            self.flush()
        self.writer.close()
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await self.writer.wait_closed()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
