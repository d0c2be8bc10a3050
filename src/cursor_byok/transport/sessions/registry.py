"""Live sessions by request id, and the reconnect grace period.

A dropped RunSSE is not a cancel: the session stays, its output queued, so
the client can reopen the stream. Only after `grace_s` without any reader is
`on_abandoned` called (the hub cancels the turn). Ended and long-idle
sessions are swept when a new one is made. Sessions are kept in the order
they were last touched, and ended ones in the order they ended, so a sweep
looks only at the sessions it removes (plus at most one that stays): its
cost does not grow with the number of live sessions.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)

RECONNECT_GRACE_S = 120.0
ENDED_SESSION_TTL_S = 300.0
IDLE_SESSION_TTL_S = 3600.0
MAX_GONE = 4096
"""Dropped request ids remembered (with why), so a late stream or append for
one gets the reason instead of a fresh session; about 100 bytes each."""


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
        on_forget: Callable[[S], None] = lambda _session: None,
    ) -> None:
        """`on_forget` hears of each session the sweep removes."""
        self._make = make
        self._on_forget = on_forget
        self._gone: OrderedDict[str, str] = OrderedDict()
        self._on_abandoned = on_abandoned
        self._grace_s = grace_s
        self._clock = clock
        self._sessions: OrderedDict[str, S] = OrderedDict()
        """Least recently touched first."""
        self._ended: OrderedDict[str, float] = OrderedDict()
        """Request id -> when its stream ended, earliest first."""

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
        else:
            self._sessions.move_to_end(request_id)
        session.touched = self._clock()
        return session

    def ended(self, session: S) -> None:
        """The session's stream has ended: it goes after `ENDED_SESSION_TTL_S`."""
        if self._sessions.get(session.request_id) is session:
            self._ended[session.request_id] = self._clock()
            self._ended.move_to_end(session.request_id)

    def remove(self, session: S, reason: str) -> None:
        """Forget the session now (its state was dropped), remembering why."""
        if self._sessions.get(session.request_id) is session:
            del self._sessions[session.request_id]
            self._ended.pop(session.request_id, None)
            if session.grace is not None:
                session.grace.cancel()
                session.grace = None
        self._gone[session.request_id] = reason
        if len(self._gone) > MAX_GONE:
            self._gone.popitem(last=False)

    def gone(self, request_id: str) -> str | None:
        """Why the request id's session was dropped, if it was (and is remembered)."""
        return self._gone.get(request_id)

    def sweep(self) -> None:
        now = self._clock()
        while self._ended:
            request_id, ended_at = next(iter(self._ended.items()))
            if now - ended_at <= ENDED_SESSION_TTL_S:
                break
            del self._ended[request_id]
            session = self._sessions.get(request_id)
            if session is not None and session.ended:  # not reused for a new run since
                del self._sessions[request_id]
                self._on_forget(session)
        while self._sessions:
            request_id, session = next(iter(self._sessions.items()))
            if now - session.touched <= IDLE_SESSION_TTL_S:
                break
            if session.readers:
                # Being read is being used: it goes to the back, as if touched.
                session.touched = now
                self._sessions.move_to_end(request_id)
                continue
            del self._sessions[request_id]
            self._ended.pop(request_id, None)
            self._on_forget(session)

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
