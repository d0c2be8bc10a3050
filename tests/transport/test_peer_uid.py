"""Who is at the other end of a loopback connection, asked of the kernel
with real sockets: this process, a closed peer, and (as root) a child
process that became another user before it connected."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.http_server import HttpServer, TLSFiles
from cursor_byok.transport.http.peer_uid import REFUSED_BODY, OwnUserOnly, peer_owner
from tests.fakes import ScriptedLLM

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the kernel names socket owners on Linux"
)

NOBODY = 65534
AS_ROOT = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0, reason="becoming another user needs root"
)

AS_ANOTHER_USER = """
import os, socket, sys
host, port, uid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
request = sys.stdin.buffer.read()
host.encode("idna")  # loaded now: the new user may not read the interpreter's files
os.setgroups([])
os.setgid(uid)
os.setuid(uid)  # from here on, every socket this process makes is uid's
with socket.create_connection((host, port), timeout=10) as conn:
    conn.sendall(request)
    answer = b""
    while chunk := conn.recv(65536):
        answer += chunk
sys.stdout.buffer.write(answer)
"""


def exchange_as(uid: int, host: str, port: int, request: bytes) -> bytes:
    """What another user's process reads back for `request` (it connects,
    sends, reads to the end)."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", AS_ANOTHER_USER, host, str(port), str(uid)],
        input=request,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def models_request(host: str, port: int) -> bytes:
    return (
        f"POST /agent.v1.AgentService/GetUsableModels HTTP/1.1\r\nhost: {host}:{port}\r\n"
        "content-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}"
    ).encode()


@pytest.mark.parametrize(
    ("host", "family"), [("127.0.0.1", socket.AF_INET), ("::1", socket.AF_INET6)]
)
def test_the_owner_of_a_connection_from_this_process_is_this_user(
    host: str, family: socket.AddressFamily
) -> None:
    try:
        listener = socket.create_server((host, 0), family=family)
    except OSError:
        pytest.skip(f"no {host} here")
    with listener, socket.create_connection(listener.getsockname()[:2]):
        accepted, _ = listener.accept()
        with accepted:
            owner = peer_owner(accepted.getpeername(), accepted.getsockname())
    assert owner == os.geteuid()


def test_a_peer_that_closed_its_socket_has_no_owner() -> None:
    """A closed socket lingers in the kernel with no owner worth the name
    (time-wait reports uid 0, root's): it is never taken for this user."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
        with accepted:
            peer, local = accepted.getpeername(), accepted.getsockname()
            assert peer_owner(peer, local) == os.geteuid()
            client.close()
            assert peer_owner(peer, local) is None
            # No such socket at all: a port nobody connected from.
            assert peer_owner(("127.0.0.1", 1), local) is None


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_the_gate_knows_it_works_here(host: str) -> None:
    try:
        family = socket.getaddrinfo(host, 0)[0][0]
        socket.create_server((host, 0), family=family).close()
    except OSError:
        pytest.skip(f"no {host} here")
    assert OwnUserOnly().works(host)
    assert not OwnUserOnly(uid=os.geteuid() + 1).works(host)


def test_a_peer_check_is_refused_under_tls(tmp_path: Path) -> None:
    """hypercorn accepts TLS connections itself: a check there would never run."""
    files = TLSFiles(tmp_path / "c.pem", tmp_path / "k.pem")
    with pytest.raises(ValueError, match="needs plain text"):
        HttpServer(object(), "127.0.0.1", 1, tls=files, peer_allowed=OwnUserOnly())


@AS_ROOT
async def test_another_users_connection_is_refused_and_ours_served(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3")
    gate = OwnUserOnly()
    service = build_service(store, ScriptedLLM([]))
    try:
        async with serving(service, peer_allowed=gate) as url:
            port = int(url.rsplit(":", 1)[1])
            request = models_request("127.0.0.1", port)
            theirs = await _exchange(NOBODY, port, request)
            ours = await _exchange(os.geteuid(), port, request)
    finally:
        store.close()
    assert theirs.startswith(b"HTTP/1.1 403 ") and theirs.endswith(REFUSED_BODY)
    assert gate.refused == 1
    assert ours.startswith(b"HTTP/1.1 200 ")
    # The refused request never reached the app: one request counted, ours.
    counted = [
        line
        for line in service.metrics.render({}).decode().splitlines()
        if line.startswith("cursor_byok_requests_total{")
    ]
    assert counted == [
        'cursor_byok_requests_total{path="/agent.v1.AgentService/GetUsableModels",status="200"} 1.0'
    ]


async def _exchange(uid: int, port: int, request: bytes) -> bytes:
    import asyncio  # noqa: PLC0415

    return await asyncio.to_thread(exchange_as, uid, "127.0.0.1", port, request)
