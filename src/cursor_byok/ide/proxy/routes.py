"""The routing table: which Cursor requests this server answers.

Kept in one place because a Cursor update can move a path; every flow's route
is logged, and `ide status` shows whether the answered paths work.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

ANSWERED_PATHS = frozenset(
    {
        # The agent turn over HTTP/1.1: the stream and the client's appends.
        "/agent.v1.AgentService/RunSSE",
        "/aiserver.v1.BidiService/BidiAppend",
        # The agent turn over HTTP/2: one stream each way at once.
        "/agent.v1.AgentService/Run",
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

CURSOR_DOMAINS = ("cursor.sh",)
"""Domains whose TLS the proxy opens, each with its subdomains; the traffic of
every other host passes through as an opaque tunnel. Domain names, not
patterns: the proxy's CA may sign for these alone (its name constraints)."""

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def covers(domain: str, host: str) -> bool:
    """`host` is `domain` or one of its subdomains (as a DNS name constraint
    reads it: `cursor.sh` covers `api2.cursor.sh`, not `notcursor.sh`)."""
    host, domain = host.lower().rstrip("."), domain.lower().rstrip(".")
    return host == domain or host.endswith("." + domain)


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
    def of(cls, domains: Iterable[str] = CURSOR_DOMAINS) -> RoutingTable:
        patterns = (rf"^(.+\.)?{re.escape(domain)}(:\d+)?$" for domain in domains)
        return cls(tuple(re.compile(p, re.IGNORECASE) for p in patterns))

    def intercepts(self, host: str, port: int) -> bool:
        return any(p.search(f"{host}:{port}") for p in self.hosts)

    def route(self, host: str, port: int, path: str) -> Route:
        if not self.intercepts(host, port):
            return Route.OTHER
        return Route.LOCAL if path.split("?", 1)[0] in ANSWERED_PATHS else Route.CURSOR

    def patterns(self) -> Sequence[str]:
        """The table as mitmproxy's `allow_hosts` takes it: patterns on `host:port`."""
        return [p.pattern for p in self.hosts]


def check_domains(names: Iterable[str]) -> list[str]:
    """Validates domains given on the command line (lower-cased, no trailing
    dot); raises ValueError naming a bad one."""
    checked = []
    for name in names:
        domain = name.strip().lower().rstrip(".")
        try:
            ipaddress.ip_address(domain)
            is_address = True
        except ValueError:
            is_address = False
        labels = domain.split(".")
        if is_address or len(domain) > 253 or not all(_LABEL.match(x) for x in labels):
            raise ValueError(
                f"--intercept {name!r}: expected a domain name such as cursor.sh "
                "(its subdomains are included)"
            )
        checked.append(domain)
    return checked
