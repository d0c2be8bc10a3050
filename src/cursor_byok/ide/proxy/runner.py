"""Runs mitmproxy (DumpMaster + our addon) on its own thread and event loop.

Its own loop keeps mitmproxy's loop-wide settings (an eager task factory,
an exception handler) away from the server's loop when both run in one
process; the two meet only over a loopback socket and a thread-safe counter.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mitmproxy import options
from mitmproxy.tools.dump import DumpMaster

from cursor_byok.ide.proxy import DEFAULT_PROXY_PORT
from cursor_byok.ide.proxy.addon import Router, Target
from cursor_byok.ide.proxy.ca import CAFiles
from cursor_byok.ide.proxy.routes import CURSOR_DOMAINS, Route, RoutingTable

START_TIMEOUT_S = 30.0

log = logging.getLogger("cursor_byok.ide.proxy")


class ProxyError(Exception):
    """The proxy could not start (port taken, bad option)."""


@dataclass(frozen=True, slots=True)
class ProxySettings:
    server_url: str
    ca: CAFiles
    listen_host: str = "127.0.0.1"
    listen_port: int = DEFAULT_PROXY_PORT
    hosts: tuple[str, ...] = CURSOR_DOMAINS
    """The intercepted domains (subdomains included); the CA must permit them."""
    access_token: str | None = None
    proxy_auth: str | None = None
    """`user:password` a client must send (Proxy-Authorization: Basic) before
    the proxy takes any request; None: none (tests only: the command always
    sets it, or any local account could use the proxy, and the server's
    token it adds)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Further mitmproxy options, e.g. `ssl_verify_upstream_trusted_ca`."""


def build_master(settings: ProxySettings, count: Callable[[Route], None] | None) -> DumpMaster:
    """The mitmproxy master for these settings; call it inside a running loop."""
    table = RoutingTable.of(settings.hosts)
    opts = options.Options(
        listen_host=settings.listen_host,
        listen_port=settings.listen_port,
        confdir=str(settings.ca.directory),
        allow_hosts=list(table.patterns()),  # any other host: an opaque tunnel
        http3=False,
        upstream_cert=False,  # the answered paths never open a connection to Cursor
    )
    master = DumpMaster(opts, with_termlog=False, with_dumper=False)
    # Options of built-in addons exist once the addons are loaded. No
    # onboarding web app: nothing but the routing addon answers requests.
    master.options.update(
        connection_strategy="lazy",
        onboarding=False,
        proxyauth=settings.proxy_auth,
        **settings.extra,
    )
    master.addons.add(
        Router(table, Target.parse(settings.server_url), settings.access_token, count)
    )
    return master


class ProxyThread:
    """mitmproxy on a background thread; `start` returns once it listens."""

    def __init__(
        self, settings: ProxySettings, count: Callable[[Route], None] | None = None
    ) -> None:
        self.settings = settings
        self.count = count
        self.address: tuple[str, int] | None = None
        self._master: DumpMaster | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="cursor-byok-proxy", daemon=True)

    def start(self) -> tuple[str, int]:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):
            raise ProxyError(f"the proxy did not start within {START_TIMEOUT_S:g} s")
        if self._error is not None or self.address is None:
            raise ProxyError(_explain(self._error, self.settings))
        return self.address

    def stop(self) -> None:
        if self._master is not None and self._loop is not None and self._thread.is_alive():
            closing = asyncio.run_coroutine_threadsafe(self._close(self._master), self._loop)
            closing.result(timeout=10)
        self._thread.join(timeout=10)

    @staticmethod
    async def _close(master: DumpMaster) -> None:
        # mitmproxy leaves its listening sockets to the garbage collector at
        # exit: close them first, then the connections, then end its loop.
        server = master.addons.get("proxyserver")
        if server is not None:
            await server.servers.update([])
            # End open client connections (Cursor keeps them alive) as a
            # client disconnect would, rather than as cancelled tasks at exit.
            for connection in list(server.connections.values()):
                client = connection.transports.get(connection.client)
                if client is not None and client.handler is not None:
                    client.handler.cancel("the proxy is stopping")
            for _ in range(100):
                if not server.connections:
                    break
                await asyncio.sleep(0.02)
        master.shutdown()

    def _listening(self, addresses: list[tuple[str, int]]) -> None:
        self.address = addresses[0] if addresses else None
        self._ready.set()

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:
            if self._ready.is_set():  # it had started: nobody waits to raise it
                log.exception("the proxy stopped")
            self._error = error
        finally:
            if self._master is not None:
                unhook_logging(self._master)
            self._ready.set()

    async def _serve(self) -> None:
        master = build_master(self.settings, self.count)
        master.addons.add(_Ready(master, self._listening))
        self._master = master
        self._loop = asyncio.get_running_loop()
        await master.run()


class _Ready:
    """Calls back with the listening addresses once mitmproxy runs."""

    def __init__(self, master: DumpMaster, ready: Callable[[list[tuple[str, int]]], None]) -> None:
        self.master = master
        self.ready = ready

    def running(self) -> None:
        server = self.master.addons.get("proxyserver")
        addresses = server.listen_addrs() if server is not None else []
        self.ready([(host, port) for host, port, *_ in addresses])


def unhook_logging(master: DumpMaster) -> None:
    """mitmproxy hooks the root logger; a master that died during startup
    leaves those hooks behind, pointing at its closed loop."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "master", None) is master:
            root.removeHandler(handler)
    check = master.addons.get("errorcheck")
    if check is not None:
        root.removeHandler(check.logger)


def _explain(error: BaseException | None, settings: ProxySettings) -> str:
    where = f"{settings.listen_host}:{settings.listen_port}"
    if isinstance(error, SystemExit) or error is None:
        return f"the proxy could not listen on {where} (is the port in use?)"
    return f"the proxy failed to start on {where}: {error}"
