"""Who is signed in to the dashboard: a map of opaque random session ids,
kept in this process only (a cookie holds the id, never a token).

A user's session remembers their token's public id and is checked against
the database on every request, so a token revoked or rotated (by any
process, or `cursor-byok users`) ends its sessions at their next request.
The administrator's session ends when it expires or at sign-out."""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from cursor_byok.store.base import StoreError, User, Users, WouldWait

SESSION_TTL_S = 12 * 3600.0
"""How long a sign-in lasts."""
MAX_SESSIONS = 10_000
"""The oldest session goes when a new one would exceed this."""


@dataclass(frozen=True, slots=True)
class SignIn:
    """One signed-in browser: the user, their token's public id (None for
    the administrator), the CSRF token its forms carry, and its end."""

    user: User
    token_id: str | None
    csrf: str
    expires_at: float


class SignIns:
    """The sessions of this process, by id."""

    def __init__(
        self,
        users: Users | None,
        ttl_s: float = SESSION_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._users = users
        self._ttl_s = ttl_s
        self._clock = clock
        self._sessions: OrderedDict[str, SignIn] = OrderedDict()

    def open(self, user: User, token_id: str | None) -> str:
        """A new session for `user`; its id, for the cookie."""
        session_id = secrets.token_urlsafe(32)
        self._sessions[session_id] = SignIn(
            user, token_id, secrets.token_urlsafe(32), self._clock() + self._ttl_s
        )
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return session_id

    def close(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    async def find(self, session_id: str | None) -> SignIn | None:
        """The live session `session_id` names, its user read afresh; None
        when there is none, it expired, or the user's token no longer works."""
        if not session_id:
            return None
        found = self._sessions.get(session_id)
        if found is None:
            return None
        if found.expires_at < self._clock():
            self.close(session_id)
            return None
        if found.token_id is None:
            return found
        holder = await _holder(self._users, found.token_id)
        if holder is None or holder.revoked or holder.id != found.user.id:
            self.close(session_id)
            return None
        return SignIn(holder, found.token_id, found.csrf, found.expires_at)


def csrf_matches(sign_in: SignIn, presented: str) -> bool:
    return hmac.compare_digest(sign_in.csrf.encode(), presented.encode())


async def _holder(users: Users | None, token_id: str) -> User | None:
    if users is None:
        return None
    try:
        try:
            found = users.token_holder_now(token_id)
        except WouldWait:
            found = await asyncio.to_thread(users.token_holder, token_id)
    except StoreError:
        return None
    return None if found is None else found[0]
