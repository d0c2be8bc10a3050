"""The `[server]` table: where to listen, what to store where, and the limits
a client or an upstream is held to. Apart from config/settings.py so each stays short."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import platformdirs

from cursor_byok.config.guards import TOO_SHORT, too_short
from cursor_byok.config.reader import Locator, no_leftovers, or_default, positive, take
from cursor_byok.config.secret import Secret
from cursor_byok.store.database import PostgresURL, parse_database

APP_NAME = "cursor-byok"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8417
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
_TIMEOUTS = (
    "body_timeout_s",
    "keepalive_timeout_s",
    "stall_timeout_s",
    "retry_budget_s",
    "lease_s",
    "question_wait_s",
    "approval_wait_s",
)
_COUNTS = ("max_connections", "max_connections_per_peer")
_SIZES = ("max_body_bytes", "max_append_bytes", "request_memory_bytes", "memory_budget_bytes")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    database: Path | PostgresURL = field(
        default_factory=lambda: Path(platformdirs.user_data_dir(APP_NAME)) / "state.sqlite3"
    )
    access_token: Secret | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_append_bytes: int = 32 * 1024 * 1024
    """An append may carry a whole tool result (a 6 MiB one is 12 MiB as hex)."""
    request_memory_bytes: int = 64 * 1024 * 1024
    """What one request id may make the server hold (appends buffered out of order)."""
    memory_budget_bytes: int = 512 * 1024 * 1024
    """What all clients together may make the server hold; past it the oldest idle goes."""
    durability: Literal["full", "normal"] = "full"
    """"full" survives power loss; "normal" survives a crash of the process and
    commits several times faster under load (SQLite `synchronous=NORMAL`,
    PostgreSQL `synchronous_commit=off`)."""
    http2: bool = True  # `Run` over HTTP/2 (h2c, or h2 by ALPN); false: HTTP/1.1 only
    tls: tuple[Path, Path] | None = None  # certificate and key: TLS on the same port
    allow_cleartext: bool = False
    """Off loopback, serve plain HTTP anyway (TLS ends at a proxy in front)."""
    body_timeout_s: float = 30.0
    """A request's head, then its body, must each arrive within this long."""
    keepalive_timeout_s: int = 5
    max_connections: int = 2048
    """Connections open at once; one over it is refused as it is accepted."""
    max_connections_per_peer: int = 512
    """Connections open at once from one address (a team's proxy is one)."""
    allowed_hosts: tuple[str, ...] = ()
    """Extra `Host` names a loopback-bound server answers (e.g. a local proxy's)."""
    metrics_public: bool = False
    stall_timeout_s: float = 300.0
    retry_budget_s: float = 30.0
    """The most a model call waits across its retries; a longer retry-after ends the turn."""
    lease_s: float = 10.0
    """On a shared (PostgreSQL) database: how long a conversation stays its
    process's after the last renewal, the longest a dead owner's turn waits
    to continue in another process."""
    question_wait_s: float = 30 * 60.0
    """How long a question to the user (AskQuestion) waits for an answer;
    then the model is told none came and the turn goes on."""
    approval_wait_s: float = 5 * 60.0
    """How long a request for the user's approval (a mode switch, a plan) waits."""
    compact_at: float = 0.9
    """Compact a conversation when its next request would fill more than this
    share of the model's context window."""


def parse_location(text: str) -> Path | PostgresURL:
    """`server.database` or `--database`: `parse_database`, and a password
    too short to be cut out of logs refused (ValueError)."""
    location = parse_database(text)
    if isinstance(location, PostgresURL) and too_short(location.secrets):
        raise ValueError(f"the password is {TOO_SHORT}")
    return location


def parse_server(doc: dict[str, Any], where: Locator, env: Mapping[str, str]) -> ServerConfig:
    table = "server"
    host = take(doc, "host", str, where, table) or DEFAULT_HOST
    port = or_default(take(doc, "port", int, where, table), DEFAULT_PORT)
    if not 0 < port < 65536:
        raise where.error(table, "port", "must be between 1 and 65535")
    database = take(doc, "database", str, where, table)
    try:
        location = parse_location(database) if database else None
    except ValueError as error:
        raise where.error(table, "database", str(error)) from error
    token = take(doc, "access_token", str, where, table)
    if token and too_short([token]):
        raise where.error(table, "access_token", TOO_SHORT)
    durability = take(doc, "durability", str, where, table) or "full"
    if durability not in ("full", "normal"):
        raise where.error(table, "durability", 'must be "full" or "normal"')
    http2 = or_default(take(doc, "http2", bool, where, table), True)
    cert, key = (take(doc, name, str, where, table) for name in ("tls_cert", "tls_key"))
    if bool(cert) != bool(key):
        raise where.error(table, "tls_key" if cert else "tls_cert", "needs tls_cert and tls_key")
    compact_at = float(or_default(take(doc, "compact_at", (float, int), where, table), 0.9))
    if not 0 < compact_at <= 1:
        raise where.error(table, "compact_at", "must be a share above 0 and at most 1")
    defaults = ServerConfig()
    timeouts = {
        k: positive(doc, k, getattr(defaults, k), "seconds", where, table) for k in _TIMEOUTS
    }
    sizes = {k: positive(doc, k, getattr(defaults, k), "bytes", where, table) for k in _SIZES}
    counts = {
        k: positive(doc, k, getattr(defaults, k), "connections", where, table) for k in _COUNTS
    }
    if sizes["request_memory_bytes"] > sizes["memory_budget_bytes"]:
        raise where.error(table, "request_memory_bytes", "exceeds memory_budget_bytes")
    if counts["max_connections_per_peer"] > counts["max_connections"]:
        raise where.error(table, "max_connections_per_peer", "exceeds max_connections")
    hosts = take(doc, "allowed_hosts", list, where, table) or []
    if not all(isinstance(name, str) and name.strip() for name in hosts):
        raise where.error(table, "allowed_hosts", "must be a list of host names")
    metrics_public = bool(take(doc, "metrics_public", bool, where, table))
    allow_cleartext = bool(take(doc, "allow_cleartext", bool, where, table))
    no_leftovers(doc, where, table)
    return ServerConfig(
        host=host,
        port=port,
        database=location or defaults.database,
        access_token=Secret(token) if token else None,
        durability=cast(Literal["full", "normal"], durability),
        http2=http2,
        tls=(Path(cert).expanduser(), Path(key).expanduser()) if cert and key else None,
        allow_cleartext=allow_cleartext,
        allowed_hosts=tuple(hosts),
        metrics_public=metrics_public,
        **timeouts,
        compact_at=compact_at,
        **sizes,
        **counts,
    )
