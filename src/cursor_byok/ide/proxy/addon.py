"""The mitmproxy addon: picks each flow's destination, streams it, reports it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from mitmproxy import http
from mitmproxy.proxy import server_hooks

from cursor_byok.ide.proxy.routes import Route, RoutingTable
from cursor_byok.runtime.observe import logfmt

log = logging.getLogger("cursor_byok.ide.proxy")

ROUTE_KEY, STARTED_KEY, HOST_KEY = "cursor_byok_route", "cursor_byok_started", "cursor_byok_host"
PROXY_AUTH_REQUIRED = 407
REFUSAL_LOG_EVERY_S = 60.0


@dataclass(frozen=True, slots=True)
class Target:
    """Where the answered paths go: a cursor-byok server."""

    scheme: str
    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> Target:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"expected a server URL like http://127.0.0.1:8417, got {url!r}")
        if parts.path not in ("", "/"):
            raise ValueError(f"the server URL must have no path, got {url!r}")
        default = 443 if parts.scheme == "https" else 80
        return cls(parts.scheme, parts.hostname, parts.port or default)


class Router:
    """Sends the paths this server answers to it and every other request on
    unchanged. Every flow streams in both directions: a buffered RunSSE would
    show the turn only when it ended, and Cursor's own streams need the same."""

    def __init__(
        self,
        table: RoutingTable,
        target: Target,
        access_token: str | None = None,
        count: Callable[[Route], None] | None = None,
    ) -> None:
        self.table = table
        self.target = target
        self.access_token = access_token
        self.count = count
        self.refused = 0
        self._refusal_logged_at = -REFUSAL_LOG_EVERY_S

    def http_connect(self, flow: http.HTTPFlow) -> None:
        self._note_refusal(flow)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if self._note_refusal(flow):
            return  # answered by mitmproxy's proxyauth: routed nowhere
        request = flow.request
        route = self.table.route(request.pretty_host, request.port, request.path)
        flow.metadata[ROUTE_KEY] = route
        flow.metadata[STARTED_KEY] = time.monotonic()
        flow.metadata[HOST_KEY] = request.pretty_host
        request.stream = True
        if route is not Route.LOCAL:
            return
        # The user's Cursor session token is for Cursor; this server gets its own.
        request.headers.pop("authorization", None)
        if self.access_token:
            request.headers["authorization"] = f"Bearer {self.access_token}"
        request.scheme = self.target.scheme
        request.host = self.target.host
        request.port = self.target.port
        if request.http_version != "HTTP/1.1" and "content-length" not in request.headers:
            # To the server the proxy speaks HTTP/1.1 (`server_connect`): a
            # request body of unknown length, as an HTTP/2 `Run` stream's is,
            # goes up chunked, each piece as it comes, while the answer
            # streams down.
            request.headers["transfer-encoding"] = "chunked"

    def server_connect(self, data: server_hooks.ServerConnectionHookData) -> None:
        """To this server, HTTP/1.1 alone: mitmproxy's HTTP/2 upstream
        needs TLS, and a plain-text one is HTTP/1.1 anyway."""
        if data.server.address == (self.target.host, self.target.port):
            data.server.alpn_offers = (b"http/1.1",)

    def _note_refusal(self, flow: http.HTTPFlow) -> bool:
        """Whether the proxy refused the flow for want of its credentials
        (said in the log now and then: after an update, Cursor's `http.proxy`
        may still lack them)."""
        if flow.response is None or flow.response.status_code != PROXY_AUTH_REQUIRED:
            return False
        self.refused += 1
        now = time.monotonic()
        if now - self._refusal_logged_at >= REFUSAL_LOG_EVERY_S:
            self._refusal_logged_at = now
            log.warning(
                "the proxy refused a client without its credentials (%d so far); if it is "
                "Cursor, run 'cursor-byok ide setup' and restart Cursor",
                self.refused,
            )
        return True

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response is not None:
            flow.response.stream = True

    def response(self, flow: http.HTTPFlow) -> None:
        status = flow.response.status_code if flow.response is not None else ""
        self._report(flow, status=status)

    def error(self, flow: http.HTTPFlow) -> None:
        self._report(flow, status="", error=flow.error.msg if flow.error else "unknown")

    def _report(self, flow: http.HTTPFlow, **outcome: object) -> None:
        route = flow.metadata.get(ROUTE_KEY)
        if not isinstance(route, Route):
            return  # failed before its headers were read: no flow to report
        started = flow.metadata.get(STARTED_KEY, time.monotonic())
        log.info(
            logfmt(
                "proxy_flow",
                route=route.value,
                method=flow.request.method,
                host=flow.metadata.get(HOST_KEY, ""),
                path=flow.request.path.split("?", 1)[0],
                **outcome,
                duration_ms=round((time.monotonic() - started) * 1000),
            )
        )
        if self.count is not None:
            self.count(route)
