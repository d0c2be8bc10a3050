"""uvicorn's HTTP/1.1 protocol (httptools, a C parser) with what hypercorn
gave HTTP/1.1 and uvicorn lacks: a connection that sends no complete request
head within the idle limit is closed (uvicorn has no deadline on a head, so
a client trickling one byte at a time kept a connection forever), a head
larger than `MAX_HEAD_BYTES` gets 431, and a reply of declared length leaves
in one write, head and body (uvicorn alone writes them apart). `one_port`
hands it the connections that speak HTTP/1.1."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 64 * 1024
"""The largest HTTP/1.1 request head taken (request line and headers)."""
REPLY_431 = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\ncontent-length: 32\r\n"
    b"connection: close\r\n\r\nthe request head is over 64 KiB\n"
)


def _reply_400(reason: str) -> bytes:
    body = f"{reason}\n".encode()
    return (
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
    )


_DEFAULT_PORTS = {b"http": 80, b"https": 443}


def _authority(url: bytes) -> tuple[bytes, int | None]:
    """The host (lower case, no trailing dot) and port (the scheme's default
    when none is given) an absolute URL names; HttpParserInvalidURLError."""
    parsed = httptools.parse_url(url)
    scheme = (parsed.schema or b"").lower()
    host = (parsed.host or b"").lower().rstrip(b".")
    return host, parsed.port or _DEFAULT_PORTS.get(scheme)


def host_problem(target: bytes, headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why a request head names its host ambiguously, or None. Two `Host`
    headers (uvicorn keeps both; which one a proxy in front read is anyone's
    guess), or an absolute-form target (`GET http://host/path`, whose
    authority uvicorn drops) naming another host than `Host` (RFC 9112 3.2)."""
    hosts = [value for name, value in headers if name == b"host"]
    if len(hosts) > 1:
        return "more than one Host header"
    if target.startswith(b"/") or target == b"*":
        return None
    try:
        named = _authority(target)
        scheme = target.partition(b"://")[0]
        given = _authority(scheme + b"://" + hosts[0] + b"/") if hosts else None
    except httptools.HttpParserInvalidURLError:
        return "the request target or Host is not a valid URL part"
    if given != named:
        return "the request target's authority differs from Host"
    return None


class HeadGuardedProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol with a deadline and a size cap on each
    request head: from its first byte to its blank line; and a head that
    names its host ambiguously (`host_problem`) gets 400."""

    def __init__(self, *args: Any, head_timeout_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timeout_s = head_timeout_s
        self._in_head = True
        self._head_bytes = 0  # the head's parsed parts (URL, headers)
        self._raw_head_bytes = 0  # bytes received since the head began
        self._refusal: bytes | None = None
        """The reply that ends the connection (431, 400) once a head is refused."""
        self._head_timer: asyncio.TimerHandle | None = None

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:
            return
        if self._in_head:
            self._raw_head_bytes += len(data)
        super().data_received(data)
        # Still in a head after the parser took the chunk: every byte since
        # it began is the head's (one that ended in this chunk reset the
        # count, so a body never counts).
        if self._in_head and self._raw_head_bytes > MAX_HEAD_BYTES:
            self._refusal = REPLY_431
        if self._refusal is not None and not self.transport.is_closing():
            self._drop_head_timer()
            if self.cycle is None or self.cycle.response_complete:
                self.transport.write(self._refusal)
            self.transport.close()  # (a reply still streaming is cut, not corrupted)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # A head's first byte: it must be whole within the idle limit.
        self._drop_head_timer()
        self._head_timer = self.loop.call_later(self._head_timeout_s, self._head_late)

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._head_bytes = self._raw_head_bytes = 0
        self._drop_head_timer()
        if self._refusal is None and (problem := host_problem(self.url, self.headers)):
            self._refusal = _reply_400(problem)
        if self._refusal is not None:
            return  # never reaches the app; refused once the parser returns
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None:  # its task has not run yet: it will send through this
            cycle.send = _one_write_replies(cycle)  # type: ignore[method-assign,assignment]

    def on_body(self, body: bytes) -> None:
        if self._refusal is None:  # (a refused head has no cycle of its own)
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refusal is not None:
            return
        super().on_message_complete()
        # What comes next on the connection is the next request's head.
        self._in_head = True
        self._head_bytes = self._raw_head_bytes = 0

    def connection_lost(self, exc: Exception | None) -> None:
        self._drop_head_timer()
        super().connection_lost(exc)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES:
            self._refusal = REPLY_431

    def _should_upgrade(self) -> bool:
        return False  # no WebSockets here

    def _unsupported_upgrade_warning(self) -> None:
        # uvicorn warns, and suggests installing a WebSocket library, on every
        # request that offers an upgrade; ignoring the offer is what HTTP/1.1
        # allows. (A first request offering h2c never gets here: `Sniffer`
        # hands its connection to hypercorn, which takes the upgrade.)
        log.debug("an Upgrade offer was ignored; the request is answered in HTTP/1.1")

    def _head_late(self) -> None:
        self._head_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            # A head sent ahead while a reply still streams waits for it.
            self._head_timer = self.loop.call_later(self._head_timeout_s, self._head_late)
        elif not self.transport.is_closing():
            self.transport.close()

    def _drop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None


class _Gathered:
    """Stands in for a connection's transport while a reply is written: the
    writes are kept and go out as one."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def flush(self) -> None:
        if self.parts:
            data = b"".join(self.parts)
            self.parts.clear()
            self.transport.write(data)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


def _one_write_replies(cycle: Any) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """A reply whose length is declared goes out in one write, head and
    body: uvicorn writes its head on `http.response.start`, so a unary reply
    cost two sends (and woke its client twice). A streamed reply's head
    still goes at once: the client may wait for it before sending more."""
    send: Callable[[dict[str, Any]], Awaitable[None]] = cycle.send
    held: dict[str, Any] | None = None

    def one_write(message: dict[str, Any]) -> Awaitable[None]:
        # uvicorn's send is returned to be awaited, not awaited here: a
        # streamed reply's every write passes through this.
        nonlocal held
        if message["type"] == "http.response.start":
            # (One held and never written is replaced: uvicorn's own 500
            # after an app failed between head and body.)
            held = None
            if any(name.lower() == b"content-length" for name, _ in message.get("headers", ())):
                held = message
                return _nothing()
        if held is None or message["type"] != "http.response.body":
            return send(message)
        start, held = held, None
        return _together(cycle, send, start, message)

    return one_write


async def _nothing() -> None:
    return None


async def _together(
    cycle: Any, send: Callable[[dict[str, Any]], Awaitable[None]], *messages: dict[str, Any]
) -> None:
    """Send `messages` through uvicorn with their writes gathered into one."""
    transport = cycle.transport
    gathered = _Gathered(transport)
    cycle.transport = gathered
    try:
        for message in messages:
            await send(message)
    finally:
        cycle.transport = transport
        gathered.flush()
