"""`cursor-byok serve` with another ASGI server or another upstream HTTP
client, for side-by-side measurement (bench/server.py --stacks/--clients).

    python bench/serve_as.py STACK CLIENT -- [cursor-byok arguments]

It runs the real command (`cursor_byok.cli.main`), the same service, store
and router; it swaps only the object that serves the ASGI app
(`transport.http.http_server.HttpServer`) or the one that sends provider
requests (`llm.http.make_client`).

Stacks: one-port (as shipped: uvicorn's httptools for HTTP/1.1 and hypercorn
for h2c on one port, asyncio), one-port-uvloop (that on uvloop's event
loop), hypercorn (hypercorn for both: h11/h2, the
stack shipped before), hypercorn-uvloop (that on uvloop's event loop),
uvicorn (h11, HTTP/1.1 only,
the stack shipped before `Run`), uvicorn-httptools (httptools, asyncio's
loop), uvicorn-fast (httptools, uvloop), granian
(Rust HTTP/1.1 and HTTP/2, asyncio app loop).
Clients: aiohttp (as shipped), httpx2 (the client shipped before; same
connection limit as aiohttp here, so only the library differs).
"""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import httpx2
from server import CLIENTS, STACKS

from cursor_byok.transport.http.http_server import HttpServer as ShippedServer


class _Served:
    """`transport.http.http_server.HttpServer`'s interface over another
    server: built with its arguments, `on_exit`, `serve()`, `started(task)`,
    `stop()`; SIGINT/SIGTERM stop it (ending open streams first)."""

    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        http2: bool = True,
        tls: Any = None,
        signals: bool = False,
        keepalive_timeout_s: int = 5,
        sock: socket.socket | None = None,
        peer_allowed: Any = None,  # the other stacks accept without the peer check
    ) -> None:
        self.app, self.host, self.port, self.sock = app, host, port, sock
        self.keepalive_timeout_s = keepalive_timeout_s
        self.on_exit: Callable[[], None] | None = None
        self._stop = asyncio.Event()

    async def started(self, task: asyncio.Task[None]) -> bool:
        return await ShippedServer.started(self, task)  # type: ignore[arg-type]

    def stop(self) -> None:
        if not self._stop.is_set():
            if self.on_exit is not None:
                self.on_exit()
            self._stop.set()

    def _release(self) -> None:
        """`serve` binds the port first (to report a port in use); granian
        binds it itself."""
        if self.sock is not None:
            self.sock.close()

    def _signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stop)


class HypercornServer(ShippedServer):
    """hypercorn alone on the port, HTTP/1.1 and HTTP/2 (the stack shipped
    before HTTP/1.1 went to httptools), as the server runs it under TLS."""

    async def serve_one_port(self) -> None:
        from hypercorn.asyncio import serve  # noqa: PLC0415

        await serve(self.app, self.config(), shutdown_trigger=self._stop.wait)


class UvicornServer(_Served):
    """uvicorn, HTTP/1.1 only (the stack shipped before HTTP/2)."""

    http = "h11"

    async def serve(self) -> None:
        import uvicorn  # noqa: PLC0415

        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="on",
            http=self.http,
            timeout_graceful_shutdown=10,
            timeout_keep_alive=self.keepalive_timeout_s,
        )
        server = uvicorn.Server(config)
        server.install_signal_handlers = False  # type: ignore[attr-defined]
        task = asyncio.create_task(server.serve(sockets=[self.sock] if self.sock else None))
        self._signals()
        await self._stop.wait()
        server.should_exit = True
        await task


class UvicornHttptoolsServer(UvicornServer):
    """uvicorn's httptools protocol on asyncio's own event loop."""

    http = "httptools"


class UvicornFastServer(UvicornHttptoolsServer):
    """httptools on uvloop."""


class GranianServer(_Served):
    async def serve(self) -> None:
        self._release()
        from granian.constants import HTTPModes, Interfaces  # noqa: PLC0415
        from granian.log import LogLevels  # noqa: PLC0415
        from granian.server.embed import Server  # noqa: PLC0415

        server = Server(
            self.app,
            address=self.host,
            port=self.port,
            interface=Interfaces.ASGI,
            http=HTTPModes.auto,
            log_level=LogLevels.warning,
            backlog=2048,
        )
        task = asyncio.create_task(server.serve())
        self._signals()
        await self._stop.wait()
        server.stop()
        await task


SERVERS: dict[str, type[Any]] = {
    "hypercorn": HypercornServer,
    "hypercorn-uvloop": HypercornServer,
    "uvicorn": UvicornServer,
    "uvicorn-httptools": UvicornHttptoolsServer,
    "uvicorn-fast": UvicornFastServer,
    "granian": GranianServer,
}


def use_stack(stack: str) -> None:
    from cursor_byok.transport.http import http_server  # noqa: PLC0415

    if stack in ("uvicorn-fast", "hypercorn-uvloop", "one-port-uvloop"):
        import uvloop  # noqa: PLC0415

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    if stack in SERVERS:
        http_server.HttpServer = SERVERS[stack]  # type: ignore[misc, assignment]


# -- httpx2 as the upstream client (shipped before aiohttp) ------------------------------


class _Httpx2Response:
    """`llm.http.HTTPResponse` over an httpx2 streaming response."""

    def __init__(self, response: httpx2.Response) -> None:
        self._response = response
        self.status = response.status_code
        self.headers: Mapping[str, str] = response.headers
        self._body = self.chunks()

    async def read(self) -> bytes:
        return await anext(self._body, b"")

    async def chunks(self) -> AsyncIterator[bytes]:
        from cursor_byok.llm.http import TransportError  # noqa: PLC0415
        from cursor_byok.llm.upstream_errors import UpstreamError  # noqa: PLC0415

        try:
            async for chunk in self._response.aiter_bytes():
                yield chunk
        except httpx2.HTTPError as error:
            raise TransportError(UpstreamError(str(error), retryable=True)) from error

    def on_arrival(self, arrived: Any) -> bool:
        """httpx2 offers no hook on its connection's reads: the reader reads."""
        return False

    def close(self) -> None:
        asyncio.get_running_loop().create_task(self._response.aclose())


class Httpx2Client:
    """`llm.http.HTTPClient` over httpx2, pooled and limited as it was shipped."""

    def __init__(self, **_: Any) -> None:
        from importlib.util import find_spec  # noqa: PLC0415

        self._client = httpx2.AsyncClient(
            http2=find_spec("h2") is not None,
            timeout=httpx2.Timeout(300.0, connect=5.0),
            limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=1000),
            follow_redirects=False,
        )

    async def send(self, request: Any) -> _Httpx2Response:
        from cursor_byok.llm.http import TransportError  # noqa: PLC0415
        from cursor_byok.llm.upstream_errors import UpstreamError  # noqa: PLC0415

        built = self._client.build_request(
            "POST", request.url, content=request.body, headers=dict(request.headers)
        )
        try:
            return _Httpx2Response(await self._client.send(built, stream=True))
        except httpx2.HTTPError as error:
            raise TransportError(UpstreamError(str(error), retryable=True)) from error

    async def aclose(self) -> None:
        await self._client.aclose()


def use_client(client: str) -> None:
    from cursor_byok.llm import http  # noqa: PLC0415

    if client == "httpx2":
        http.make_client = Httpx2Client  # type: ignore[assignment]


def main(argv: list[str]) -> int:
    stack, client, separator, *rest = argv
    if (
        stack not in (*STACKS, "default")
        or client not in (*CLIENTS, "default")
        or separator != "--"
    ):
        print(__doc__, file=sys.stderr)
        return 2
    use_stack(stack)
    use_client(client)
    from cursor_byok.cli.main import main as cli_main  # noqa: PLC0415

    return cli_main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
