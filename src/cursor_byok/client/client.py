"""A Cursor-side client written from the protocol notes: it opens RunSSE,
sends BidiAppends in any of the three codecs and decodes the stream. The
demo's editor, the end-to-end tests and the benches all speak through it.

Its HTTP is aiohttp's client, the package's one HTTP client library, over
HTTP/1.1. A RunSSE stream holds its connection while it is read, and appends
go out meanwhile: the pool has no cap, so a request never waits for another
one's connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from google.protobuf import json_format
from google.protobuf.message import Message

from cursor_byok.transport.connect.framing import EnvelopeDecoder, encode_envelope
from cursor_byok.transport.dialect.ids import is_valid_id
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2

CODECS = ("proto", "json", "grpc-web")
RUN_SSE = "/agent.v1.AgentService/RunSSE"
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
CUT_OFF = "the stream ended without an end-of-stream message"
LARGE_BODY = 1 << 20
"""Bodies above this go to aiohttp as a file, written in pieces: as one
`bytes` they would be written at once, and aiohttp warns of that."""

_STREAM_TYPES = {
    "proto": "application/connect+proto",
    "json": "application/connect+json",
    "grpc-web": "application/grpc-web+proto",
}
_APPEND_TYPES = {
    "proto": "application/proto",
    "json": "application/json",
    "grpc-web": "application/grpc-web+proto",
}


class ClientError(Exception):
    """The server refused a request (not a Connect error at the end of a stream)."""


TRANSPORT_ERRORS = (aiohttp.ClientError, TimeoutError)
"""What a request raises when the network, not the server, failed it."""


@dataclass(frozen=True, slots=True)
class HTTPReply:
    """A whole HTTP answer, read to its end."""

    status: int
    headers: Mapping[str, str]
    """Names lower-cased."""
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True, slots=True)
class StreamingReply:
    """An HTTP answer whose body is read as it arrives."""

    status: int
    headers: Mapping[str, str]
    """Names lower-cased."""
    chunks: AsyncIterator[bytes]


@dataclass
class End:
    """How the stream ended: the Connect end-of-stream error (None on
    success) or a gRPC-Web trailer block, and the raw bytes."""

    error: dict[str, object] | None
    raw: bytes


Item = pb.AgentServerMessage | End


@dataclass
class Stream:
    items: asyncio.Queue[Item] = field(default_factory=asyncio.Queue)
    received: list[Item] = field(default_factory=list)
    content_type: str = ""
    task: asyncio.Task[None] | None = None

    def text(self) -> str:
        """The text deltas received so far, joined."""
        return "".join(
            item.interaction_update.text_delta.text
            for item in self.received
            if not isinstance(item, End) and kind(item) == "text_delta"
        )

    async def next(self, within: float = 10.0) -> Item:
        item = await asyncio.wait_for(self.items.get(), within)
        self.received.append(item)
        return item

    async def until(self, predicate: Callable[[Item], bool], within: float = 10.0) -> Item:
        """Read until an item satisfies `predicate` (in `within` seconds); return it."""
        deadline = asyncio.get_running_loop().time() + within
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"nothing matched within {within}s")
            item = await self.next(left)
            if predicate(item):
                return item
            if isinstance(item, End):
                raise AssertionError(f"stream ended before the expected item: {item}")


def kind(item: Item) -> str:
    """A short name of what a server message is, e.g. 'text_delta', 'exec', 'end'."""
    if isinstance(item, End):
        return "end"
    top = item.WhichOneof("message")
    if top == "interaction_update":
        return str(item.interaction_update.WhichOneof("message"))
    names = {"exec_server_message": "exec", "conversation_checkpoint_update": "checkpoint"}
    return names.get(str(top), str(top))


class CursorClient:
    """One server's client; `close` it when done. `proxy` (an http:// URL)
    carries every request through that proxy, and `tls` is the trust for
    https:// servers (default: the system's)."""

    def __init__(
        self,
        base_url: str,
        codec: str = "proto",
        token: str | None = None,
        timeout: float = 30.0,
        *,
        proxy: str | None = None,
        tls: ssl.SSLContext | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """`headers` go on every request (a client's type and version)."""
        if codec not in CODECS:
            raise ValueError(f"codec must be one of {CODECS}, not {codec!r}")
        self.codec = codec
        self.base_url = base_url.rstrip("/")
        self._headers = {"authorization": f"Bearer {token}"} if token else {}
        self._headers.update(headers or {})
        self._timeout = timeout
        self._proxy = proxy
        self._tls: ssl.SSLContext | bool = tls if tls is not None else True
        self._session: aiohttp.ClientSession | None = None

    def _http(self) -> aiohttp.ClientSession:
        """The session, made on first use inside the event loop that uses it."""
        if self._session is None or self._session.closed:
            # A timeout per step, as a stream needs: connecting, and the wait
            # for each chunk (heartbeats come every few seconds); none overall.
            timeout = aiohttp.ClientTimeout(
                total=None, connect=self._timeout, sock_read=self._timeout
            )
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0),  # no cap: nothing queues
                timeout=timeout,
                headers=self._headers,
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: Mapping[str, str] | None = None
    ) -> HTTPReply:
        """Any request to the server; the answer read whole, whatever its status."""
        async with self._http().request(
            method,
            self.base_url + path,
            data=_payload(body) if body else None,
            headers=dict(headers or {}),
            proxy=self._proxy,
            ssl=self._tls,
            allow_redirects=False,
        ) as got:
            return HTTPReply(got.status, _lower(got.headers), await got.read())

    async def post(
        self, path: str, body: bytes = b"", headers: Mapping[str, str] | None = None
    ) -> HTTPReply:
        return await self.request("POST", path, body, headers)

    async def get(self, path: str, headers: Mapping[str, str] | None = None) -> HTTPReply:
        return await self.request("GET", path, b"", headers)

    @contextlib.asynccontextmanager
    async def post_streaming(
        self, path: str, body: bytes, headers: Mapping[str, str]
    ) -> AsyncIterator[StreamingReply]:
        """A POST whose answer is read as it arrives; leaving the block
        before its end closes the connection (the server sees the client go)."""
        async with self._http().post(
            self.base_url + path,
            data=_payload(body),
            headers=dict(headers),
            proxy=self._proxy,
            ssl=self._tls,
            allow_redirects=False,
        ) as got:
            yield StreamingReply(got.status, _lower(got.headers), got.content.iter_any())

    def _encode(self, message: Message) -> bytes:
        if self.codec == "json":
            return json.dumps(json_format.MessageToDict(message)).encode()
        return message.SerializeToString()

    def _decode(self, payload: bytes) -> pb.AgentServerMessage:
        if self.codec == "json":
            return json_format.Parse(payload.decode(), pb.AgentServerMessage())
        return pb.AgentServerMessage.FromString(payload)

    async def open(self, request_id: str) -> Stream:
        """Open RunSSE; items arrive on the returned stream, an `End` last."""
        stream = Stream()
        body = encode_envelope(self._encode(bidi_pb2.BidiRequestId(request_id=request_id)))
        opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        headers = {"content-type": _STREAM_TYPES[self.codec], "x-cursor-streaming": "true"}

        async def read() -> None:
            try:
                async with self.post_streaming(RUN_SSE, body, headers) as got:
                    stream.content_type = got.headers.get("content-type", "")
                    if got.status != 200:
                        text = b"".join([chunk async for chunk in got.chunks])[:300]
                        raise ClientError(f"RunSSE answered HTTP {got.status}: {text!r}")
                    opened.set_result(None)
                    await self._read(got.chunks, stream)
            except (ClientError, *TRANSPORT_ERRORS) as error:
                if not opened.done():
                    opened.set_exception(error)
                else:
                    stream.items.put_nowait(End({"code": "unknown", "message": repr(error)}, b""))

        stream.task = asyncio.create_task(read())
        await asyncio.wait_for(asyncio.shield(opened), 10)
        return stream

    async def _read(self, chunks: AsyncIterator[bytes], stream: Stream) -> None:
        decoder = EnvelopeDecoder()
        async for chunk in chunks:
            for envelope in decoder.feed(chunk):
                payload = envelope.message()
                if envelope.is_end_stream or envelope.is_trailers:
                    error = None
                    if envelope.is_end_stream:
                        error = json.loads(payload or b"{}").get("error")
                    elif b"grpc-status: 0" not in payload:
                        error = {"trailers": payload.decode()}
                    stream.items.put_nowait(End(error, payload))
                    return
                stream.items.put_nowait(self._decode(payload))
        stream.items.put_nowait(End({"code": "unknown", "message": CUT_OFF}, b""))

    async def append_raw(self, request_id: str, seqno: int, data: bytes) -> HTTPReply:
        """One BidiAppend carrying `data`; the answer whatever its status."""
        request = bidi_pb2.BidiAppendRequest(
            data=data.hex(),
            request_id=bidi_pb2.BidiRequestId(request_id=request_id),
            append_seqno=seqno,
        )
        body = self._encode(request)
        if self.codec == "grpc-web":
            body = encode_envelope(body)
        headers = {"content-type": _APPEND_TYPES[self.codec]}
        if is_valid_id(request_id):  # the official client names it in a header too
            headers["x-request-id"] = request_id
        return await self.post(BIDI_APPEND, body, headers)

    async def append(
        self, request_id: str, seqno: int, message: pb.AgentClientMessage
    ) -> HTTPReply:
        """One BidiAppend of `message`; any answer but 200 raises `ClientError`."""
        response = await self.append_raw(request_id, seqno, message.SerializeToString())
        if response.status != 200:
            raise ClientError(f"BidiAppend answered HTTP {response.status}: {response.text}")
        return response


def _payload(body: bytes) -> bytes | io.BytesIO:
    return io.BytesIO(body) if len(body) > LARGE_BODY else body


def _lower(headers: Mapping[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


@contextlib.asynccontextmanager
async def client(base_url: str, codec: str = "proto") -> AsyncIterator[CursorClient]:
    made = CursorClient(base_url, codec)
    try:
        yield made
    finally:
        await made.close()


# -- what a client sends -------------------------------------------------------------


def workspace_context(folder: str) -> pb.RequestContext:
    """What an interactive client sends with each message (where it works), so
    the server has no reason to ask for it. `run_request` sends an empty one
    unless given this."""
    return pb.RequestContext(
        env=pb.RequestContextEnv(
            workspace_paths=[folder], process_working_directory=folder, shell="bash"
        )
    )


def run_request(
    text: str,
    conversation_id: str = "conv-1",
    model: str = "test-model",
    message_id: str = "m1",
    context: pb.RequestContext | None = None,
) -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        run_request=pb.AgentRunRequest(
            conversation_id=conversation_id,
            action=pb.ConversationAction(
                user_message_action=pb.UserMessageAction(
                    user_message=pb.UserMessage(text=text, message_id=message_id),
                    request_context=context if context is not None else pb.RequestContext(),
                )
            ),
            requested_model=pb.RequestedModel(model_id=model),
        )
    )


def exec_reply(request: pb.ExecServerMessage, **result: object) -> pb.AgentClientMessage:
    message = pb.ExecClientMessage(id=request.id, exec_id=request.exec_id, **result)  # type: ignore[arg-type]
    return pb.AgentClientMessage(exec_client_message=message)


def kv_reply(request: pb.KvServerMessage) -> pb.AgentClientMessage:
    """The answer to the server's KV request, as Cursor's clients give it
    (the server ends a turn's stream once they are answered, or after a
    bound). This client keeps no blobs: a `get_blob` is answered empty."""
    reply = pb.KvClientMessage(id=request.id)
    if request.WhichOneof("message") == "get_blob_args":
        reply.get_blob_result.SetInParent()
    else:
        reply.set_blob_result.SetInParent()
    return pb.AgentClientMessage(kv_client_message=reply)


def stream_close(number: int) -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        exec_client_control_message=pb.ExecClientControlMessage(
            stream_close=pb.ExecClientStreamClose(id=number)
        )
    )


def cancel(reason: str = "stop") -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        conversation_action=pb.ConversationAction(cancel_action=pb.CancelAction(reason=reason))
    )
