"""Appends that meet their stream across processes (several servers, one database).

A request's appends are applied where its RunSSE stream is read, since that
is where the turn's output goes. An append whose stream is read here is
applied at once, as on one process; any other append is stored in the
database and announced. The process whose stream it is picks it up on the
announcement, and reads every stored append of the request when its stream
opens, so an append stored before the stream existed, or whose announcement
was missed, is not lost. The append inbox orders by seqno and drops repeats,
so an append that reaches the inbox twice is applied once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from cursor_byok.store.lease import AppendRelay
from cursor_byok.transport.cursor.session import Session
from cursor_byok.transport.cursor.sessions import SessionHub

log = logging.getLogger(__name__)

SWEEP_EVERY_S = 300.0
KEEP_APPENDS_S = 3600.0
"""Stored appends older than this belong to runs long over."""


class RelayingHub(SessionHub):
    """A `SessionHub` that hands appends to and from other processes."""

    def __init__(self, *args: Any, relay: AppendRelay, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.relay = relay
        self.relayed_out = 0
        """Appends this process stored for another one."""
        self.relayed_in = 0
        """Stored appends this process read for its streams (one read twice,
        on its stream's opening and on its announcement, counts twice; the
        inbox applies it once)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Listen for announced appends (call from the serving loop)."""
        self._loop = asyncio.get_running_loop()
        self.relay.listen(self._announced)
        self._sweeper = asyncio.create_task(self._sweep(), name="append relay sweep")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        await asyncio.to_thread(self.relay.close)
        await super().close()

    def _read_here(self, request_id: str) -> Session | None:
        session = self.sessions.get(request_id)
        return session if session is not None and session.readers > 0 else None

    async def append(self, request_id: str, seqno: int, payload: bytes) -> None:
        if self._read_here(request_id) is not None:
            await super().append(request_id, seqno, payload)
            return
        await asyncio.to_thread(self.relay.put, request_id, seqno, payload)
        self.relayed_out += 1

    def reader_attached(self, session: Session) -> None:
        super().reader_attached(session)
        self._spawn(self._catch_up(session.request_id))

    def _announced(self, request_id: str) -> None:
        """From the listening thread: wake the loop if the stream is here."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake, request_id)

    def _wake(self, request_id: str) -> None:
        if self._read_here(request_id) is not None:
            self._spawn(self._catch_up(request_id))

    async def _catch_up(self, request_id: str) -> None:
        """Apply the stored appends of a request whose stream is read here."""
        session = self.sessions.get(request_id)
        start = 0 if session is None else session.inbox.next_seqno
        for seqno, payload in await asyncio.to_thread(self.relay.since, request_id, start):
            self.relayed_in += 1
            await super().append(request_id, seqno, payload)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            try:
                await asyncio.to_thread(self.relay.sweep, KEEP_APPENDS_S)
            except Exception:  # a sweep can wait for the next round
                log.exception("append relay: sweep failed")
