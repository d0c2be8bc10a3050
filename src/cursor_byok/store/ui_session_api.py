"""What the store offers the dashboard's sign-in sessions (kept apart from
`store.ui_sessions`, their SQL, so `store.base` can name it)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A live session: its user, what it keeps of the token it was opened
    with (a user's token's public id, still theirs and not revoked; for the
    administrator, a mark of the configured token to compare) and its end."""

    user_id: int
    token_id: str
    expires_at_ms: int


class Sessions(Protocol):
    """Dashboard sessions shared by every process (`store.ui_sessions`)."""

    def open_session(
        self, session_hash: str, user_id: int, token_id: str, now_ms: int, expires_ms: int
    ) -> None:
        """Store a new session (and drop those expired by `now_ms`)."""
        ...

    def find_session(self, session_hash: str, now_ms: int) -> StoredSession | None:
        """The session, if it has not expired and its token still works."""
        ...

    def close_session(self, session_hash: str) -> None: ...


def session_hash(session_id: str) -> str:
    """What the database keeps of a session id (a cookie's random value)."""
    return hashlib.sha256(session_id.encode()).hexdigest()
