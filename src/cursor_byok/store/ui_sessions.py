"""The dashboard's sign-in sessions, in the database every server process
shares (a part of `SQLStore`), so a browser signed in on one process is
signed in on all of them, behind a load balancer without sticky sessions.

Only a SHA-256 of a session id is stored: whoever reads the database or a
backup holds no cookie that works. A user's session names their token's
public id and is found only while that token is still theirs and not
revoked (checked in the same read); revoking or rotating the token also
deletes their sessions (`user_rows`). The administrator's names a slow
hash of the configured token, which the dashboard compares with its own.
Expired sessions are deleted as new ones open.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager

from cursor_byok.store.executor import Executor
from cursor_byok.store.ui_session_api import StoredSession


class SessionRows(ABC):
    """`Sessions` over the shared SQL."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    @abstractmethod
    def _transaction(self, flush: bool = True) -> AbstractContextManager[Executor]: ...

    def open_session(
        self, session_hash: str, user_id: int, token_id: str, now_ms: int, expires_ms: int
    ) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM dashboard_sessions WHERE expires_at_ms < ?", (now_ms,))
            db.execute(
                "INSERT INTO dashboard_sessions (session_hash, user_id, token_id, expires_at_ms)"
                " VALUES (?, ?, ?, ?)",
                (session_hash, user_id, token_id, expires_ms),
            )

    def find_session(self, session_hash: str, now_ms: int) -> StoredSession | None:
        with self._read() as db:
            row = db.execute(
                "SELECT s.user_id, s.token_id, s.expires_at_ms FROM dashboard_sessions s"
                " JOIN users u ON u.user_id = s.user_id WHERE s.session_hash = ?"
                " AND s.expires_at_ms >= ? AND (u.is_admin"
                " OR (u.token_id = s.token_id AND u.revoked_at_ms IS NULL))",
                (session_hash, now_ms),
            ).fetchone()
        return None if row is None else StoredSession(int(row[0]), str(row[1]), int(row[2]))

    def close_session(self, session_hash: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM dashboard_sessions WHERE session_hash = ?", (session_hash,))
