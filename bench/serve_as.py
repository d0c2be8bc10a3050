"""`cursor-byok serve` with another ASGI server or another upstream HTTP
client, for side-by-side measurement (bench/server.py --stacks/--clients).

    python bench/serve_as.py STACK CLIENT -- [cursor-byok arguments]

It runs the real command (`cursor_byok.cli.main`), the same service, store
and router; it swaps only the object that serves the ASGI app
(`transport.wire.app.GracefulServer`) or the one that sends provider requests
(`llm.http.make_client`).

Stacks: uvicorn (as shipped: h11, asyncio), uvicorn-fast (httptools, uvloop),
granian (Rust HTTP, asyncio app loop), hypercorn (h11/h2, asyncio).
Clients: httpx2 (as shipped), aiohttp.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import httpx2

STACKS = ("uvicorn", "uvicorn-fast", "granian", "hypercorn")
CLIENTS = ("httpx2", "aiohttp")


class _Served:
    """What `cli._run_server` needs of a server: built from a uvicorn.Config,
    `on_exit`, `serve()`; SIGINT/SIGTERM start the service's shutdown."""

    on_exit: Callable[[], None] | None = None

    def __init__(self, config: Any) -> None:
        self.app, self.host, self.port = config.app, config.host, config.port
        self._stop = asyncio.Event()

    def _signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self._exit)

    def _exit(self) -> None:
        if self.on_exit is not None:
            self.on_exit()
        self._stop.set()


class HypercornServer(_Served):
    async def serve(self) -> None:
        from hypercorn.asyncio import serve  # noqa: PLC0415
        from hypercorn.config import Config  # noqa: PLC0415

        config = Config()
        config.bind = [f"{self.host}:{self.port}"]
        config.loglevel = "WARNING"
        config.graceful_timeout = 10
        self._signals()
        await serve(self.app, config, shutdown_trigger=self._stop.wait)  # type: ignore[arg-type]


class GranianServer(_Served):
    async def serve(self) -> None:
        from granian.constants import Interfaces  # noqa: PLC0415
        from granian.log import LogLevels  # noqa: PLC0415
        from granian.server.embed import Server  # noqa: PLC0415

        server = Server(self.app, address=self.host, port=self.port, interface=Interfaces.ASGI,
                        log_level=LogLevels.warning, backlog=2048)  # fmt: skip
        task = asyncio.create_task(server.serve())
        self._signals()
        await self._stop.wait()
        server.stop()
        await task


def use_stack(stack: str) -> None:
    from cursor_byok.transport.wire import app  # noqa: PLC0415

    if stack == "uvicorn-fast":
        import uvloop  # noqa: PLC0415

        shipped = app.uvicorn_config

        def fast(service: Any, host: str, port: int) -> Any:
            config = shipped(service, host, port)
            config.http, config.loop = "httptools", "uvloop"
            return config

        app.uvicorn_config = fast  # type: ignore[assignment]
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    elif stack == "granian":
        app.GracefulServer = GranianServer  # type: ignore[assignment, misc]
    elif stack == "hypercorn":
        app.GracefulServer = HypercornServer  # type: ignore[assignment, misc]


# -- aiohttp as the upstream client ----------------------------------------------------


class _AiohttpResponse:
    """The part of httpx2.Response that `llm.stream.SSEResponseStream` reads."""

    def __init__(self, response: Any) -> None:
        self._response = response
        self.status_code: int = response.status
        self.headers: Mapping[str, str] = {k.lower(): v for k, v in response.headers.items()}

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        import aiohttp  # noqa: PLC0415

        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except aiohttp.ClientError as error:
            raise httpx2.ReadError(str(error)) from error

    async def aclose(self) -> None:
        self._response.release()


class AiohttpClient(httpx2.AsyncClient):
    """Requests are still built by httpx2 (the adapters' `build_request`);
    aiohttp sends them and reads the body."""

    def __init__(self, base_url: str, **_: Any) -> None:
        super().__init__(base_url=base_url)
        self._session: Any = None

    async def send(self, request: httpx2.Request, **_: Any) -> Any:  # type: ignore[override]
        import aiohttp  # noqa: PLC0415

        if self._session is None:
            connector = aiohttp.TCPConnector(limit=1000, limit_per_host=1000)
            timeout = aiohttp.ClientTimeout(sock_connect=5, sock_read=300)
            self._session = aiohttp.ClientSession(connector=connector, timeout=timeout)
        try:
            response = await self._session.post(
                str(request.url), data=request.content, headers=dict(request.headers)
            )
        except aiohttp.ClientError as error:
            raise httpx2.ConnectError(str(error)) from error
        return _AiohttpResponse(response)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
        await super().aclose()


def use_client(client: str) -> None:
    from cursor_byok.llm import http  # noqa: PLC0415

    if client == "aiohttp":
        http.make_client = AiohttpClient  # type: ignore[assignment]


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
