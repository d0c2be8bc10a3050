"""Who reaches the real `cursor-byok serve`: on loopback another local user
is refused (Linux), or needs the installation's token (TLS on loopback,
macOS, Windows); off loopback a long token inside TLS, or the operator's
word that TLS ends in front."""

from __future__ import annotations

import os
import signal
import ssl
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import trustme

from cursor_byok.config.local_secret import ACCESS_TOKEN, read_secret
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.http.peer_uid import REFUSED_BODY
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.transport.test_peer_uid import AS_ROOT, NOBODY, exchange_as, models_request

MODELS = "/agent.v1.AgentService/GetUsableModels"
JSON = {"content-type": "application/json"}


def cursor_byok(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cursor_byok", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def start(argv: list[str], env: dict[str, str], port: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "cursor_byok", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_port(port, process)
    return process


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    return stderr


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return clean_env(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))


@pytest.fixture
def plain_server(
    tmp_path: Path, home: dict[str, str]
) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    port = free_port()
    database = str(tmp_path / "db.sqlite3")
    process = start(["serve", "--port", str(port), "--database", database], home, port)
    try:
        yield port, process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: the kernel says who")
def test_on_linux_loopback_needs_no_token_and_makes_none(
    plain_server: tuple[int, subprocess.Popen[str]], tmp_path: Path
) -> None:
    port, process = plain_server
    response = httpx2.post(f"http://127.0.0.1:{port}{MODELS}", content=b"{}", headers=JSON)
    assert response.status_code == 200
    stderr = stop(process)
    assert f"access: only uid {os.geteuid()} (this user) is answered on loopback" in stderr
    assert not (tmp_path / "data" / "cursor-byok" / ACCESS_TOKEN).exists()


@AS_ROOT
def test_another_local_user_cannot_use_a_loopback_server(
    plain_server: tuple[int, subprocess.Popen[str]],
) -> None:
    """With no token, any account on the machine could run turns on the
    owner's keys, resume conversations and cancel tool calls: its
    connections are now refused before a byte of their request is read."""
    port, process = plain_server
    request = models_request("127.0.0.1", port)
    theirs = exchange_as(NOBODY, "127.0.0.1", port, request)
    ours = exchange_as(os.geteuid(), "127.0.0.1", port, request)
    stderr = stop(process)
    assert theirs.startswith(b"HTTP/1.1 403 Forbidden") and theirs.endswith(REFUSED_BODY)
    assert ours.startswith(b"HTTP/1.1 200 OK")
    assert f"refused a loopback connection from uid {NOBODY}: only uid 0" in stderr


def test_with_tls_on_loopback_clients_send_the_installations_token(
    tmp_path: Path, home: dict[str, str]
) -> None:
    """Where the server cannot tell whose connection it is (hypercorn
    accepts TLS connections; macOS and Windows have no such lookup), it asks
    for a token made on first start, which `cursor-byok token` prints."""
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.cert_chain_pems[0].write_to_path(cert)
    issued.private_key_pem.write_to_path(key)
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[server]\nport = {port}\ndatabase = "{tmp_path / "db.sqlite3"}"\n'
        f'tls_cert = "{cert}"\ntls_key = "{key}"\n'
    )
    process = start(["--config", str(config), "serve"], home, port)
    trust = ssl.create_default_context()
    authority.configure_trust(trust)
    url = f"https://127.0.0.1:{port}{MODELS}"
    try:
        anonymous = httpx2.post(url, content=b"{}", headers=JSON, verify=trust)
        printed = cursor_byok("token", env=home)
        token = printed.stdout.strip()
        bearer = {**JSON, "authorization": f"Bearer {token}"}
        answered = httpx2.post(url, content=b"{}", headers=bearer, verify=trust)
    finally:
        stderr = stop(process)
    assert anonymous.status_code == 401
    assert printed.returncode == 0 and answered.status_code == 200
    token_file = tmp_path / "data" / "cursor-byok" / ACCESS_TOKEN
    assert read_secret(ACCESS_TOKEN, token_file.parent) is not None
    assert token == read_secret(ACCESS_TOKEN, token_file.parent).reveal()  # type: ignore[union-attr]
    if os.name == "posix":
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert f"clients send the token in {token_file}" in stderr
    assert token not in stderr


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (
            "s3cret",
            "server.access_token (or CURSOR_BYOK_TOKEN) has 6 characters; off loopback it "
            "needs at least 16",
        ),
        (
            "a-long-enough-token-0123456789",
            "refusing to listen on 0.0.0.0 in clear text: the access token would cross the "
            "network readable; set server.tls_cert and server.tls_key, or "
            "server.allow_cleartext = true",
        ),
    ],
    ids=["short-token", "clear-text"],
)
def test_off_loopback_serve_refuses_a_short_token_or_clear_text(
    tmp_path: Path, home: dict[str, str], token: str, expected: str
) -> None:
    database = str(tmp_path / "db.sqlite3")
    done = cursor_byok(
        "serve",
        "--host",
        "0.0.0.0",
        "--database",
        database,
        env={**home, "CURSOR_BYOK_TOKEN": token},
    )
    assert done.returncode == 2
    assert expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert token not in done.stderr
    assert not Path(database).exists()  # refused before anything was opened
