"""Who may use a server, decided before it listens, and the secrets this
installation makes for itself (real files in a temporary data folder)."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.config.access import MIN_TOKEN_CHARS, AccessError, decide
from cursor_byok.config.local_secret import (
    ACCESS_TOKEN,
    PROXY_PASSWORD,
    LocalSecretError,
    ensure_secret,
    proxy_auth,
    read_secret,
    secret_path,
)
from cursor_byok.config.secret import Secret
from cursor_byok.config.server import ServerConfig
from cursor_byok.transport.http.peer_uid import OwnUserOnly

POSIX = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
LONG = Secret("a" * MIN_TOKEN_CHARS)
TLS = (Path("cert.pem"), Path("key.pem"))


def own_user(_host: str) -> OwnUserOnly:
    """Linux, where the kernel names each peer's owner."""
    return OwnUserOnly()


def no_gate(_host: str) -> None:
    """macOS or Windows: no way to tell whose connection it is."""


@POSIX
def test_a_secret_is_made_once_readable_by_its_user_alone(tmp_path: Path) -> None:
    made = ensure_secret(ACCESS_TOKEN, tmp_path)
    path = secret_path(ACCESS_TOKEN, tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(made.reveal()) >= 40  # 256 random bits, URL-safe
    assert ensure_secret(ACCESS_TOKEN, tmp_path) == made == read_secret(ACCESS_TOKEN, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == [ACCESS_TOKEN]  # no partial file left
    assert ensure_secret(PROXY_PASSWORD, tmp_path) != made  # one secret a purpose
    assert proxy_auth(tmp_path) == f"cursor-byok:{read_secret(PROXY_PASSWORD, tmp_path).reveal()}"  # type: ignore[union-attr]


@POSIX
def test_a_secret_others_can_read_or_an_empty_one_is_refused(tmp_path: Path) -> None:
    ensure_secret(ACCESS_TOKEN, tmp_path)
    path = secret_path(ACCESS_TOKEN, tmp_path)
    path.chmod(0o640)
    with pytest.raises(LocalSecretError, match=rf"readable by other users .*chmod 600 {path}"):
        ensure_secret(ACCESS_TOKEN, tmp_path)
    path.write_text("\n")
    path.chmod(0o600)
    with pytest.raises(LocalSecretError, match="is empty; delete it"):
        read_secret(ACCESS_TOKEN, tmp_path)
    assert read_secret(PROXY_PASSWORD, tmp_path) is None  # absent: not made by reading


def test_loopback_on_linux_answers_its_own_user_without_a_token(tmp_path: Path) -> None:
    access = decide(ServerConfig(), "127.0.0.1", own_user, tmp_path)
    assert access.token is None and access.own_user_only is not None
    assert "only uid" in access.describe()
    assert list(tmp_path.iterdir()) == []  # no token made where none is needed


def test_loopback_elsewhere_asks_for_the_installations_token(tmp_path: Path) -> None:
    access = decide(ServerConfig(), "localhost", no_gate, tmp_path)
    assert access.own_user_only is None and access.token is not None
    assert access.token == read_secret(ACCESS_TOKEN, tmp_path)
    assert access.token_file == secret_path(ACCESS_TOKEN, tmp_path)
    assert str(access.token_file) in access.describe()
    assert access.token.reveal() not in access.describe()
    # TLS on loopback: hypercorn accepts those connections, so the token, even on Linux.
    with_tls = decide(replace(ServerConfig(), tls=TLS), "127.0.0.1", own_user, tmp_path)
    assert with_tls.own_user_only is None and with_tls.token == access.token


def test_a_configured_token_is_the_guard_on_loopback(tmp_path: Path) -> None:
    access = decide(replace(ServerConfig(), access_token=Secret("short")), "::1", own_user)
    assert access.token == Secret("short") and access.own_user_only is None


@pytest.mark.parametrize(
    ("server", "message"),
    [
        (ServerConfig(), r"refusing to listen on 0\.0\.0\.0 without an access token"),
        (
            ServerConfig(access_token=Secret("a" * (MIN_TOKEN_CHARS - 1)), tls=TLS),
            r"^server\.access_token \(or CURSOR_BYOK_TOKEN\) has 15 characters; off loopback "
            r"it needs at least 16",
        ),
        (
            ServerConfig(access_token=LONG),
            r"in clear text: .*set server\.tls_cert and server\.tls_key, or "
            r"server\.allow_cleartext = true",
        ),
    ],
    ids=["no-token", "short-token", "clear-text"],
)
def test_off_loopback_a_long_token_inside_tls_is_required(
    server: ServerConfig, message: str
) -> None:
    with pytest.raises(AccessError, match=message):
        decide(server, "0.0.0.0", own_user)


def test_off_loopback_tls_or_the_operators_word_for_it_will_do() -> None:
    with_tls = decide(ServerConfig(access_token=LONG, tls=TLS), "10.0.0.5", own_user)
    assert with_tls.token == LONG and with_tls.own_user_only is None
    behind_a_balancer = ServerConfig(access_token=LONG, allow_cleartext=True)
    assert decide(behind_a_balancer, "0.0.0.0", own_user).token == LONG
