"""A raw HTTP/2 client for the end-to-end tests: the `h2` library on a plain
socket, driven frame by frame, with its own Connect envelope framing (1 flag
byte, a 4-byte big-endian length, the payload), written here and not taken
from the server, so a misreading both share cannot pass. Frames a polite
client's state machine would refuse to send (DATA on a stream it has closed,
anything after its own GOAWAY) are written as raw frames with `hyperframe`.
The server's GOAWAY leaves the streams it names open, as nghttp2's and
Node's clients leave them (the project's client's `PatientClient`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import h2.config
import h2.events
import h2.exceptions
import hyperframe.frame

from cursor_byok.client.run_client import PatientClient
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

RUN = "/agent.v1.AgentService/Run"
END_FLAG = 0x02


def envelope(message: pb.AgentClientMessage) -> bytes:
    payload = message.SerializeToString()
    return struct.pack(">BI", 0, len(payload)) + payload


@dataclass
class RawStream:
    stream_id: int
    body: bytearray = field(default_factory=bytearray)
    messages: list[pb.AgentServerMessage] = field(default_factory=list)
    end: dict[str, object] | None = None
    """The end-of-stream envelope's JSON, once it came."""
    status: int = 0
    closed: bool = False
    """The server ended its side (END_STREAM) or reset the stream."""
    reset_code: int | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def take(self, data: bytes) -> None:
        self.body += data
        while len(self.body) >= 5:
            flags, length = struct.unpack(">BI", self.body[:5])
            if len(self.body) < 5 + length:
                return
            payload = bytes(self.body[5 : 5 + length])
            del self.body[: 5 + length]
            if flags & END_FLAG:
                self.end = json.loads(payload or b"{}")
            else:
                self.messages.append(pb.AgentServerMessage.FromString(payload))

    def text(self) -> str:
        return "".join(
            m.interaction_update.text_delta.text
            for m in self.messages
            if m.WhichOneof("message") == "interaction_update"
            and m.interaction_update.WhichOneof("message") == "text_delta"
        )

    def kinds(self) -> list[str]:
        out = []
        for m in self.messages:
            top = m.WhichOneof("message")
            if top == "interaction_update":
                top = m.interaction_update.WhichOneof("message")
            out.append(str(top))
        return out


class RawH2:
    """One HTTP/2 connection; the server's frames are read in the background."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.h2 = PatientClient(h2.config.H2Configuration(client_side=True))
        self.streams: dict[int, RawStream] = {}
        self.goaway: h2.events.ConnectionTerminated | None = None
        self.goaways: list[h2.events.ConnectionTerminated] = []
        self.went_away = asyncio.Event()
        self.greeted = False
        self.error: h2.exceptions.ProtocolError | None = None
        """What the client's own state machine refused of the server's frames."""
        """The server's SETTINGS came: it accepted the connection and speaks HTTP/2."""
        self.eof = asyncio.Event()
        self.window = asyncio.Event()
        self.hold = False
        """Give nothing back, to any window, until `release` (a client whose
        connection window runs out)."""
        self.held: list[tuple[int, int]] = []
        self.slow: set[int] = set()
        """Streams whose bytes are given back only on `drain` (a slow reader)."""
        self.unread: dict[int, int] = {}
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, host: str, port: int, local: str | None = None) -> RawH2:
        where = {"local_addr": (local, 0)} if local else {}
        reader, writer = await asyncio.open_connection(host, port, **where)  # type: ignore[arg-type]
        client = cls(reader, writer)
        client.h2.initiate_connection()
        client.flush()
        client._task = asyncio.get_running_loop().create_task(client._read())
        return client

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data and not self.writer.is_closing():
            self.writer.write(data)

    def raw(self, frame: hyperframe.frame.Frame) -> None:
        """A frame written as is, past the client's own state machine (DATA
        still counted against the connection's window, as the server counts it)."""
        if isinstance(frame, hyperframe.frame.DataFrame):
            self.h2.outbound_flow_control_window -= frame.flow_controlled_length
        self.writer.write(frame.serialize())

    def open(
        self,
        token: str | None = None,
        end_stream: bool = False,
        path: str = RUN,
        priority_weight: int | None = None,
        extra: Sequence[tuple[str, str]] = (),
        flush: bool = True,
    ) -> RawStream:
        """A new stream's HEADERS (with `flush` False, left for the next
        write, so that several go in one)."""
        stream_id = self.h2.get_next_available_stream_id()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":authority", "127.0.0.1"),
            (":path", path),
            ("content-type", "application/connect+proto"),
            ("connect-protocol-version", "1"),
        ]
        if token:
            headers.append(("authorization", f"Bearer {token}"))
        headers.extend(extra)
        stream = self.streams[stream_id] = RawStream(stream_id)
        self.h2.send_headers(
            stream_id, headers, end_stream=end_stream, priority_weight=priority_weight
        )
        if flush:
            self.flush()
        return stream

    async def send(
        self, stream: RawStream, message: pb.AgentClientMessage | bytes, end: bool = False
    ) -> None:
        """An envelope (or raw bytes) on the request side, within the windows."""
        data = message if isinstance(message, bytes) else envelope(message)
        sid = stream.stream_id
        while data:
            room = min(self.h2.local_flow_control_window(sid), self.h2.max_outbound_frame_size)
            if room <= 0:
                self.window.clear()
                await asyncio.wait_for(self.window.wait(), 10)
                continue
            self.h2.send_data(sid, data[:room])
            data = data[room:]
            self.flush()
            await self.writer.drain()
        if end:
            self.h2.end_stream(sid)
            self.flush()

    def drain(self, stream: RawStream) -> None:
        """A slow reader gets round to a stream: its window back."""
        unread = self.unread.pop(stream.stream_id, 0)
        if unread:
            with contextlib.suppress(h2.exceptions.StreamClosedError):
                self.h2.increment_flow_control_window(unread, stream_id=stream.stream_id)
            self.flush()

    def release(self) -> None:
        """Every byte held given back, to the streams and the connection."""
        self.hold = False
        for length, sid in self.held:
            with contextlib.suppress(h2.exceptions.StreamClosedError):
                self.h2.acknowledge_received_data(length, sid)
        self.held.clear()
        self.flush()

    async def until_end(self, stream: RawStream, within: float = 10) -> dict[str, object]:
        async def ended() -> None:
            while stream.end is None:
                if stream.closed or self.eof.is_set():
                    raise AssertionError(
                        f"stream {stream.stream_id} closed without its end "
                        f"(reset {stream.reset_code}, connection gone: {self.eof.is_set()}, "
                        f"GOAWAY {self.goaway}, error {self.error!r}, "
                        f"after {stream.kinds()[-3:]})"
                    )
                stream.changed.clear()
                await stream.changed.wait()

        await asyncio.wait_for(ended(), within)
        assert stream.end is not None
        return stream.end

    async def until(
        self, stream: RawStream, what: str, within: float = 10
    ) -> pb.AgentServerMessage:
        async def seen() -> pb.AgentServerMessage:
            while True:
                for kind, message in zip(stream.kinds(), stream.messages, strict=True):
                    if kind == what:
                        return message
                if stream.closed or self.eof.is_set():
                    raise AssertionError(f"stream {stream.stream_id} closed before {what}")
                stream.changed.clear()
                await stream.changed.wait()

        return await asyncio.wait_for(seen(), within)

    async def _read(self) -> None:
        try:
            while data := await self.reader.read(65536):
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError as error:
                    self.error = error
                    break
                for event in events:
                    self._handle(event)
                self.flush()
        except ConnectionError:
            pass
        finally:
            self.eof.set()
            self.window.set()
            for stream in self.streams.values():
                stream.changed.set()

    def _handle(self, event: h2.events.Event) -> None:
        sid = getattr(event, "stream_id", None)
        stream = self.streams.get(sid) if sid else None
        if isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = event
            self.goaways.append(event)
            self.went_away.set()
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
            self.greeted |= isinstance(event, h2.events.RemoteSettingsChanged)
            self.window.set()
        if stream is None:
            return
        if isinstance(event, h2.events.ResponseReceived):
            stream.status = int(dict(event.headers or [])[b":status"])
        elif isinstance(event, h2.events.DataReceived):
            length = event.flow_controlled_length or 0
            if length:
                if self.hold:
                    self.held.append((length, stream.stream_id))
                elif sid in self.slow:
                    self.h2.increment_flow_control_window(length)  # the connection's only
                    self.unread[stream.stream_id] = self.unread.get(stream.stream_id, 0) + length
                else:
                    self.h2.acknowledge_received_data(length, stream.stream_id)
            stream.take(event.data or b"")
        elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
            stream.closed = True
            if isinstance(event, h2.events.StreamReset):
                stream.reset_code = int(event.error_code or 0)
        stream.changed.set()

    async def closed_within(self, seconds: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.eof.wait(), seconds)
        return self.eof.is_set()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
