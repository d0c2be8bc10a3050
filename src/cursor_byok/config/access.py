"""Who may use a server, decided before it listens.

- Off loopback: clients send the access token, which must be long enough
  to resist guessing, and cross the network inside TLS (the server's own,
  or a proxy's in front of it, which the operator says with
  `allow_cleartext`).
- On loopback with a token configured: the token.
- On loopback with none, on Linux: only the user running the server; the
  kernel names the owner of each connection's peer socket (`peer_uid`).
- Elsewhere (macOS, Windows, TLS on loopback, a kernel that does not say):
  a token this installation makes for itself, in a file only its user can
  read, which this user's clients read from there (`cursor-byok token`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cursor_byok.config.guards import is_loopback_host
from cursor_byok.config.local_secret import ACCESS_TOKEN, ensure_secret, secret_path
from cursor_byok.config.secret import Secret
from cursor_byok.config.server import ServerConfig
from cursor_byok.transport.http.peer_uid import OwnUserOnly

MIN_TOKEN_CHARS = 16
"""Off loopback, a shorter token could be guessed by whoever can reach the port."""


class AccessError(Exception):
    """The server must not start as configured: one line naming the setting."""


@dataclass(frozen=True, slots=True)
class Access:
    token: Secret | None
    """What clients send as `Authorization: Bearer`; None: no token."""
    own_user_only: OwnUserOnly | None = None
    """The per-connection gate of a loopback server with no token (Linux)."""
    token_file: Path | None = None
    """Where the token lives when the installation made it."""

    def describe(self) -> str:
        """For the start-up log line: who is answered (never the token)."""
        if self.own_user_only is not None:
            return f"only uid {self.own_user_only.uid} (this user) is answered on loopback"
        if self.token_file is not None:
            return (
                f"clients send the token in {self.token_file} ('cursor-byok token' prints it; "
                "cursor-agent takes it as CURSOR_AUTH_TOKEN)"
            )
        return "clients send the access token"


def linux_gate(host: str) -> OwnUserOnly | None:
    """The own-user gate where the kernel can name each peer's owner."""
    if not sys.platform.startswith("linux"):
        return None
    gate = OwnUserOnly()
    return gate if gate.works(host) else None


def decide(
    server: ServerConfig,
    host: str,
    gate: Callable[[str], OwnUserOnly | None] = linux_gate,
    secrets_dir: Path | None = None,
) -> Access:
    """How a server on `host` is guarded; AccessError when it must not start.
    `gate` and `secrets_dir` stand for the platform and the user's data folder."""
    token = server.access_token
    if not is_loopback_host(host):
        if token is None:
            raise AccessError(
                f"refusing to listen on {host} without an access token; set CURSOR_BYOK_TOKEN "
                "(or server.access_token) and have clients send 'Authorization: Bearer <token>'"
            )
        if len(token.reveal()) < MIN_TOKEN_CHARS:
            raise AccessError(
                f"server.access_token (or CURSOR_BYOK_TOKEN) has {len(token.reveal())} "
                f"characters; off loopback it needs at least {MIN_TOKEN_CHARS} (make one with "
                "python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
            )
        if server.tls is None and not server.allow_cleartext:
            raise AccessError(
                f"refusing to listen on {host} in clear text: the access token would cross the "
                "network readable; set server.tls_cert and server.tls_key, or "
                "server.allow_cleartext = true when TLS ends at a proxy or load balancer in front"
            )
        return Access(token)
    if token is not None:
        return Access(token)
    if server.tls is None and (own := gate(host)) is not None:
        return Access(None, own)
    token_file = secret_path(ACCESS_TOKEN, secrets_dir)
    return Access(ensure_secret(ACCESS_TOKEN, secrets_dir), None, token_file)
