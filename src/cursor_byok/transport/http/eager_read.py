"""hypercorn's connection bytes handed on in the step that read them.

hypercorn's `TCPServer` reads a connection in a task of its own, from an
`asyncio.StreamReader`: bytes that arrive wake that task one event-loop
step later, a whole round of every other stream's ready callbacks on a busy
server, and a `Run` stream's run request waits for it on its way to the
model call. So while that task waits with nothing unread and no bytes of
the connection in hand, bytes that arrive go to hypercorn's protocol at
once (Python 3.12's eager tasks); what comes meanwhile is read by the task
as before, which first waits for the bytes handed on ahead of it.

Imported with hypercorn, once the port listens (`one_port.load_hypercorn`);
the version is pinned in pyproject.toml.
"""

from __future__ import annotations

import asyncio
from ssl import SSLError
from typing import Any

from hypercorn.asyncio.tcp_server import MAX_RECV, TCPServer
from hypercorn.events import Closed, RawData

from cursor_byok.runtime.early_calls import STARTS_AT_ONCE, start_at_once


class EagerReads(asyncio.StreamReaderProtocol):
    """The connection's protocol: a `StreamReaderProtocol` (hypercorn's
    writer needs its flow control) that hands bytes on itself while its
    server's read task waits (`EagerTCPServer.waiting`)."""

    def __init__(self, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(reader, loop=loop)
        self._reader = reader
        self.server: EagerTCPServer | None = None
        self._handing: asyncio.Task[None] | None = None

    def data_received(self, data: bytes) -> None:
        server = self.server
        if (
            not STARTS_AT_ONCE
            or server is None
            or not server.waiting
            or self._handing is not None
            or not hasattr(server, "protocol")  # not begun yet
        ):
            super().data_received(data)
            return
        handing = start_at_once(server.protocol.handle(RawData(data)), "connection bytes")
        self._handing = handing
        if handing.done():
            self._handed(handing)
        else:
            handing.add_done_callback(self._handed)

    def _handed(self, handing: asyncio.Task[None]) -> None:
        """The next bytes may go at once too; a failure is the read task's
        to meet, as if its own read had raised it."""
        if self._handing is not handing or handing.cancelled():
            return
        error = handing.exception()
        if error is None:
            self._handing = None
        elif isinstance(error, Exception):
            self._reader.set_exception(error)
        else:  # KeyboardInterrupt and the like: not a connection's to meet
            raise error

    async def settle(self) -> None:
        """Once the bytes handed on at once are handled (raising their failure)."""
        handing, self._handing = self._handing, None
        if handing is not None:
            await handing

    def stop(self) -> None:
        if self._handing is not None:
            self._handing.cancel()


class EagerTCPServer(TCPServer):
    """hypercorn's connection server, reading through `EagerReads`."""

    waiting = False
    """The read task waits for bytes with none unread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        protocol = self.writer.transport.get_protocol()
        self._eager = protocol if isinstance(protocol, EagerReads) else None
        if self._eager is not None:
            self._eager.server = self

    async def _read_data(self) -> None:
        """hypercorn's own loop (0.18), but for the wait for bytes handed on."""
        eager = self._eager
        try:
            while not self.reader.at_eof():
                self.waiting = True
                try:
                    data = await asyncio.wait_for(
                        self.reader.read(MAX_RECV), self.config.read_timeout
                    )
                except (ConnectionError, OSError, TimeoutError, SSLError):
                    break
                finally:
                    self.waiting = False
                if eager is not None:
                    await eager.settle()
                await self.protocol.handle(RawData(data))  # b"" at the end: h11's EOF
            if eager is not None:
                await eager.settle()
        finally:
            if eager is not None:
                eager.stop()
        await self.protocol.handle(Closed())
