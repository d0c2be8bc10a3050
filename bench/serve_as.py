"""`cursor-byok serve` with another ASGI server or another upstream HTTP
client, for side-by-side measurement (bench/server.py --stacks/--clients).

    python bench/serve_as.py STACK CLIENT -- [cursor-byok arguments]

It runs the real command (`cursor_byok.cli.main`), the same service, store
and router; it swaps only the object that serves the ASGI app
(`transport.wire.app.GracefulServer`) or the one that sends provider requests
(`llm.http.make_client`).

Stacks: uvicorn (as shipped: h11, asyncio), uvicorn-fast (httptools, uvloop;
without the shipped h11 protocol's request-head deadline),
granian (Rust HTTP, asyncio app loop), hypercorn (h11/h2, asyncio).
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

STACKS = ("uvicorn", "uvicorn-fast", "granian", "hypercorn")
CLIENTS = ("aiohttp", "httpx2")


class _Served:
    """What `cli._run_server` needs of a server: built from a uvicorn.Config,
    `on_exit`, `serve()`; SIGINT/SIGTERM start the service's shutdown."""

    on_exit: Callable[[], None] | None = None
    started = False
    """Set once serving begins (the caller waits for it, as for uvicorn's)."""

    def __init__(self, config: Any) -> None:
        self.app, self.host, self.port = config.app, config.host, config.port
        self._stop = asyncio.Event()

    @property
    def should_exit(self) -> bool:
        return self._stop.is_set()

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        if value:
            self._stop.set()

    @staticmethod
    def _release(sockets: list[socket.socket] | None) -> None:
        """`serve` binds the port first (to report a port in use); these
        servers bind it themselves."""
        for sock in sockets or ():
            sock.close()

    def _signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self._exit)

    def _exit(self) -> None:
        if self.on_exit is not None:
            self.on_exit()
        self._stop.set()


class HypercornServer(_Served):
    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._release(sockets)
        from hypercorn.asyncio import serve  # noqa: PLC0415
        from hypercorn.config import Config  # noqa: PLC0415

        config = Config()
        config.bind = [f"{self.host}:{self.port}"]
        config.loglevel = "WARNING"
        config.graceful_timeout = 10
        self._signals()
        self.started = True
        await serve(self.app, config, shutdown_trigger=self._stop.wait)  # type: ignore[arg-type]


class GranianServer(_Served):
    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._release(sockets)
        from granian.constants import Interfaces  # noqa: PLC0415
        from granian.log import LogLevels  # noqa: PLC0415
        from granian.server.embed import Server  # noqa: PLC0415

        server = Server(
            self.app,
            address=self.host,
            port=self.port,
            interface=Interfaces.ASGI,
            log_level=LogLevels.warning,
            backlog=2048,
        )
        task = asyncio.create_task(server.serve())
        self._signals()
        self.started = True
        await self._stop.wait()
        server.stop()
        await task


def use_stack(stack: str) -> None:
    from cursor_byok.transport.wire import app  # noqa: PLC0415

    if stack == "uvicorn-fast":
        import uvloop  # noqa: PLC0415

        shipped = app.uvicorn_config

        def fast(*args: Any, **kwargs: Any) -> Any:
            config = shipped(*args, **kwargs)
            config.http, config.loop = "httptools", "uvloop"
            return config

        app.uvicorn_config = fast  # type: ignore[assignment]
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    elif stack == "granian":
        app.GracefulServer = GranianServer  # type: ignore[assignment, misc]
    elif stack == "hypercorn":
        app.GracefulServer = HypercornServer  # type: ignore[assignment, misc]


# -- httpx2 as the upstream client (shipped before aiohttp) ------------------------------


class _Httpx2Response:
    """`llm.http.HTTPResponse` over an httpx2 streaming response."""

    def __init__(self, response: httpx2.Response) -> None:
        self._response = response
        self.status = response.status_code
        self.headers: Mapping[str, str] = response.headers

    async def chunks(self) -> AsyncIterator[bytes]:
        from cursor_byok.llm.http import TransportError, UpstreamError  # noqa: PLC0415

        try:
            async for chunk in self._response.aiter_bytes():
                yield chunk
        except httpx2.HTTPError as error:
            raise TransportError(UpstreamError(str(error), retryable=True)) from error

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
        from cursor_byok.llm.http import TransportError, UpstreamError  # noqa: PLC0415

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
    from cursor_byok.cli import main as cli_main  # noqa: PLC0415

    return cli_main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
