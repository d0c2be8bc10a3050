"""Real HTTP servers on loopback for the web tests: an aiohttp application
on 127.0.0.x, counting the requests it got, and a DNS edge that answers
from a table (the one place the tests fake: names must resolve to
loopback while the fetch believes they are elsewhere)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from cursor_byok.runtime.web.addresses import PrivateHosts
from cursor_byok.runtime.web.limits import FetchLimits

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Site:
    """One server; `hits` lists the paths it was asked for. A route is a
    path (GET) or "POST /path"."""

    def __init__(self, routes: Mapping[str, Handler]) -> None:
        self.hits: list[str] = []
        self.app = web.Application()
        for route, handler in routes.items():
            method, _, path = route.rpartition(" ")
            self.app.router.add_route(method or "GET", path, self._counted(handler))
        self._runner = web.AppRunner(self.app, handle_signals=False, shutdown_timeout=0.1)
        self.port = 0

    def _counted(self, handler: Handler) -> Handler:
        async def counted(request: web.Request) -> web.StreamResponse:
            self.hits.append(request.path_qs)
            return await handler(request)

        return counted

    async def start(
        self, host: str = "127.0.0.1", port: int = 0, tls: ssl.SSLContext | None = None
    ) -> Site:
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, ssl_context=tls)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    def url(self, path: str = "/", host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    async def stop(self) -> None:
        await self._runner.cleanup()


@dataclass
class FakeDNS:
    """Name -> the answers it gives, one per look-up (the last repeats)."""

    answers: dict[str, list[list[str]]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    async def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        replies = self.answers.get(host)
        if not replies:
            raise OSError(-2, "Name or service not known")
        return replies.pop(0) if len(replies) > 1 else replies[0]


def loopback_allowed(entries: Iterable[str] = ("127.0.0.1",), **limits: Any) -> FetchLimits:
    """Limits under which the test servers on 127.0.0.1 count as reachable:
    the allow-list opens that one address, as a team opens its intranet.
    The default policy stays what it is."""
    return FetchLimits(private_hosts=PrivateHosts.parse(entries), **limits)


class RawSite:
    """A server that answers every connection with the same bytes and
    closes it: for answers aiohttp's server would not send (no
    Content-Type at all)."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.server: asyncio.Server | None = None
        self.port = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(self.answer)
        await writer.drain()
        writer.close()

    async def start(self) -> RawSite:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def untyped(body: bytes) -> bytes:
    """An HTTP/1.1 answer with a body and no Content-Type."""
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body
