"""Hosting a request whose stream is read by another process.

The owner of a conversation hosts a request piped to it: the session lives
here, appends are applied here, and what the session would write to a local
stream is drained from its outbox into `relayed_output`, a batch at a time
(one INSERT and one announcement per batch), for the process whose client
reads the stream. The far reader counts as this session's reader, so the
reconnect grace period and the cancel after it apply as on one process; a
far reader not heard of for a while counts as gone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from cursor_byok.cluster.lease import Relay
from cursor_byok.store.base import StoreError
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.dialect.run_request import retry_banner
from cursor_byok.transport.sessions.relay_rows import encode_item
from cursor_byok.transport.sessions.session import EndOfStream, QueueItem, Session

log = logging.getLogger(__name__)

MAX_BATCH = 256
RETRY_S = 0.5
"""How long a pump waits before storing a batch again after a database error."""
READER_BEAT_S = 5.0
"""How often a pipe whose client reads says so."""
READER_SILENCE_S = 3 * READER_BEAT_S
"""A far reader not heard of for this long is gone (its process died, or
the announcement that it went was missed)."""


def unavailable(reason: str) -> WireError:
    """A retryable end: the client retries, and its retry finds the owner."""
    return WireError(Code.UNAVAILABLE, reason, (retry_banner("The conversation moved", reason),))


@dataclass(eq=False)
class Hosted:
    """A request hosted here for a stream read by another process."""

    session: Session
    reading: bool = True
    """Whether the far reader is counted as the session's reader now."""
    heard_at: float = field(default_factory=time.monotonic)
    """When the pipe last said its client reads."""

    def silent(self, silence_s: float) -> bool:
        return self.reading and time.monotonic() - self.heard_at > silence_s


async def pump(session: Session, relay: Relay, seq: int) -> None:
    """Move the session's output into relayed rows, in order, until its end."""
    while True:
        batch = await _next_batch(session)
        rows = [encode_item(seq + i, item) for i, item in enumerate(batch)]
        while True:
            try:
                await asyncio.to_thread(relay.put_output, session.request_id, rows)
                break
            except StoreError as error:  # the database is away: the same rows again
                log.warning("request %s: output not stored: %s", session.request_id, error)
                await asyncio.sleep(RETRY_S)
        seq += len(rows)
        if isinstance(batch[-1], EndOfStream):
            return


async def _next_batch(session: Session) -> list[QueueItem]:
    """What is queued, up to the end of the stream and MAX_BATCH items; waits
    for the first (a session keeps its one outbox through a take-over, so
    waiting on it is enough)."""
    outbox = session.outbox
    while outbox.empty():
        await outbox.wait()
    batch = outbox.take(MAX_BATCH)
    for index, item in enumerate(batch):
        if isinstance(item, EndOfStream):
            outbox.put_back(batch[index + 1 :])
            return batch[: index + 1]
    return batch


async def refuse(relay: Relay, request_id: str, reason: str) -> None:
    """End a request this process cannot host with a retryable error."""
    seq = await asyncio.to_thread(relay.next_output_seq, request_id)
    row = encode_item(seq, EndOfStream(unavailable(reason)))
    await asyncio.to_thread(relay.put_output, request_id, [row])
