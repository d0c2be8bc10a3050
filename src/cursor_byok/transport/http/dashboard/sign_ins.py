"""Who is signed in to the dashboard: opaque random session ids, kept in
the database every server process shares (`store.ui_sessions`: only a hash
of each), so a browser signed in through one process is signed in on all
of them, behind a load balancer with or without sticky sessions. A cookie
holds the id, never a token.

A user's session remembers their token's public id and is found only while
that token is still theirs and not revoked, so a token revoked or rotated
(by any process, or `cursor-byok users`) ends its sessions at their next
request. The administrator's session ends when it expires, at sign-out, or
when the configured access token changes (it keeps a slow hash of it).
A session's CSRF token is derived from its id (an HMAC), so it is stored
nowhere and is the same on every process."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from cursor_byok.store.base import Store, StoreError, User
from cursor_byok.store.ui_session_api import StoredSession, session_hash

SESSION_TTL_S = 12 * 3600.0
"""How long a sign-in lasts."""


@dataclass(frozen=True, slots=True)
class SignIn:
    """One signed-in browser: the user, what the session keeps of their token
    (`store.ui_sessions`), the CSRF token its forms carry, and its end (ms)."""

    user: User
    token_id: str
    csrf: str
    expires_at_ms: int


class SignIns:
    """The sessions every process shares, by id."""

    def __init__(
        self,
        sessions: Store,
        admin_mark: Callable[[], str],
        ttl_s: float = SESSION_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._sessions = sessions
        self._admin_mark = admin_mark
        """The configured administrator's token's mark (slow the first time:
        called in worker threads only)."""
        self._ttl_s = ttl_s
        self._clock = clock

    async def open(self, user: User, token_id: str | None) -> str:
        """A new session for `user` (the administrator's: `token_id` None);
        its id, for the cookie."""
        session_id = secrets.token_urlsafe(32)
        now_ms = int(self._clock() * 1000)
        expires_ms = now_ms + int(self._ttl_s * 1000)

        def opened() -> None:
            kept = token_id if token_id is not None else self._admin_mark()
            hashed = session_hash(session_id)
            self._sessions.open_session(hashed, user.id, kept, now_ms, expires_ms)

        await asyncio.to_thread(opened)
        return session_id

    async def close(self, session_id: str) -> None:
        await asyncio.to_thread(self._sessions.close_session, session_hash(session_id))

    async def find(self, session_id: str | None) -> SignIn | None:
        """The live session `session_id` names, its user read afresh; None
        when there is none, it expired, the user's token no longer works,
        or the database does not answer (the page says to sign in again)."""
        if not session_id:
            return None
        now_ms = int(self._clock() * 1000)
        try:
            found = await asyncio.to_thread(self._read, session_hash(session_id), now_ms)
        except StoreError:
            return None
        if found is None:
            return None
        session, user = found
        return SignIn(user, session.token_id, csrf_of(session_id), session.expires_at_ms)

    def _read(self, hashed: str, now_ms: int) -> tuple[StoredSession, User] | None:
        """The session and its user as the database has them now."""
        session = self._sessions.find_session(hashed, now_ms)
        if session is None:
            return None
        user = self._sessions.user_by_id(session.user_id)
        if user is None or (user.is_admin and session.token_id != self._admin_mark()):
            return None  # the administrator's token changed since
        return session, user


def csrf_of(session_id: str) -> str:
    """The CSRF token of a session: only its holder can compute it."""
    return hmac.new(session_id.encode(), b"cursor-byok ui csrf", hashlib.sha256).hexdigest()


def csrf_matches(sign_in: SignIn, presented: str) -> bool:
    return hmac.compare_digest(sign_in.csrf.encode(), presented.encode())
