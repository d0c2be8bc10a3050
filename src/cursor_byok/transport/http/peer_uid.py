"""Who is at the other end of a loopback connection: the user owning the
peer's socket, as the Linux kernel reports it (sock_diag, what `ss -e` reads).

Every account on a machine can reach a server bound to loopback. With no
access token the server would run anyone's turns on its owner's keys, so on
Linux such a server answers only connections whose peer socket belongs to
its own user. The peer socket is looked up by its four addresses: one
netlink round trip per connection (about 8 us here, whatever the number of
sockets; bench/peer_check.py), where a scan of /proc/net/tcp grows with
every socket on the machine (0.5 to 3 ms here). Requests on a connection
already checked cost nothing more.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
NO_COOKIE = 0xFFFFFFFF
ALL_STATES = 0xFFFFFFFF
_HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, seq, pid
_REQUEST = struct.Struct("=BBBBI")  # inet_diag_req_v2 before its socket id
_PORTS = struct.Struct("!HH")  # inet_diag_sockid: source and destination port
_ID_TAIL = struct.Struct("=III")  # interface, cookie (two words)
_ANSWER = struct.Struct("=BBBB")  # inet_diag_msg: family, state, timer, retransmits
_OWNER = struct.Struct("=II")  # uid, inode: after expires, rqueue, wqueue
_ID_AT = _HEADER.size + _ANSWER.size
_OWNER_AT = _ID_AT + _PORTS.size + 32 + _ID_TAIL.size + 12
LOG_EVERY_S = 10.0
"""A refused peer that keeps trying is logged once in this long, with a count."""

REFUSED_BODY = (
    b"This cursor-byok server answers only the user who runs it. Run your own "
    b"(cursor-byok serve), or ask its owner to set an access token.\n"
)
REFUSED_REPLY = (
    b"HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(REFUSED_BODY), REFUSED_BODY)
)
"""What a refused connection reads before it is closed."""

Address = tuple[Any, ...]
"""A socket address as Python gives it: (host, port), or (host, port, flow, scope)."""


def peer_owner(peer: Address, local: Address) -> int | None:
    """The uid of the socket whose own address is `peer` and whose peer is
    `local`: None when the kernel knows no such socket that a process still
    holds (closed, or not on this machine), or cannot be asked. A netlink
    socket of its own each time: nothing to share with a forked worker."""
    family = socket.AF_INET6 if ":" in peer[0] else socket.AF_INET
    netlink_family = getattr(socket, "AF_NETLINK", None)
    if netlink_family is None:
        return None  # not Linux
    try:
        source = socket.inet_pton(family, peer[0]).ljust(16, b"\0")
        destination = socket.inet_pton(family, local[0]).ljust(16, b"\0")
        ports = _PORTS.pack(peer[1], local[1])
        body = (
            _REQUEST.pack(family, socket.IPPROTO_TCP, 0, 0, ALL_STATES)
            + ports
            + source
            + destination
            + _ID_TAIL.pack(0, NO_COOKIE, NO_COOKIE)
        )
        with socket.socket(netlink_family, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as netlink:
            size = _HEADER.size + len(body)
            netlink.send(_HEADER.pack(size, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0) + body)
            # The kernel answers within the send: nothing to wait for.
            answer = netlink.recv(4096, socket.MSG_DONTWAIT)
    except (OSError, ValueError):
        return None
    if len(answer) < _OWNER_AT + _OWNER.size or _HEADER.unpack_from(answer)[1] == NLMSG_ERROR:
        return None
    found = answer[_ID_AT : _ID_AT + _PORTS.size + 32]
    uid, inode = _OWNER.unpack_from(answer, _OWNER_AT)
    # The very socket asked for (not a listener the lookup fell back on),
    # and one a process still holds: a closed socket's owner is not
    # reported (a time-wait socket says uid 0, which would be root).
    if answer[_HEADER.size] != family or found != ports + source + destination or not inode:
        return None
    return int(uid)


class OwnUserOnly:
    """The per-connection gate of a loopback server with no access token:
    a connection is served only when its peer socket belongs to `uid` (the
    user running the server)."""

    def __init__(
        self, uid: int | None = None, owner: Callable[[Address, Address], int | None] = peer_owner
    ) -> None:
        self.uid = os.geteuid() if uid is None else uid
        self.owner = owner
        self.refused = 0
        self._logged_at = -LOG_EVERY_S
        self._unlogged = 0

    def works(self, host: str) -> bool:
        """Whether the kernel names this process as the owner of its own
        connection to `host`: the gate can be relied on here."""
        try:
            family, _, _, _, address = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0]
            with socket.create_server(address, family=family) as listener:
                address = listener.getsockname()
                with socket.create_connection(address[:2], timeout=2):
                    accepted, _ = listener.accept()
                    with accepted:
                        peer, local = accepted.getpeername(), accepted.getsockname()
                        return self.owner(peer, local) == self.uid
        except OSError:
            return False

    def __call__(self, transport: asyncio.BaseTransport) -> bool:
        peer = transport.get_extra_info("peername")
        local = transport.get_extra_info("sockname")
        owner = self.owner(peer, local) if peer and local else None
        if owner == self.uid:
            return True
        self.refused += 1
        if owner is None:
            # Closed before it was looked at (a port probe, a client that
            # gave up): nobody to serve, nothing worth a line.
            return False
        self._unlogged += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_S:
            log.warning(
                "refused a loopback connection from uid %d: only uid %d, who runs this server, "
                "is answered (%d refused since the last such line)",
                owner,
                self.uid,
                self._unlogged,
            )
            self._logged_at, self._unlogged = now, 0
        return False
