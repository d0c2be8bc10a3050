"""A guard around every web test: a connection to anything but loopback
is stopped before it leaves the machine and fails the test. The tests name
private and metadata addresses the fetch must refuse; a fetch that failed
to refuse one would otherwise send a real packet there."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def only_loopback(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    stopped: list[Any] = []
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        if isinstance(address, tuple) and isinstance(address[0], str):
            host = address[0].split("%")[0]
            if not ipaddress.ip_address(host).is_loopback:
                stopped.append(address)
                raise OSError(errno.ENETUNREACH, f"the web tests stay on this machine ({host})")
        connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield stopped
    assert stopped == [], f"a connection off this machine was attempted: {stopped}"
