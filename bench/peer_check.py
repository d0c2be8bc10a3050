"""What the loopback peer check costs (Linux): a server on 127.0.0.1 with no
token serves only its own user, asking the kernel who owns each accepted
connection's peer socket (`transport/http/peer_uid.py`).

Prints, from one run on this machine (medians of alternating rounds):
  lookup_us = X               one `peer_owner` call (netlink sock_diag)
  proc_scan_us = X            the other way: finding the socket in /proc/net/tcp
  lookup_us[+1000] = X, proc_scan_us[+1000] = X
                              the same with 1,000 more loopback sockets open
  gate_us = X                 the whole check on a live asyncio transport
  connection_us[gated] = X, connection_us[open] = X
                              connect, GET /healthz, read the reply, close,
                              against the real server with and without the check
                              (their difference is within the noise of a busy machine)
  check_share = X             gate_us / connection_us[open]: its share of a connection
Requests on a connection already checked pay nothing: the check runs once,
when the connection is accepted.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.peer_uid import Address, OwnUserOnly, peer_owner

LOOKUPS = 5_000
ROUNDS = 9
CONNECTIONS = 200


def proc_scan(peer: Address, local: Address) -> int | None:
    """The uid of the socket `peer` -> `local` from /proc/net/tcp (IPv4)."""
    want = (_proc_address(peer), _proc_address(local))
    with open("/proc/net/tcp", encoding="ascii") as table:
        next(table)
        for line in table:
            fields = line.split()
            if (fields[1], fields[2]) == want:
                return int(fields[7])
    return None


def _proc_address(address: Address) -> str:
    packed = socket.inet_aton(address[0])
    return f"{int.from_bytes(packed, 'little'):08X}:{address[1]:04X}"


def per_call_us(
    lookup: Callable[[Address, Address], int | None], peer: Address, local: Address
) -> float:
    began = time.perf_counter()
    for _ in range(LOOKUPS):
        lookup(peer, local)
    return (time.perf_counter() - began) / LOOKUPS * 1e6


def lookups(extra: int) -> tuple[float, float]:
    """Medians of both lookups on a live connection, with `extra` more sockets open."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        held: list[socket.socket] = []
        try:
            for _ in range(extra // 2):
                held.append(socket.create_connection(listener.getsockname()))
                held.append(listener.accept()[0])
            client = socket.create_connection(listener.getsockname())
            accepted, _ = listener.accept()
            with client, accepted:
                peer, local = accepted.getpeername(), accepted.getsockname()
                assert peer_owner(peer, local) == proc_scan(peer, local) is not None
                ours, theirs = [], []
                for _ in range(ROUNDS):
                    ours.append(per_call_us(peer_owner, peer, local))
                    theirs.append(per_call_us(proc_scan, peer, local))
        finally:
            for sock in held:
                sock.close()
    return statistics.median(ours), statistics.median(theirs)


async def connections_us(port: int) -> float:
    request = f"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n\r\n"
    began = time.perf_counter()
    for _ in range(CONNECTIONS):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request.encode())
        reply = await reader.read()  # to the server's close
        assert reply.startswith(b"HTTP/1.1 200"), reply
        writer.close()
        await writer.wait_closed()
    return (time.perf_counter() - began) / CONNECTIONS * 1e6


async def gate_us(port: int) -> float:
    """One call of the gate on a live asyncio transport, as the server makes
    it (here on the client's end: its peer, the server's socket, is ours too)."""
    gate = OwnUserOnly()
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        transport = writer.transport
        assert gate(transport)
        began = time.perf_counter()
        for _ in range(LOOKUPS):
            gate(transport)
        return (time.perf_counter() - began) / LOOKUPS * 1e6
    finally:
        writer.close()
        await writer.wait_closed()


async def served() -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as folder:
        router = Router(load_config(None, env={}), env={})
        stores = [SQLiteStore(Path(folder) / f"{name}.sqlite3") for name in ("gated", "open")]
        gate = OwnUserOnly()
        gated_service, open_service = (build_service(store, router) for store in stores)
        try:
            async with (
                serving(gated_service, peer_allowed=gate) as gated,
                serving(open_service) as open_,
            ):
                ports = [int(url.rsplit(":", 1)[1]) for url in (gated, open_)]
                for port in ports:  # warm-up, not counted
                    await connections_us(port)
                gate_call = statistics.median([await gate_us(ports[1]) for _ in range(ROUNDS)])
                timed: dict[int, list[float]] = {port: [] for port in ports}
                for round_ in range(ROUNDS):  # which goes first alternates too
                    for port in ports if round_ % 2 else ports[::-1]:
                        timed[port].append(await connections_us(port))
        finally:
            await router.aclose()
            for store in stores:
                store.close()
        assert gate.refused == 0
        gated_us, open_us = (statistics.median(timed[port]) for port in ports)
        return gate_call, gated_us, open_us


def main() -> None:
    if not sys.platform.startswith("linux"):
        print("the peer check runs on Linux only")
        return
    lookup, scan = lookups(0)
    lookup_busy, scan_busy = lookups(1000)
    print(f"lookup_us = {lookup:.1f}")
    print(f"proc_scan_us = {scan:.1f}")
    print(f"lookup_us[+1000] = {lookup_busy:.1f}, proc_scan_us[+1000] = {scan_busy:.1f}")
    gate_call, gated, open_ = asyncio.run(served())
    print(f"gate_us = {gate_call:.1f}")
    print(f"connection_us[gated] = {gated:.0f}, connection_us[open] = {open_:.0f}")
    print(f"check_share = {gate_call / open_:.3f}")


if __name__ == "__main__":
    main()
