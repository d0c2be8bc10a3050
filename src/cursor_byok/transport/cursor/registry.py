"""Live sessions by request id, and the reconnect grace period.

A dropped RunSSE is not a cancel: the session stays, its output queued, so
the client can reopen the stream. Only after `grace_s` without any reader is
`on_abandoned` called (the hub cancels the turn). Ended and long-idle
sessions are swept when a new one is made, so memory stays bounded.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)

RECONNECT_GRACE_S = 120.0
ENDED_SESSION_TTL_S = 300.0
IDLE_SESSION_TTL_S = 3600.0


class Tracked(Protocol):
    """What the registry reads and writes of a session."""

    request_id: str
    readers: int
    ended: bool
    ended_at: float | None
    touched: float
    conversation_id: str | None
    grace: asyncio.Task[None] | None


S = TypeVar("S", bound=Tracked)


class SessionRegistry(Generic[S]):
    def __init__(
        self,
        make: Callable[[str], S],
        on_abandoned: Callable[[S], Awaitable[None]],
        grace_s: float = RECONNECT_GRACE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._make = make
        self._on_abandoned = on_abandoned
        self._grace_s = grace_s
        self._clock = clock
        self._sessions: dict[str, S] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def __iter__(self) -> Iterator[S]:
        return iter(list(self._sessions.values()))

    def get(self, request_id: str) -> S | None:
        return self._sessions.get(request_id)

    def session(self, request_id: str) -> S:
        """The session of `request_id`, made on first use."""
        session = self._sessions.get(request_id)
        if session is None:
            self.sweep()
            session = self._make(request_id)
            self._sessions[request_id] = session
        session.touched = self._clock()
        return session

    def sweep(self) -> None:
        now = self._clock()
        for request_id, session in list(self._sessions.items()):
            ended_long_ago = (
                session.ended_at is not None and now - session.ended_at > ENDED_SESSION_TTL_S
            )
            idle = now - session.touched > IDLE_SESSION_TTL_S and session.readers == 0
            if ended_long_ago or idle:
                del self._sessions[request_id]

    def reader_attached(self, session: S) -> None:
        session.readers += 1
        if session.grace is not None:
            session.grace.cancel()
            session.grace = None

    def reader_detached(self, session: S) -> None:
        session.readers -= 1
        if session.readers == 0 and self._waits_for_a_reader(session):
            session.grace = asyncio.ensure_future(self._after_grace(session))

    def _waits_for_a_reader(self, session: S) -> bool:
        return not session.ended and session.conversation_id is not None

    async def _after_grace(self, session: S) -> None:
        await asyncio.sleep(self._grace_s)
        if session.readers == 0 and self._waits_for_a_reader(session):
            log.info("request %s: no reader for %.0fs", session.request_id, self._grace_s)
            await self._on_abandoned(session)

    async def close(self) -> None:
        for session in self._sessions.values():
            if session.grace is not None:
                session.grace.cancel()
