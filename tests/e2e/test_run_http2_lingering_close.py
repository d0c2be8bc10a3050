"""A connection the server closes is closed lingering, on a real socket, read
by a plain blocking client frame by frame: after its GOAWAY the server ends
its side (FIN) and goes on reading what the client still sends, dropping
it, until the client ends its own side or `LINGER_CLOSE_S` have passed. A
socket closed with bytes unread is reset by the kernel, and a reset drops
what was still unsent, the GOAWAY that says which requests were processed
among them."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import hyperframe.frame
import pytest

from cursor_byok.transport.http import eager_read
from cursor_byok.transport.http.connection_limits import ConnectionLimits
from tests.e2e.test_run_http2_limits import KEEPALIVE_S, PREFACE, served

GOAWAY = 0x7
SETTINGS = 0x4
PINGS = 5
PING_GAP_S = 0.05


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        got = conn.recv(size - len(data))
        if not got:
            raise EOFError(f"the server ended its side after {len(data)} of {size} bytes")
        data += got
    return data


def _after_the_goaway(host: str, port: int, pause_s: float) -> tuple[bool, str | None]:
    """Connect, say nothing after the preface, read frames up to the server's
    idle GOAWAY, then to the end of its side; after `pause_s`, send PINGs a
    little apart. Whether the server's side ended right after its GOAWAY,
    and the error sending met (None: every PING was taken)."""
    with socket.create_connection((host, port), timeout=KEEPALIVE_S + 5) as conn:
        conn.sendall(PREFACE + hyperframe.frame.SettingsFrame(0).serialize())
        kind = -1
        while kind != GOAWAY:
            head = _exactly(conn, 9)
            kind = head[3]
            _exactly(conn, int.from_bytes(head[:3], "big"))
        ended = conn.recv(65536) == b""  # the FIN that follows the GOAWAY
        time.sleep(pause_s)
        try:
            for n in range(PINGS):
                conn.sendall(
                    hyperframe.frame.PingFrame(0, opaque_data=n.to_bytes(8, "big")).serialize()
                )
                time.sleep(PING_GAP_S)
        except (ConnectionResetError, BrokenPipeError) as error:
            return ended, type(error).__name__
        return ended, None


async def test_after_its_idle_goaway_the_server_reads_on_what_the_client_sends(
    tmp_path: Path,
) -> None:
    """A bare close would answer these PINGs with a reset (the second send
    fails); lingering, the server takes them all, and its side has ended
    right after the GOAWAY."""
    async with served(tmp_path) as server:
        ended, error = await asyncio.to_thread(_after_the_goaway, server.host, server.port, 0.0)
    assert ended, "the server's side did not end after its GOAWAY"
    assert error is None, f"the server reset the connection within its linger ({error})"


async def test_the_linger_ends_after_linger_close_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that never ends its side holds the connection no longer than
    `LINGER_CLOSE_S`: what it sends after that is refused with a reset."""
    monkeypatch.setattr(eager_read, "LINGER_CLOSE_S", 0.3)
    async with served(tmp_path) as server:
        ended, error = await asyncio.to_thread(_after_the_goaway, server.host, server.port, 0.8)
    assert ended
    assert error in {"ConnectionResetError", "BrokenPipeError"}


def _greeting(host: str, port: int) -> socket.socket | None:
    """A new connection if it is served (the server's SETTINGS come), None
    if it is refused at accept (closed or reset before a frame)."""
    conn = socket.create_connection((host, port), timeout=KEEPALIVE_S + 5)
    try:
        conn.sendall(PREFACE + hyperframe.frame.SettingsFrame(0).serialize())
        if _exactly(conn, 9)[3] == SETTINGS:
            return conn
    except (EOFError, ConnectionResetError):
        pass
    conn.close()
    return None


def _served(host: str, port: int, within_s: float = 10) -> tuple[socket.socket, float]:
    """The first connection the server serves, and how long that took (the
    place may be held meanwhile: the server's own start-up probe holds it
    for a moment)."""
    began = time.monotonic()
    while (conn := _greeting(host, port)) is None:
        assert time.monotonic() - began < within_s, "no connection was served"
        time.sleep(0.02)
    return conn, time.monotonic() - began


def _ends_its_side_then_connects_again(host: str, port: int) -> float:
    """After the idle GOAWAY, the client ends its side at once; how long it
    then takes until a new connection from the same address is served."""
    conn, _ = _served(host, port)
    with conn:
        while conn.recv(65536):  # up to the FIN after the GOAWAY
            pass
        conn.shutdown(socket.SHUT_WR)
        again, took = _served(host, port)
        again.close()
        return took


async def test_the_clients_end_ends_the_linger_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One connection a peer at most: the place a lingering connection holds
    is free as soon as the client ends its side, not `LINGER_CLOSE_S` later."""
    monkeypatch.setattr(eager_read, "LINGER_CLOSE_S", 5.0)
    limits = ConnectionLimits(total=8, per_peer=1)
    async with served(tmp_path, limits=limits) as server:
        took = await asyncio.to_thread(_ends_its_side_then_connects_again, server.host, server.port)
    assert took < 2.0, f"the place was free {took:.2f} s after the client's end"
