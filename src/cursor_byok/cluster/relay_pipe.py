"""A stream read here for a request another process hosts.

When the conversation of a run request belongs to another live process,
this process is a pipe: its stream's queue is fed from the host's relayed
output, in seq order, on each announcement and on a slow poll (an
announcement may be missed). While its client reads, the pipe tells the
host so now and then; the host counts a pipe that falls silent (its process
died) as a reader gone. The writer here encodes each item for this
client's codec. A row that cannot be read back is skipped, logged and
counted; the stream goes on. The poll also watches the host: if it no
longer owns the conversation (it died, or gave it up), the stream ends with
a retryable error so the client tries again and meets the new owner. Until
the host's first output the host request is repeated, since it travels on
an announcement alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from cursor_byok.cluster.lease import Notice, NoticeKind, Relay
from cursor_byok.cluster.relay_host import READER_BEAT_S, unavailable
from cursor_byok.store.base import StoreError
from cursor_byok.transport.sessions.counters import Counters
from cursor_byok.transport.sessions.relay_rows import BadRow, decode_item
from cursor_byok.transport.sessions.session import EndOfStream, Session

log = logging.getLogger(__name__)

POLL_S = 1.0
"""How often a pipe reads the table without an announcement, and checks its host."""


@dataclass(eq=False)
class Pipe:
    """The session of a stream read here, fed from its host's output rows."""

    session: Session
    conversation_id: str
    host: str
    """The process hosting the request (the conversation's owner when asked)."""
    relay: Relay
    owner_of: Callable[[str], Awaitable[str | None]]
    next_seq: int = 0
    heard: bool = False
    """Whether any output came from the host yet."""
    counters: Counters = field(default_factory=Counters)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    stopped: bool = False
    first_seqno: int = 0
    """The seqno of the request's run request: the host applies from there."""
    beat_s: float = READER_BEAT_S
    """How often the host hears that the stream still has its reader."""

    def host_request(self) -> Notice:
        request_id, first = self.session.request_id, self.first_seqno
        return Notice(NoticeKind.HOST, request_id, self.host, self.conversation_id, seqno=first)

    def reader_notice(self, reading: bool) -> Notice:
        return Notice(NoticeKind.READER, self.session.request_id, self.host, reading=reading)

    async def feed(self) -> None:
        """Fill the session's queue from the host's output until its end."""
        checked = beaten = time.monotonic()
        while not self.session.ended and not self.stopped:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), min(POLL_S, self.beat_s))
            self.wake.clear()
            try:
                await self._read()
                now = time.monotonic()
                if now - checked >= POLL_S and not self.session.ended:
                    checked = now
                    await self._check_host()
                if now - beaten >= self.beat_s and self.session.readers > 0:
                    beaten = now
                    await asyncio.to_thread(self.relay.announce, self.reader_notice(True))
            except StoreError as error:  # the database is away: the next round tries again
                log.warning("request %s: %s", self.session.request_id, error)

    def stop(self) -> None:
        """The session is forgotten: feed it no more."""
        self.stopped = True
        self.wake.set()

    async def _read(self) -> None:
        rows = await asyncio.to_thread(
            self.relay.output_since, self.session.request_id, self.next_seq
        )
        for seq, kind, payload in rows:
            self.next_seq = seq + 1
            self.heard = True
            try:
                item = decode_item(kind, payload)
            except BadRow as error:
                self.counters.undecodable_output += 1
                log.warning(
                    "request %s: relayed output %d skipped: %s", self.session.request_id, seq, error
                )
                continue
            self.session.put(item)

    async def _check_host(self) -> None:
        owner = await self.owner_of(self.conversation_id)
        if owner == self.host:
            if not self.heard:
                await asyncio.to_thread(self.relay.announce, self.host_request())
            return
        await self._read()  # what the host stored before it let go
        if not self.session.ended:
            reason = "the process running this conversation stopped; retry to resume it"
            log.info("request %s: host %s is gone", self.session.request_id, self.host)
            self.session.put(EndOfStream(unavailable(reason)))
