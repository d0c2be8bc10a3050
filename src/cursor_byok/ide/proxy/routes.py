"""The routing table: which Cursor requests this server answers.

Kept in one place because a Cursor update can move a path; every flow's route
is logged, and `ide status` shows whether the answered paths work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

ANSWERED_PATHS = frozenset(
    {
        # The agent turn over HTTP/1.1: the stream and the client's appends.
        "/agent.v1.AgentService/RunSSE",
        "/aiserver.v1.BidiService/BidiAppend",
        # The model picker: it must list the models this server serves.
        "/aiserver.v1.AiService/AvailableModels",
        "/agent.v1.AgentService/GetUsableModels",
        "/aiserver.v1.AiService/GetUsableModels",
        "/agent.v1.AgentService/GetDefaultModelForCli",
        "/aiserver.v1.AiService/GetDefaultModelForCli",
        # The chat's title, asked for under both services.
        "/agent.v1.AgentService/NameAgent",
        "/aiserver.v1.AiService/NameAgent",
    }
)
"""Everything else, login, settings sync and Cursor's own features included,
goes to Cursor unchanged."""

CURSOR_HOSTS = (r"^(.+\.)?cursor\.sh(:\d+)?$",)
"""Hosts whose TLS the proxy opens (regular expressions on `host:port`); the
traffic of every other host passes through as an opaque tunnel."""


class Route(StrEnum):
    LOCAL = "cursor-byok"
    """Answered by this server."""
    CURSOR = "cursor"
    """An intercepted Cursor host, forwarded to Cursor's own service."""
    OTHER = "other"
    """Plain HTTP to some other host, passed on as it is."""


@dataclass(frozen=True, slots=True)
class RoutingTable:
    hosts: tuple[re.Pattern[str], ...]

    @classmethod
    def of(cls, host_patterns: Iterable[str] = CURSOR_HOSTS) -> RoutingTable:
        return cls(tuple(re.compile(p, re.IGNORECASE) for p in host_patterns))

    def intercepts(self, host: str, port: int) -> bool:
        return any(p.search(f"{host}:{port}") for p in self.hosts)

    def route(self, host: str, port: int, path: str) -> Route:
        if not self.intercepts(host, port):
            return Route.OTHER
        return Route.LOCAL if path.split("?", 1)[0] in ANSWERED_PATHS else Route.CURSOR

    def patterns(self) -> Sequence[str]:
        return [p.pattern for p in self.hosts]


def check_patterns(patterns: Iterable[str]) -> list[str]:
    """Validates host patterns given on the command line; raises ValueError."""
    checked = []
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(f"invalid host pattern {pattern!r}: {error}") from None
        checked.append(pattern)
    return checked
