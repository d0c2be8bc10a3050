"""hypercorn's connection bytes handed on in the step that read them.

hypercorn's `TCPServer` reads a connection in a task of its own, from an
`asyncio.StreamReader`: bytes that arrive wake that task one event-loop
step later, a whole round of every other stream's ready callbacks on a busy
server, and a `Run` stream's run request waits for it on its way to the
model call. So while that task waits with nothing unread and no bytes of
the connection in hand, bytes that arrive go to hypercorn's protocol at
once (Python 3.12's eager tasks); what comes meanwhile is read by the task
as before, which first waits for the bytes handed on ahead of it.

A connection the server closes (idle, shutting down, a flood, after a
GOAWAY) is closed lingering: hypercorn wrote its last frames and closed the
socket at once, and a socket closed with bytes unread (a request the client
sent meanwhile) is reset by the kernel, which drops what was still unsent,
the GOAWAY among them. Now the server ends its side (FIN after the GOAWAY)
and drops what the client still sends until the client closes its own side
or `LINGER_CLOSE_S` have passed, as Go's HTTP/2 server waits out its
GOAWAY before it closes (TLS connections cannot end one side: closed as
before).

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

LINGER_CLOSE_S = 1.0
"""How long a connection the server closes reads (and drops) what the client
still sends, once the server has ended its side."""


class EagerReads(asyncio.StreamReaderProtocol):
    """The connection's protocol: a `StreamReaderProtocol` (hypercorn's
    writer needs its flow control) that hands bytes on itself while its
    server's read task waits (`EagerTCPServer.waiting`)."""

    def __init__(self, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(reader, loop=loop)
        self._reader = reader
        self.server: EagerTCPServer | None = None
        self._handing: asyncio.Task[None] | None = None
        self._draining: asyncio.Future[None] | None = None
        self._ended = False
        """The client has ended its side, or the connection is gone."""

    def drain(self) -> asyncio.Future[None]:
        """From now on what the client sends is dropped; done once the client
        has ended its side or the connection is gone."""
        if self._draining is None:
            self._draining = asyncio.get_running_loop().create_future()
            if self._ended:
                self._draining.set_result(None)
        return self._draining

    def _end(self) -> None:
        self._ended = True
        if self._draining is not None and not self._draining.done():
            self._draining.set_result(None)

    def eof_received(self) -> bool:
        self._end()
        return bool(super().eof_received())

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._draining is not None:
            return  # the server has said goodbye: nothing more is read
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
    _lingered = False

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

    async def _close(self) -> None:
        if not self._lingered:
            self._lingered = True
            await self._linger()
        await super()._close()

    async def _linger(self) -> None:
        """The server's side ended, and what the client still sends dropped
        until it ends its own (or `LINGER_CLOSE_S`): the close that follows
        then finds nothing unread, and is no reset."""
        eager = self._eager
        if eager is None or self.reader.at_eof() or self.writer.transport.is_closing():
            return  # (the client's side has ended, or the socket is going anyway)
        try:
            self.writer.write_eof()
        except (NotImplementedError, OSError, RuntimeError):
            return  # TLS, or a connection already broken
        ended = eager.drain()
        transport = self.writer.transport
        if isinstance(transport, asyncio.ReadTransport) and not transport.is_reading():
            transport.resume_reading()  # (paused for a full buffer: now nothing is kept)
        try:
            await asyncio.wait_for(asyncio.shield(ended), LINGER_CLOSE_S)
        except TimeoutError:
            pass
        except asyncio.CancelledError:  # (the server stopping): the socket still goes
            self.writer.close()
            raise
