"""One plain-text port, two HTTP stacks: each connection goes to the one
made for what its first bytes speak.

HTTP/1.1 (RunSSE + BidiAppend, the IDE's `Run` as the take-over proxy
passes it on, and every unary call) goes to uvicorn's httptools protocol: a C parser, and about a
quarter less server CPU per relayed delta at 200 streams than hypercorn's
pure-Python h11 (README, "Performance"). A connection that opens with the
HTTP/2 preface (h2c with prior knowledge: `Run`) goes to hypercorn, which
keeps HTTP/2's flow control and trailers. Both run on this loop and serve the
same ASGI app. Under TLS every connection goes to hypercorn once its
handshake is done (ALPN has picked the protocol), counted as in plain text.

Neither library takes a connection accepted elsewhere through its public
interface, so this module builds each one's per-connection object the way
its own server does (uvicorn's `HttpToolsProtocol`, hypercorn's `TCPServer`);
the versions are pinned in pyproject.toml. hypercorn (about 40 ms of imports)
is loaded on a worker thread once the port listens, so neither start-up nor
a client that never speaks HTTP/2 waits for it; an HTTP/2 connection that
comes first waits for that load.

What hypercorn gave HTTP/1.1 and uvicorn lacks (a deadline and a size cap
on each request head, one write per reply of declared length) is added in
`http1`; the Date header is made here once a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from email.utils import formatdate
from typing import TYPE_CHECKING, Any, cast

from uvicorn.config import Config as UvicornConfig
from uvicorn.server import ServerState

from cursor_byok.llm.ready_order import serve_first, served_in_turn
from cursor_byok.transport.http.connection_limits import (
    ConnectionCount,
    ConnectionLimits,
    peer_of,
    release_when_lost,
)
from cursor_byok.transport.http.http1 import MAX_HEAD_BYTES, HeadGuardedProtocol
from cursor_byok.transport.http.lifespan import lifespan
from cursor_byok.transport.http.peer_uid import REFUSED_REPLY

if TYPE_CHECKING:
    from hypercorn.asyncio.tcp_server import TCPServer
    from hypercorn.asyncio.worker_context import WorkerContext
    from hypercorn.config import Config as HypercornConfig

log = logging.getLogger(__name__)

H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
BACKLOG = 1024
"""Pending connections the kernel keeps: a client opening hundreds at once
is not made to retry its SYNs."""


def offers_h2c(head: bytes) -> bool:
    """Whether a request head carries `Upgrade: h2c` (RFC 7540 3.2)."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        tokens = (token.strip().lower() for token in value.split(b","))
        if name.strip().lower() == b"upgrade" and b"h2c" in tokens:
            return True
    return False


class Sniffer(asyncio.Protocol):
    """A new connection until its first bytes say which stack serves it:
    the HTTP/2 preface, or a first head offering `Upgrade: h2c`, goes to
    hypercorn, anything else to uvicorn. One that says nothing (or no whole
    first head) within the idle limit is closed. One the port's peer check
    refuses reaches neither: its first bytes are answered with a 403 and the
    connection is closed."""

    def __init__(self, port: OnePort) -> None:
        self._port = port
        self._seen = b""
        self._transport: asyncio.Transport | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._peer: str | None = None
        self._fd = -1
        self._refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = peer_of(transport)
        if not self._port.count.admit(peer):
            # Over a limit: refused before anything is read.
            cast(asyncio.Transport, transport).abort()
            return
        self._peer = peer
        self._fd = serve_client_first(transport)
        # uvloop's transports are not asyncio.Transport subclasses.
        self._transport = cast(asyncio.Transport, transport)
        transport = self._transport
        allowed = self._port.peer_allowed
        self._refused = allowed is not None and not allowed(transport)
        self._port.sniffing.add(transport)
        self._idle = asyncio.get_running_loop().call_later(
            self._port.idle_timeout_s, transport.close
        )

    def data_received(self, data: bytes) -> None:
        if self._refused:
            # Answered once its request has come (read, so the close is not a
            # reset that could discard the answer), never served.
            assert self._transport is not None
            if not self._transport.is_closing():
                self._transport.write(REFUSED_REPLY)
                self._transport.close()
            return
        self._seen += data
        seen = self._seen
        if len(seen) < len(H2_PREFACE) and H2_PREFACE.startswith(seen):
            return  # still the preface's prefix: wait for the rest
        head_end = seen.find(b"\r\n\r\n")
        if not seen.startswith(H2_PREFACE) and head_end < 0 and len(seen) <= MAX_HEAD_BYTES:
            return  # the first head, whole, says whether it offers h2c
        self._stop_idle()
        transport = self._transport
        assert transport is not None
        self._port.sniffing.discard(transport)
        if seen.startswith(H2_PREFACE) or (head_end >= 0 and offers_h2c(seen[:head_end])):
            self._port.to_hypercorn(transport, seen, self._release)
        else:
            self._port.to_uvicorn(transport, seen, self._release)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_idle()
        if self._transport is not None:
            self._port.sniffing.discard(self._transport)
        self._release()

    def _release(self) -> None:
        """The connection's place in the count given back, once (by this
        protocol, or by the one it was handed to)."""
        served_in_turn(self._fd)  # before the socket closes: its number may be reused
        self._fd = -1
        if self._peer is not None:
            self._port.count.release(self._peer)
            self._peer = None

    def _stop_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None


class TlsGate(asyncio.Protocol):
    """A TLS connection: counted as it is accepted, before its handshake,
    then handed to hypercorn (ALPN has picked HTTP/2 or HTTP/1.1). One whose
    handshake does not finish within the idle limit is closed."""

    def __init__(self, port: OnePort, context: ssl.SSLContext) -> None:
        self._port = port
        self._context = context
        self._peer: str | None = None
        self._fd = -1
        self._early = bytearray()
        """What the client sent between its handshake and hypercorn taking over."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = peer_of(transport)
        plain = cast(asyncio.Transport, transport)
        if not self._port.count.admit(peer):
            plain.abort()  # over a limit: refused before the handshake
            return
        self._peer = peer
        self._fd = serve_client_first(transport)
        plain.pause_reading()  # the handshake reads it
        self._port.handover(self._handshake(plain))

    async def _handshake(self, plain: asyncio.Transport) -> None:
        loop = asyncio.get_running_loop()
        try:
            tls = await loop.start_tls(
                plain,
                self,
                self._context,
                server_side=True,
                ssl_handshake_timeout=self._port.idle_timeout_s,
            )
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError):
            plain.abort()
            self._release()
            return
        except asyncio.CancelledError:
            plain.abort()
            self._release()
            raise
        if tls is None or tls.is_closing():
            self._release()
            return
        self._port.to_hypercorn(tls, bytes(self._early), self._release)

    def data_received(self, data: bytes) -> None:
        self._early += data

    def connection_lost(self, exc: Exception | None) -> None:
        self._release()

    def _release(self) -> None:
        served_in_turn(self._fd)
        self._fd = -1
        if self._peer is not None:
            self._port.count.release(self._peer)
            self._peer = None


def serve_client_first(transport: asyncio.BaseTransport) -> int:
    """Mark a client connection's socket to be read ahead of the provider
    streams in each loop pass (`llm/ready_order.py`): its reads start turns
    and give streams their flow-control credit. Its descriptor, or -1."""
    sock = transport.get_extra_info("socket")
    fd = sock.fileno() if sock is not None else -1
    serve_first(fd)
    return fd


@dataclass(frozen=True, slots=True)
class Hypercorn:
    """What the HTTP/2 side needs, once hypercorn is loaded."""

    config: HypercornConfig
    app: Any
    context: WorkerContext
    server_class: type[TCPServer]
    reads_class: type[asyncio.StreamReaderProtocol]


def load_hypercorn(app: Any, make_config: Callable[[], HypercornConfig]) -> Hypercorn:
    from hypercorn.app_wrappers import ASGIWrapper  # noqa: PLC0415
    from hypercorn.asyncio.worker_context import WorkerContext  # noqa: PLC0415

    from cursor_byok.transport.http.eager_read import EagerReads, EagerTCPServer  # noqa: PLC0415

    context = WorkerContext(None)
    return Hypercorn(make_config(), ASGIWrapper(app), context, EagerTCPServer, EagerReads)


class OnePort:
    """The two stacks behind one listening socket, with one shutdown.
    `make_config` builds hypercorn's config (called once it is loaded);
    `peer_allowed`, when given, judges each connection as it is accepted
    (`peer_uid.OwnUserOnly`), once, before any request is read."""

    def __init__(
        self,
        app: Any,
        make_config: Callable[[], HypercornConfig],
        idle_timeout_s: int,
        grace_s: float,
        peer_allowed: Callable[[asyncio.BaseTransport], bool] | None = None,
        limits: ConnectionLimits | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.app = app
        self.tls = tls
        self.peer_allowed = peer_allowed
        self.idle_timeout_s = idle_timeout_s
        self.count = ConnectionCount(limits or ConnectionLimits())
        self._grace_s = grace_s
        self._make_config = make_config
        self._hypercorn: asyncio.Future[Hypercorn] | None = None
        self._handovers: set[asyncio.Task[None]] = set()
        self.sniffing: set[asyncio.Transport] = set()
        """Connections that have not yet said which protocol they speak."""
        self._hypercorn_tasks: dict[asyncio.Task[None], TCPServer] = {}
        self._uvicorn_config = UvicornConfig(
            app,
            interface="asgi3",
            http="httptools",
            ws="none",
            lifespan="off",
            log_config=None,
            access_log=False,
            proxy_headers=False,
            server_header=False,
            date_header=False,  # made here once a second (`_keep_date`)
            timeout_keep_alive=idle_timeout_s,
        )
        self._uvicorn_config.load()
        self._state = ServerState()
        self._date_task: asyncio.Task[None] | None = None

    def to_uvicorn(
        self, transport: asyncio.Transport, first: bytes, release: Callable[[], None]
    ) -> None:
        protocol = HeadGuardedProtocol(
            config=self._uvicorn_config,
            server_state=self._state,
            app_state={},
            head_timeout_s=self.idle_timeout_s,
        )
        transport.set_protocol(protocol)
        release_when_lost(protocol, release)
        protocol.connection_made(transport)
        protocol.data_received(first)

    def to_hypercorn(
        self, transport: asyncio.Transport, first: bytes, release: Callable[[], None]
    ) -> None:
        loaded = self._load_hypercorn()
        if loaded.done() and loaded.exception() is None:
            self._start_hypercorn(loaded.result(), transport, first, release)
            return
        transport.pause_reading()  # until hypercorn is there to read it
        self.handover(self._when_loaded(transport, first, release))

    def handover(self, step: Coroutine[Any, Any, None]) -> None:
        """`step` on a task of its own, cancelled if the port shuts down first."""
        task = asyncio.get_running_loop().create_task(step)
        self._handovers.add(task)
        task.add_done_callback(self._handovers.discard)

    async def _when_loaded(
        self, transport: asyncio.Transport, first: bytes, release: Callable[[], None]
    ) -> None:
        try:
            # Shielded: cancelling this handover must not cancel the load.
            hypercorn = await asyncio.shield(self._load_hypercorn())
        except asyncio.CancelledError:
            transport.abort()  # shutting down before it was served
            raise
        except Exception:
            log.exception("the HTTP/2 server could not be loaded")
            transport.abort()
            return
        if transport.is_closing():
            return
        self._start_hypercorn(hypercorn, transport, first, release)
        transport.resume_reading()

    def _load_hypercorn(self) -> asyncio.Future[Hypercorn]:
        if self._hypercorn is None:
            loop = asyncio.get_running_loop()
            self._hypercorn = loop.run_in_executor(
                None, load_hypercorn, self.app, self._make_config
            )
        return self._hypercorn

    def _start_hypercorn(
        self,
        hypercorn: Hypercorn,
        transport: asyncio.Transport,
        first: bytes,
        release: Callable[[], None],
    ) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**16, loop=loop)
        protocol = hypercorn.reads_class(reader, loop=loop)
        transport.set_protocol(protocol)
        release_when_lost(protocol, release)
        protocol.connection_made(transport)
        protocol.data_received(first)
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        server = hypercorn.server_class(
            hypercorn.app, loop, hypercorn.config, hypercorn.context, {}, reader, writer
        )
        task = loop.create_task(server.run())
        self._hypercorn_tasks[task] = server
        task.add_done_callback(self._hypercorn_tasks.pop)

    async def serve(
        self, sock: socket.socket | None, host: str, port: int, stop: Callable[[], Awaitable[Any]]
    ) -> None:
        """Listen until `stop()` returns, then let open connections finish
        (up to the grace period)."""
        loop = asyncio.get_running_loop()
        self._keep_date()
        self._date_task = loop.create_task(self._date_ticker())
        async with lifespan(self.app):
            where: dict[str, Any] = (
                {"sock": sock} if sock else {"host": host, "port": port, "reuse_address": True}
            )
            tls = self.tls
            factory: Callable[[], asyncio.Protocol] = (
                (lambda: Sniffer(self)) if tls is None else (lambda: TlsGate(self, tls))
            )
            listener = await loop.create_server(factory, backlog=BACKLOG, **where)
            self._load_hypercorn()  # on a worker thread, while the port already serves
            try:
                await stop()
            finally:
                listener.close()
                try:
                    await self._drain(self._grace_s)
                finally:
                    self._date_task.cancel()

    async def _drain(self, grace_s: float) -> None:
        for transport in list(self.sniffing):
            transport.close()  # accepted, but no request yet
        for task in self._handovers:
            task.cancel()
        if self._hypercorn is not None:
            with contextlib.suppress(Exception):
                hypercorn = await self._hypercorn
                await hypercorn.context.terminated.set()  # GOAWAY, close when idle
        for connection in list(self._state.connections):
            connection.shutdown()  # uvicorn: close now if idle, else after its reply
        # Requests in flight (uvicorn) and connections (hypercorn) are tasks:
        # wait for them, then cut what is left. hypercorn closes an HTTP/2
        # connection at shutdown only when one of its streams ends, so one
        # with no stream open is closed here.
        deadline = time.monotonic() + grace_s
        while (pending := {*self._state.tasks, *self._hypercorn_tasks}) and (
            left := deadline - time.monotonic()
        ) > 0:
            for server in self._hypercorn_tasks.values():
                if _h2_idle(server):
                    server.writer.close()
            await asyncio.wait(pending, timeout=min(left, 0.05))
        for task in (*self._state.tasks, *self._hypercorn_tasks):
            task.cancel()
        for connection in list(self._state.connections):
            connection.transport.abort()
        # Cancelled hypercorn connections end in its task group's errors.
        await asyncio.gather(*self._hypercorn_tasks, *self._state.tasks, return_exceptions=True)

    def _keep_date(self) -> None:
        self._state.default_headers = [(b"date", formatdate(usegmt=True).encode("ascii"))]

    async def _date_ticker(self) -> None:
        while True:
            await asyncio.sleep(1 - time.time() % 1)
            self._keep_date()


def _h2_idle(server: TCPServer) -> bool:
    """Whether a hypercorn connection has no stream open (its protocol is
    known once it has read the preface)."""
    wrapper = getattr(server, "protocol", None)
    return bool(getattr(getattr(wrapper, "protocol", None), "idle", False))
