"""The proxy's flow counter, on the server's `/metrics` when both share a process."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter

from cursor_byok.ide.proxy.routes import Route


def count_flows(registry: CollectorRegistry) -> Callable[[Route], None]:
    """A thread-safe callback for the addon (it runs on the proxy's thread)."""
    counter = Counter(
        "cursor_byok_proxy_flows",
        "Flows through `cursor-byok proxy` by destination: cursor-byok (answered here), "
        "cursor (Cursor's own service), other (plain HTTP to other hosts)",
        ["destination"],
        registry=registry,
    )
    for route in Route:
        counter.labels(route.value)  # every destination shows, at 0 until used

    def count(route: Route) -> None:
        counter.labels(route.value).inc()

    return count
