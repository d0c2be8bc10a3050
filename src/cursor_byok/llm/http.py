"""The HTTP edge to providers: one pooled client per provider, and the one
place where transport failures become `UpstreamError`s (a provider's own
error responses are read in `llm.upstream_errors`).

The HTTP library is used here and nowhere else in the server: adapters
build an `HTTPRequest` (pure data), `HTTPClient` sends it and hands the body
back as it arrives. The library is aiohttp's client, chosen by measurement
(bench/server.py --clients): about a third less server CPU per relayed delta
than httpx2 at 200 streams; it is the package's only HTTP client library
(the built-in Cursor client and `ide status` use it too). It is imported on
the first request, so commands that never call a model do not pay for it.

Retry policy lives with the caller (same call id, same bytes); this module
only says whether a retry can help.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cursor_byok.llm.ready_order import serve_first, served_in_turn
from cursor_byok.llm.upstream_errors import UpstreamError

if TYPE_CHECKING:
    import aiohttp

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 300.0
"""Seconds between two received chunks (the stall timeout); thinking models
can pause for minutes."""
MAX_CONNECTIONS = 1000
"""Per provider. HTTP/1.1 carries one stream per connection: a lower cap would
queue concurrent turns behind each other (100 did, at 200 streams)."""

Buffer = bytes | memoryview

SMALL_PART = 64 * 1024
"""Parts of a body below this are joined with their neighbours: a write per
part costs more than copying a few small ones."""


@dataclass(frozen=True, slots=True)
class BodyParts:
    """A request body in parts, written one after the other, never joined:
    a model request carries the conversation's whole history, which the
    render cache keeps as a few large chunks (`providers/spool.py`).
    `of` joins the small parts that lie between the large ones."""

    parts: tuple[Buffer, ...]
    size: int

    @classmethod
    def of(cls, pieces: Iterable[Buffer]) -> BodyParts:
        parts: list[Buffer] = []
        small: list[Buffer] = []
        size = 0
        for piece in pieces:
            size += len(piece)
            if len(piece) < SMALL_PART:
                small.append(piece)
                continue
            if small:
                parts.append(b"".join(small))
                small = []
            parts.append(piece)
        if small:
            parts.append(b"".join(small))
        return cls(tuple(parts), size)

    def joined(self) -> bytes:
        """The body as one `bytes` (a copy, unless it is one part already)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], bytes):
            return self.parts[0]
        return b"".join(self.parts)


@dataclass(frozen=True, slots=True)
class HTTPRequest:
    """One provider request as an adapter builds it: sent exactly as given."""

    url: str
    headers: Mapping[str, str]
    body: bytes | BodyParts


class TransportError(Exception):
    """The request or its body failed on the network; `error` says how.
    `waited` is set when a timeout gave up: ("connect" or "read", seconds)."""

    def __init__(self, error: UpstreamError, waited: tuple[str, float] | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.waited = waited


class _Tap(asyncio.Protocol):
    """Stands between a connection's transport and aiohttp's protocol while a
    body is pushed (`HTTPResponse.on_arrival`): everything goes on to
    aiohttp as before, then `arrived()` runs in the same loop step, where a
    reader parked on aiohttp's stream would only be woken for the next.
    Installed and removed with the transport's public `set_protocol`.

    Until the body's first read through it, its socket is served ahead of
    other streams' in a loop pass (`ready_order`): that read is what the
    user waits on, the ones after it come at the model's pace anyway."""

    __slots__ = ("arrived", "first", "inner")

    def __init__(self, inner: asyncio.Protocol, arrived: Callable[[], None], fd: int) -> None:
        self.inner = inner
        self.arrived = arrived
        self.first = fd
        serve_first(fd)

    def in_turn(self) -> None:
        """The first read came (or will not): served in the pass's order."""
        if self.first >= 0:
            served_in_turn(self.first)
            self.first = -1

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.first >= 0:
            self.in_turn()
        self.inner.data_received(data)
        self.arrived()

    def eof_received(self) -> bool | None:
        keep_open = self.inner.eof_received()
        self.arrived()
        return keep_open

    def connection_lost(self, exc: Exception | None) -> None:
        self.in_turn()
        self.inner.connection_lost(exc)
        self.arrived()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class HTTPResponse:
    """A response whose body is read as it arrives.

    The stall timeout on the body is kept here, not by aiohttp: its
    `sock_read` timer is cancelled and made anew on every chunk received, a
    timer handle per delta, and cancelled handles pile up in the loop's heap
    by the thousand under load. Here one timer per response fires when the
    timeout could first have run out, and re-arms itself for the latest
    chunk's deadline if data came meanwhile. (aiohttp's timer still covers
    the wait for the response head.)"""

    def __init__(self, response: aiohttp.ClientResponse, read_timeout: float) -> None:
        self._response = response
        self._read_timeout = read_timeout
        self.status: int = response.status
        self.headers: Mapping[str, str] = {k.lower(): v for k, v in response.headers.items()}
        self._loop = asyncio.get_running_loop()
        self._last_read = self._loop.time()
        self._stall: asyncio.TimerHandle | None = None
        self._tapped: tuple[asyncio.BaseTransport, _Tap] | None = None
        self._on_arrival: Callable[[], None] | None = None
        self._taken = 0
        """Body bytes handed out, to set against those aiohttp received."""
        connection = response.connection
        protocol = connection.protocol if connection is not None else None
        if protocol is not None and read_timeout > 0:
            protocol.read_timeout = None  # from the next chunk on, aiohttp sets no timer
            self._stall = self._loop.call_at(self._last_read + read_timeout, self._check_stall)

    def _check_stall(self) -> None:
        deadline = self._last_read + self._read_timeout
        if self._loop.time() < deadline:
            self._stall = self._loop.call_at(deadline, self._check_stall)
            return
        self._stall = None
        self._response.content.set_exception(TimeoutError("no body data within the stall timeout"))
        self._arrived()

    def on_arrival(self, arrived: Callable[[], None]) -> bool:
        """Have `arrived()` called in the loop step that reads more of the
        body, its end or a failure (the stall timeout included), until the
        body has ended or the response is closed (True again while it is).
        False when nothing more can arrive: the body is in hand already, and
        `read` returns it."""
        if self._tapped is not None:
            return True
        connection = self._response.connection
        transport = connection.transport if connection is not None else None
        if transport is None or self._response.content.is_eof():
            return False
        inner = transport.get_protocol()
        if not isinstance(inner, asyncio.Protocol):
            return False  # not aiohttp's plain protocol: read as usual
        sock = transport.get_extra_info("socket")
        tap = _Tap(inner, self._arrived, sock.fileno() if sock is not None else -1)
        self._tapped = (transport, tap)
        self._on_arrival = arrived
        transport.set_protocol(tap)
        return True

    def _arrived(self) -> None:
        """The tap's call. Once the body has ended, aiohttp has put the
        connection back in its pool: the tap leaves it in the same step,
        before another response can take it."""
        content = self._response.content
        if content.is_eof() or content.exception() is not None:
            self._untap()
        if (arrived := self._on_arrival) is not None:
            arrived()

    def take_nowait(self) -> bytes:
        """The body bytes at hand, without waiting: b"" when there are none,
        and when the body has ended or failed (`read` then says which). A
        reader takes until none is at hand, so the last take of each arrival
        finds nothing: that is known from the bytes counted, without a read."""
        content = self._response.content
        if content.total_bytes == self._taken or content.exception() is not None:
            return b""
        chunk = content.read_nowait(-1)
        if chunk:
            self._taken += len(chunk)
            self._last_read = self._loop.time()
        return chunk

    @property
    def settled(self) -> bool:
        """Whether the body has ended or failed, with nothing left unread."""
        content = self._response.content
        return content.at_eof() or content.exception() is not None

    def _untap(self) -> None:
        """Give the transport back to aiohttp's protocol (it may carry the
        next response once the connection is back in the pool)."""
        if self._tapped is not None:
            transport, tap = self._tapped
            self._tapped = None
            tap.in_turn()
            if transport.get_protocol() is tap:
                transport.set_protocol(tap.inner)

    async def read(self) -> bytes:
        """The body bytes received since the last read (waiting for some), b""
        once the body has ended; a network failure raises `TransportError`.
        One coroutine per chunk: a streamed answer reads one per delta."""
        try:
            chunk = await self._response.content.readany()
        except Exception as exc:
            raise _body_error(exc, self._read_timeout) from exc
        self._taken += len(chunk)
        self._last_read = self._loop.time()
        return chunk

    async def chunks(self) -> AsyncGenerator[bytes]:
        """Body bytes as received (`read` until the end)."""
        while chunk := await self.read():
            yield chunk

    def close(self) -> None:
        """Done with the body: a fully read connection goes back to the pool."""
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        self._untap()
        self._on_arrival = None
        self._response.release()


class HTTPClient:
    """A client meant to live as long as the provider: its pool keeps
    connections warm across calls. The session is opened on the first
    request, inside the event loop that uses it."""

    def __init__(
        self,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        read_timeout: float = READ_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _open_session(self) -> aiohttp.ClientSession:
        import aiohttp  # noqa: PLC0415

        connector = aiohttp.TCPConnector(
            limit=self._max_connections, limit_per_host=self._max_connections
        )
        timeout = aiohttp.ClientTimeout(
            sock_connect=self._connect_timeout, sock_read=self._read_timeout
        )
        # No cookie jar: the session carries every user's calls, so a cookie
        # one provider response sets must not ride on anyone's next call.
        return aiohttp.ClientSession(
            connector=connector,
            timeout=timeout,
            auto_decompress=True,
            cookie_jar=aiohttp.DummyCookieJar(),
        )

    async def send(self, request: HTTPRequest) -> HTTPResponse:
        """POST the request; the response's body is left to be read."""
        import aiohttp  # noqa: PLC0415
        from yarl import URL  # noqa: PLC0415

        if self._session is None or self._session.closed:
            self._session = self._open_session()
        body = request.body
        data = body if isinstance(body, bytes) else _parts_payload()(body)
        try:
            response = await self._session.post(
                URL(request.url, encoded=True),
                data=data,
                headers=dict(request.headers),
                allow_redirects=False,
            )
        except (TimeoutError, OSError, aiohttp.ClientError) as exc:
            waited: tuple[str, float] | None = None
            if isinstance(exc, aiohttp.ConnectionTimeoutError):
                waited = ("connect", self._connect_timeout)
            elif isinstance(exc, TimeoutError):
                waited = ("read", self._read_timeout)
            raise TransportError(error_from_exception(exc), waited) from exc
        return HTTPResponse(response, self._read_timeout)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


@functools.cache
def _parts_payload() -> type[aiohttp.payload.Payload]:
    """aiohttp's payload for a `BodyParts` (made on first use, as aiohttp
    is imported): its size is known, so it goes with a content-length."""
    from aiohttp import payload  # noqa: PLC0415

    class PartsPayload(payload.Payload):
        _autoclose = True
        _value: BodyParts

        def __init__(self, body: BodyParts) -> None:
            super().__init__(body)
            self._size = body.size

        def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
            return self._value.joined().decode(encoding, errors)

        async def as_bytes(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
            return self._value.joined()

        async def write(self, writer: aiohttp.abc.AbstractStreamWriter) -> None:
            await self.write_with_length(writer, None)

        async def write_with_length(
            self, writer: aiohttp.abc.AbstractStreamWriter, content_length: int | None
        ) -> None:
            left = self._value.size if content_length is None else content_length
            for part in self._value.parts:
                if left <= 0:
                    return
                await writer.write(part if len(part) <= left else part[:left])
                left -= len(part)

    return PartsPayload


def _body_error(exc: Exception, read_timeout: float) -> Exception:
    """A failure while reading a body as the `TransportError` it means; any
    other exception (a bug) is raised as it is."""
    import aiohttp  # noqa: PLC0415

    if not isinstance(exc, TimeoutError | OSError | aiohttp.ClientError):
        return exc
    waited = ("read", read_timeout) if isinstance(exc, TimeoutError) else None
    return TransportError(error_from_exception(exc), waited)


def make_client(**options: Any) -> HTTPClient:
    """The one place a provider's client is made (a bench swaps it here)."""
    return HTTPClient(**options)


def error_from_exception(exc: BaseException) -> UpstreamError:
    """Transport failures: a broken or timed-out connection may succeed when
    retried; a request the client could not even form will not."""
    import aiohttp  # noqa: PLC0415

    name = type(exc).__name__
    detail = str(exc) or name
    transient = (
        OSError,
        TimeoutError,
        aiohttp.ClientConnectionError,
        aiohttp.ClientPayloadError,
        aiohttp.ClientResponseError,
    )
    return UpstreamError(f"{name}: {detail}", retryable=isinstance(exc, transient))
