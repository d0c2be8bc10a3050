"""The Connect server: a plain ASGI app for Cursor's agent RPCs (and the dashboard's `/ui`).

Cursor speaks a tolerant dialect of Connect (RunSSE answers `text/event-stream` with binary
envelopes; unary bodies may or may not be enveloped; appends that are late or undecodable must
still get 200; three codecs; gzip). A strict Connect runtime would reject parts of that, so the
framing lives in `framing`, `codec` and `errors` (the Connect primitives the whole of transport
may use), the stream writer in `stream_writer`, and this module routes over bare ASGI.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from google.protobuf.message import Message

from cursor_byok.runtime.observe import Metrics
from cursor_byok.store.base import User, Users
from cursor_byok.store.owners import scoped
from cursor_byok.transport.connect.codec import (
    Codec,
    CodecError,
    ContentType,
    decode_message,
    encode_message,
    parse_content_type,
)
from cursor_byok.transport.connect.errors import (
    Code,
    WireError,
    grpc_web_trailers,
    retryable,
    unary_error_body,
)
from cursor_byok.transport.connect.framing import encode_envelope, encode_trailers_envelope
from cursor_byok.transport.connect.request_body import (
    RequestError,
    one_message,
    read_body,
    unwrap,
)
from cursor_byok.transport.connect.reservation import Reservation
from cursor_byok.transport.dialect.ids import invalid_id, is_valid_id
from cursor_byok.transport.http import late_data
from cursor_byok.transport.http.append_body import read_append
from cursor_byok.transport.http.aux_rpcs import AuxRpcs, ModelEntry
from cursor_byok.transport.http.callers import Authenticator
from cursor_byok.transport.http.dashboard.app import Dashboard, is_dashboard
from cursor_byok.transport.http.health import DatabaseReachable, reply_health
from cursor_byok.transport.http.run_stream import (
    RUN,
    Protocol,
    RunHandler,
    grpc_trailers,
    run_framing,
)
from cursor_byok.transport.http.stream_writer import (
    Receive,
    Send,
    StreamWriter,
    end_frame,
    stream_content_type,
    wait_disconnect,
)
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.sessions.hub import SessionHub
from cursor_byok.transport.sessions.memory_budget import OverBudget
from cursor_byok.transport.sessions.session import Session

log = logging.getLogger(__name__)

Scope = Mapping[str, Any]

RUN_SSE = "/agent.v1.AgentService/RunSSE"
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
HEARTBEAT_S = 5.0
BODY_TIMEOUT_S = 30.0
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_APPEND_BYTES = 32 * 1024 * 1024
"""An append may carry a whole tool result (the official client sends a multi-MiB one in one
append, hex-encoded: twice its size), so appends get their own, larger limit; the bytes being
read are charged to the memory budget like those buffered."""


class CursorServer:
    """The ASGI application."""

    def __init__(
        self,
        hub: SessionHub,
        models: Callable[[], Iterable[ModelEntry]] = list,
        default_model: Callable[[], str | None] = lambda: None,
        max_body_bytes: int = MAX_BODY_BYTES,
        access_token: str | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        on_startup: Callable[[], Awaitable[None]] | None = None,
        on_shutdown: Callable[[], Awaitable[None]] | None = None,
        metrics: Metrics | None = None,
        http2: bool = True,
        host_allowed: Callable[[str | None], bool] | None = None,
        metrics_public: bool = False,
        body_timeout_s: float = BODY_TIMEOUT_S,
        max_append_bytes: int = MAX_APPEND_BYTES,
        database_reachable: DatabaseReachable | None = None,
        users: Users | None = None,
    ) -> None:
        """`access_token`: the administrator's; `users`: whose tokens else."""
        self.hub = hub
        self.authenticator = Authenticator(access_token, users)
        self.max_append_bytes = max_append_bytes
        self.database_reachable = database_reachable
        self.host_allowed = host_allowed
        self.metrics_public = metrics_public
        self.body_timeout_s = body_timeout_s
        self.open_streams = 0
        self.metrics = metrics or Metrics()
        self.shutting_down = False
        self.models = models
        self.default_model = default_model
        self.max_body_bytes = max_body_bytes
        self.access_token = access_token
        self.heartbeat_s = heartbeat_s
        self.on_startup = on_startup
        self.on_shutdown = on_shutdown
        self.http2 = http2
        self.run = RunHandler(hub, self.metrics, heartbeat_s, max_append_bytes)
        self.aux = AuxRpcs(models, default_model, http2)
        self.unary: dict[str, Callable[[bytes, ContentType], Message]] = self.aux.routes()
        self.counted_paths = frozenset((*self.unary, RUN_SSE, BIDI_APPEND, RUN, "/metrics"))
        self.dashboard: Dashboard | None = None  # `/ui`, given the store by `app.build_service`

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        label = path if path in self.counted_paths else "other"

        def counted(message: dict[str, Any]) -> Awaitable[None]:
            # The server's own send is returned to be awaited, not awaited in
            # a coroutine of its own: one frame less on every write.
            if message["type"] == "http.response.start":
                self.metrics.requests.labels(label, str(message["status"])).inc()
            return send(message)

        counted.__wrapped__ = send  # type: ignore[attr-defined]  # (see `send_now`)
        await self._route(scope, receive, counted)

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.host_allowed is not None and not self.host_allowed(headers.get("host")):
            # A page that rebinds its DNS name to this machine still sends
            # its own name: refuse it before anything else is looked at.
            host = headers.get("host", "")
            refusal = WireError(Code.PERMISSION_DENIED, f"host {host!r} is not served here")
            await _error_reply(send, refusal, 421)
            return
        if not path.startswith("/"):  # an absolute-form target hypercorn passed on whole
            target = WireError(Code.INVALID_ARGUMENT, "the request target must be a path")
            await _error_reply(send, target, 400, close=True)
            return
        if self.dashboard is not None and is_dashboard(path):
            return await self.dashboard(scope, receive, send, headers)
        if scope["method"] == "GET" and path == "/healthz":
            return await reply_health(send, self.database_reachable)
        if scope["method"] == "GET" and path == "/metrics":
            if not self.metrics_public:
                try:
                    await self.authenticator.administrator(headers, scope.get("query_string"))
                except RequestError as refused:
                    await _error_reply(send, refused.error, refused.status)
                    return
            counters = self.hub.counters
            quiet = {**counters.quiet(), "h2_data_after_end": late_data.DROPPED.frames}
            self.metrics.memory_held.set(self.hub.budget.used)
            self.metrics.kv_unanswered.set(counters.kv_unanswered)
            self.metrics.subagents_running.set(len(self.hub.subagents.running()))
            self.metrics.relayed_output_skipped.set(counters.undecodable_output)
            body = self.metrics.render(quiet)
            await _respond(send, 200, body, "text/plain; version=0.0.4; charset=utf-8")
            return
        try:
            caller = await self.authenticator.caller(headers, scope.get("query_string"))
            if scope["method"] != "POST":
                raise RequestError(WireError(Code.UNIMPLEMENTED, f"{scope['method']} {path}"), 405)
            content_type = parse_content_type(headers.get("content-type"))
            if self.shutting_down and path in (RUN_SSE, BIDI_APPEND, RUN):
                raise RequestError(WireError(Code.UNAVAILABLE, "the server is shutting down"))
            if path == RUN_SSE:
                await self._run_sse(caller, headers, content_type, receive, send)
                return
            if path == RUN:
                await self._run(caller, headers, scope.get("http_version", "1.1"), receive, send)
                return
            if content_type is None:
                raise _unsupported(headers)
            if path == BIDI_APPEND:
                await self._bidi_append(caller, receive, headers, content_type, send)
                return
            unary = self.unary if caller.models is None else self.aux.only(caller.models).routes()
            handler = unary.get(path)
            with Reservation(self.hub.budget) as held:
                body = await self._body(receive, headers, held)
                if handler is None:
                    raise RequestError(WireError(Code.UNIMPLEMENTED, f"{path} is not served here"))
                reply = handler(unwrap(body, self.max_body_bytes, held), content_type)
                del body
            await _unary_reply(send, reply, content_type)
        except RequestError as refused:
            framing = run_framing(headers.get("content-type")) if path == RUN else None
            if framing is not None and framing.protocol is not Protocol.CONNECT:
                await _trailers_only(send, refused.error, framing.media_type, refused.close)
                return
            await _error_reply(send, refused.error, refused.status, close=refused.close)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.shutting_down = False
                if self.on_startup is not None:
                    await self.on_startup()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.begin_shutdown()
                if self.on_shutdown is not None:
                    await self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def begin_shutdown(self) -> None:
        """Stop taking new work and end open streams with a retryable error."""
        if self.shutting_down:
            return
        self.shutting_down = True
        error = retryable(
            "cursor-byok is shutting down; retry",
            "cursor-byok is restarting",
            "The server is shutting down; retry in a moment.",
        )
        self.hub.end_all_streams(error)
        streams = self.open_streams  # streams with a reader now, not sessions
        plural = "" if streams == 1 else "s"
        log.info("shutting down: ended %d open stream%s with a retryable error", streams, plural)

    async def _body(self, receive: Receive, headers: Mapping[str, str], held: Reservation) -> bytes:
        return await read_body(receive, headers, self.max_body_bytes, self.body_timeout_s, held)

    # -- BidiAppend ------------------------------------------------------------------------

    async def _bidi_append(
        self,
        caller: User,
        receive: Receive,
        headers: Mapping[str, str],
        content_type: ContentType,
        send: Send,
    ) -> None:
        """200 for every append that was read: a failed append makes the
        official client abort the run. Only a body too big, too slow or with
        no room left in the memory budget is refused."""
        try:
            append = await read_append(
                receive,
                headers,
                content_type,
                self.hub.budget,
                self.max_append_bytes,
                self.body_timeout_s,
            )
        except RequestError as refused:
            request_id = headers.get("x-request-id", "")
            if is_valid_id(request_id):
                await self.hub.append_refused(scoped(caller.id, request_id), refused.error.message)
            raise
        if isinstance(append, str):
            self.hub.counters.undecodable_appends += 1
            log.info("an append was ignored: %s", append)
        elif append is not None:
            key = scoped(caller.id, append.request_id)  # another user's id is one never seen
            await self.hub.append(key, append.seqno, append.payload, headers)
        await _unary_reply(send, bidi_pb2.BidiAppendResponse(), content_type)

    # -- Run (HTTP/2) ------------------------------------------------------------------------

    async def _run(
        self,
        caller: User,
        headers: Mapping[str, str],
        http_version: str,
        receive: Receive,
        send: Send,
    ) -> None:
        if not self.http2:
            raise RequestError(WireError(Code.UNIMPLEMENTED, "Run is off here (server.http2)"))
        framing = run_framing(headers.get("content-type"))
        if framing is None:
            raise _unsupported(headers)
        if framing.protocol is Protocol.GRPC and http_version.startswith("1"):
            # gRPC ends a stream with HTTP trailers, which HTTP/1 replies here
            # cannot carry.
            raise RequestError(
                WireError(Code.UNIMPLEMENTED, "gRPC needs HTTP/2; over HTTP/1.1 use gRPC-Web")
            )
        try:
            session = self.run.open(caller.id, headers)
        except OverBudget as no_room:
            raise RequestError(WireError(Code.RESOURCE_EXHAUSTED, str(no_room))) from None
        self.open_streams += 1
        try:
            await self.run.serve(session, framing, receive, send)
        finally:
            self.open_streams -= 1

    # -- RunSSE ------------------------------------------------------------------------------

    async def _run_sse(
        self,
        caller: User,
        headers: Mapping[str, str],
        content_type: ContentType | None,
        receive: Receive,
        send: Send,
    ) -> None:
        if content_type is None:
            raise _unsupported(headers)
        with Reservation(self.hub.budget) as held:
            body = await self._body(receive, headers, held)
            message = one_message(body, self.max_body_bytes, held)
            del body
            try:
                request = decode_message(message, bidi_pb2.BidiRequestId, content_type.codec)
            except CodecError as error:
                raise RequestError(WireError(Code.INVALID_ARGUMENT, str(error))) from error
            del message
        if not request.request_id:
            raise RequestError(WireError(Code.INVALID_ARGUMENT, "request_id is empty"))
        if not is_valid_id(request.request_id):
            malformed = invalid_id("request_id")
            raise RequestError(WireError(Code.INVALID_ARGUMENT, malformed))
        key = scoped(caller.id, request.request_id)  # another user's id is one never seen
        gone = self.hub.sessions.gone(key)
        if gone is not None:
            raise RequestError(WireError(Code.RESOURCE_EXHAUSTED, f"request dropped: {gone}"))
        try:
            session = self.hub.session(key, headers)
        except OverBudget as no_room:
            raise RequestError(WireError(Code.RESOURCE_EXHAUSTED, str(no_room))) from None
        finished = session.ended and session.outbox.empty()
        if not finished:
            # Read from now on, so the budget does not drop it meanwhile.
            self.hub.reader_attached(session)
        try:
            await self._stream(session, content_type, receive, send, finished)
        finally:
            if not finished:
                self.hub.reader_detached(session)

    async def _stream(
        self,
        session: Session,
        content_type: ContentType,
        receive: Receive,
        send: Send,
        finished: bool,
    ) -> None:
        stream_type = stream_content_type(content_type)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", stream_type.encode()),
                    (b"cache-control", b"no-cache"),
                    (b"connect-protocol-version", b"1"),
                ],
            }
        )
        if finished:
            # The turn this request id served is over (or was taken over):
            # say so at once instead of sending heartbeats forever.
            await send({"type": "http.response.body", "body": end_frame(None, content_type)})
            return
        self.metrics.active_streams.inc()
        self.open_streams += 1
        disconnected = asyncio.ensure_future(wait_disconnect(receive))
        try:
            writer = StreamWriter(self.heartbeat_s, self.metrics.stages)
            await writer.pump(session, content_type, send, disconnected)
        finally:
            disconnected.cancel()
            self.open_streams -= 1
            self.metrics.active_streams.dec()


def _unsupported(headers: Mapping[str, str]) -> RequestError:
    """Connect answers an unknown content type with HTTP 415."""
    media = headers.get("content-type")
    return RequestError(WireError(Code.UNKNOWN, f"unsupported content type {media!r}"), 415)


async def _respond(
    send: Send, status: int, body: bytes, media_type: str, close: bool = False
) -> None:
    """A whole body, its length declared: over HTTP/1.1 the server then needs
    no chunked framing and no closing chunk (a socket write per reply)."""
    headers = [(b"content-type", media_type.encode()), (b"content-length", b"%d" % len(body))]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _unary_reply(send: Send, message: Message, content_type: ContentType) -> None:
    data = encode_message(message, content_type.codec)
    if content_type.grpc_web:
        body = encode_envelope(data) + encode_trailers_envelope(grpc_web_trailers(None))
        await _respond(send, 200, body, "application/grpc-web+proto")
        return
    media = "application/json" if content_type.codec is Codec.JSON else "application/proto"
    await _respond(send, 200, data, media)


async def _trailers_only(send: Send, error: WireError, media_type: str, close: bool) -> None:
    """A gRPC or gRPC-Web call refused before its stream began: HTTP 200 with
    the status in the headers and no body, as gRPC clients expect; a Connect
    JSON error would read to them as a broken stream."""
    headers = [(b"content-type", media_type.encode()), *grpc_trailers(error)]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _error_reply(
    send: Send, error: WireError, status: int | None, close: bool = False
) -> None:
    code_status, body = unary_error_body(error)
    await _respond(send, status or code_status, body, "application/json", close)
