"""hypercorn's connection bytes handed on in the step that read them
(`eager_read`): at once while the read task waits, in order behind them
otherwise, and a failure met by the read task. The real server takes this
path in every HTTP/2 test (tests/e2e/test_run_http2*.py); here its rules,
with a protocol that holds bytes as long as the test wants."""

from __future__ import annotations

import asyncio
import sys
from typing import Any, cast

import pytest
from hypercorn.events import RawData

from cursor_byok.transport.http.eager_read import EagerReads, EagerTCPServer

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the direct path needs Python 3.12's eager tasks"
)


class Holding:
    """hypercorn's protocol, as the connection sees it: each chunk's
    handling waits until the test lets it go; b"boom" fails."""

    def __init__(self) -> None:
        self.started: list[bytes] = []
        self.gates: dict[bytes, asyncio.Event] = {}

    async def handle(self, event: Any) -> None:
        data = event.data if isinstance(event, RawData) else b"<closed>"
        self.started.append(data)
        if data == b"boom":
            raise ValueError("the protocol failed")
        await self.gates.setdefault(data, asyncio.Event()).wait()

    def release(self, data: bytes) -> None:
        self.gates.setdefault(data, asyncio.Event()).set()


class Server:
    """What `EagerReads` reads of its server: whether it waits, its protocol."""

    def __init__(self) -> None:
        self.waiting = True
        self.protocol = Holding()


def made() -> tuple[EagerReads, Server, asyncio.StreamReader]:
    reader = asyncio.StreamReader()
    reads = EagerReads(reader, asyncio.get_running_loop())
    server = Server()
    reads.server = cast(EagerTCPServer, server)
    return reads, server, reader


async def test_bytes_that_find_the_read_task_waiting_are_handled_in_that_step() -> None:
    reads, server, reader = made()
    reads.data_received(b"run request")
    assert server.protocol.started == [b"run request"]  # begun before data_received returned
    reads.data_received(b"more")  # one chunk in hand: the next is the read task's
    assert server.protocol.started == [b"run request"]
    assert await reader.read(100) == b"more"
    settling = asyncio.ensure_future(reads.settle())
    await asyncio.sleep(0)
    assert not settling.done()  # the read task waits for the chunk ahead of it
    server.protocol.release(b"run request")
    await asyncio.wait_for(settling, 5)
    reads.data_received(b"next")  # nothing in hand again: at once
    assert server.protocol.started == [b"run request", b"next"]
    server.protocol.release(b"next")


async def test_a_busy_read_task_reads_the_bytes_itself() -> None:
    reads, server, reader = made()
    server.waiting = False
    reads.data_received(b"chunk")
    assert server.protocol.started == []
    assert await reader.read(100) == b"chunk"


async def test_a_failure_handing_bytes_on_is_the_read_tasks_to_meet() -> None:
    reads, _server, reader = made()
    reads.data_received(b"boom")
    with pytest.raises(ValueError, match="the protocol failed"):
        await asyncio.wait_for(reader.read(100), 5)


async def test_stopping_cancels_what_is_in_hand() -> None:
    reads, _server, _reader = made()
    reads.data_received(b"held")
    handing = reads._handing
    assert handing is not None
    reads.stop()
    await asyncio.sleep(0)
    assert handing.cancelled()
