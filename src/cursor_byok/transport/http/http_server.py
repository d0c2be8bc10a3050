"""The HTTP server under the ASGI app: one port for every client.

Cursor's clients speak `Run` over HTTP/2 by default and RunSSE + BidiAppend
over HTTP/1.1 when HTTP/2 is off, so one port serves both: HTTP/1.1 and h2c
with prior knowledge in plain text, or TLS whose ALPN offers `h2` and
`http/1.1`. In plain text each connection goes to the stack made for its
protocol (`one_port`: uvicorn's httptools for HTTP/1.1, hypercorn for
HTTP/2); under TLS hypercorn serves both, on the app's own asyncio loop, with
HTTP/2 flow control and trailers (chosen by measurement: README,
"Performance").
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursor_byok.transport.http.connection_limits import ConnectionLimits
from cursor_byok.transport.http.one_port import OnePort

if TYPE_CHECKING:
    from hypercorn.config import Config

SHUTDOWN_GRACE_S = 10
"""How long a shutdown waits for open connections after ending their streams."""
KEEPALIVE_TIMEOUT_S = 5
"""An idle connection (no request in flight) is closed after this long."""
MAX_REQUESTS_PER_CONNECTION = 1000
"""Requests one HTTP/2 connection serves (hypercorn's and nginx's default).
The last is answered in full, and the server's GOAWAY sends the client's
next request to a new connection, which a balancer in front may place anew."""
MAX_CONCURRENT_STREAMS = 100
"""HTTP/2 streams open at once per connection: one per agent turn in
flight (and one per short call beside them), which for one client is a few;
a stream over it is refused on its own, and the client opens it later."""


@dataclass(frozen=True, slots=True)
class TLSFiles:
    cert: Path
    key: Path


def hypercorn_config(
    host: str,
    port: int,
    http2: bool = True,
    tls: TLSFiles | None = None,
    keepalive_timeout_s: int = KEEPALIVE_TIMEOUT_S,
    sock: socket.socket | None = None,
) -> Config:
    from hypercorn.config import Config  # noqa: PLC0415 (loaded when HTTP/2 or TLS needs it)

    from cursor_byok.transport.http import h2_guard  # noqa: PLC0415 (it loads hypercorn)

    h2_guard.install()
    config = Config()
    if sock is not None:
        config.bind = [f"fd://{sock.fileno()}"]
    else:
        config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.keep_alive_timeout = keepalive_timeout_s
    config.keep_alive_max_requests = MAX_REQUESTS_PER_CONNECTION
    config.loglevel = "WARNING"
    config.accesslog = None
    # No `server: hypercorn-h11` on every response: it names the stack to
    # anyone who asks, and h11 validates each response header three or four
    # times over (framing headers are set on a fresh copy each time).
    config.include_server_header = False
    config.graceful_timeout = SHUTDOWN_GRACE_S
    config.h2_max_concurrent_streams = MAX_CONCURRENT_STREAMS
    config.alpn_protocols = ["h2", "http/1.1"] if http2 else ["http/1.1"]
    if tls is not None:
        config.certfile = str(tls.cert)
        config.keyfile = str(tls.key)
    return config


class HttpServer:
    """Serves `app` until `stop()` (or SIGINT/SIGTERM when `signals`); runs
    `on_exit` first, so open streams end with a retryable error before the
    server stops accepting. `peer_allowed` judges each plain-text connection
    once, as it is accepted (see `peer_uid`); under TLS it is not made, and
    the access token guards the server instead."""

    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        http2: bool = True,
        tls: TLSFiles | None = None,
        signals: bool = False,
        keepalive_timeout_s: int = KEEPALIVE_TIMEOUT_S,
        sock: socket.socket | None = None,
        limits: ConnectionLimits | None = None,
        peer_allowed: Callable[[asyncio.BaseTransport], bool] | None = None,
    ) -> None:
        if tls is not None and peer_allowed is not None:
            raise ValueError("a peer check needs plain text: under TLS use an access token")
        self.app = app
        self.limits = limits or ConnectionLimits()
        self.peer_allowed = peer_allowed
        self.host = host
        self.port = port
        self.http2 = http2
        self.tls = tls
        self.sock = sock
        self.keepalive_timeout_s = keepalive_timeout_s
        self.signals = signals
        self.on_exit: Callable[[], None] | None = None
        self._stop = asyncio.Event()

    def config(self) -> Config:
        """hypercorn's config for this server (importing hypercorn)."""
        return hypercorn_config(
            self.host, self.port, self.http2, self.tls, self.keepalive_timeout_s, self.sock
        )

    def stop(self) -> None:
        if self._stop.is_set():
            return
        if self.on_exit is not None:
            self.on_exit()
        self._stop.set()

    async def serve(self) -> None:
        if self.signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, self.stop)
        try:
            await self.serve_one_port()
        finally:
            if self.signals:
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.remove_signal_handler(sig)

    async def serve_one_port(self) -> None:
        """Plain text: each connection to the stack made for its protocol.
        TLS: each connection to hypercorn once its handshake is done (ALPN
        picks the protocol then), counted from its accept as in plain text."""
        context = self.config().create_ssl_context() if self.tls is not None else None
        port = OnePort(
            self.app,
            self.config,
            self.keepalive_timeout_s,
            float(SHUTDOWN_GRACE_S),
            self.peer_allowed,
            self.limits,
            context,
        )
        await port.serve(self.sock, self.host, self.port, self._stop.wait)

    async def started(self, task: asyncio.Task[None]) -> bool:
        """Wait until the port accepts connections: True, or False when the
        server task ended first (it failed or was stopped)."""
        while not task.done():
            with contextlib.suppress(OSError):
                _reader, writer = await asyncio.open_connection(self.host, self.port)
                writer.close()
                return True
            await asyncio.sleep(0.01)
        return False


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port
