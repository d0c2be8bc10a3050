"""How many connections the port holds open, in all and from one peer
address: one over a limit is refused as it is accepted (closed with a
reset, before a byte of it is read), so a client that opens connections
and never uses them holds at most its own share, and the rest of the port
stays for everyone else. A request's token is not known at that point: the
per-address limit is what keeps one address from taking every place."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

MAX_CONNECTIONS = 2048
MAX_CONNECTIONS_PER_PEER = 512
"""One address may hold a quarter of the connections: far more than a
client (or a team's proxy) opens, and the rest stays for everyone else."""


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """Open connections at most, in all and from one peer address."""

    total: int = MAX_CONNECTIONS
    per_peer: int = MAX_CONNECTIONS_PER_PEER


class ConnectionCount:
    """The connections open, in all and by peer address: one over a limit is
    refused as it is accepted, before a byte of it is read."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.total = 0
        self.by_peer: dict[str, int] = {}
        self.refused = 0

    def admit(self, peer: str) -> bool:
        held = self.by_peer.get(peer, 0)
        if self.total >= self.limits.total or held >= self.limits.per_peer:
            self.refused += 1
            return False
        self.total += 1
        self.by_peer[peer] = held + 1
        return True

    def release(self, peer: str) -> None:
        self.total -= 1
        left = self.by_peer[peer] - 1
        if left:
            self.by_peer[peer] = left
        else:
            del self.by_peer[peer]


def peer_of(transport: asyncio.BaseTransport) -> str:
    """The peer's address without its port (a Unix socket's is "")."""
    name = transport.get_extra_info("peername")
    return str(name[0]) if isinstance(name, tuple) and name else ""


def release_when_lost(protocol: asyncio.BaseProtocol, release: Callable[[], None]) -> None:
    """`release` once the connection `protocol` now serves is lost."""
    lost = protocol.connection_lost

    def connection_lost(exc: Exception | None) -> None:
        try:
            lost(exc)
        finally:
            release()

    protocol.connection_lost = connection_lost  # type: ignore[method-assign]
