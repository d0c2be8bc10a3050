"""The users table, in the SQL both databases take (a part of `SQLStore`).

A user's allowed models are a JSON list (NULL: every model). A revoked user
keeps their row, so their conversations keep an owner, but no token finds
them; `set_token` (rotate) gives them a new one and takes the revocation back.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any, cast

from cursor_byok.store.base import User, UserExists, WouldWait
from cursor_byok.store.executor import Executor
from cursor_byok.store.usage import BudgetPeriod

USER_COLUMNS = (
    "user_id, name, is_admin, models, budget_usd, budget_period, created_at_ms,"
    " last_used_at_ms, revoked_at_ms"
)
_SELECT = f"SELECT {USER_COLUMNS} FROM users"
# The name is unique: a second insert of one writes no row.
_INSERT = (
    "INSERT INTO users (name, is_admin, token_id, token_hash, models, budget_usd,"
    " budget_period, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (name) DO NOTHING"
)


def _user(row: Any) -> User:
    models = None if row[3] is None else tuple(str(m) for m in json.loads(row[3]))
    return User(
        id=int(row[0]),
        name=str(row[1]),
        is_admin=bool(row[2]),
        models=models,
        budget_usd=None if row[4] is None else float(row[4]),
        budget_period=cast("BudgetPeriod | None", row[5]),
        created_at_ms=int(row[6]),
        last_used_at_ms=None if row[7] is None else int(row[7]),
        revoked_at_ms=None if row[8] is None else int(row[8]),
    )


def _signed_out(db: Executor, name: str) -> User:
    """The user whose token just changed, their dashboard sessions ended
    with it (`store.ui_sessions`)."""
    user = _user(db.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone())
    db.execute("DELETE FROM dashboard_sessions WHERE user_id = ?", (user.id,))
    return user


def _now_ms() -> int:
    return int(time.time() * 1000)


class UserRows(ABC):
    """`store.base.Users` over the shared SQL."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    @abstractmethod
    def _transaction(self, flush: bool = True) -> AbstractContextManager[Executor]: ...

    def add_user(
        self,
        name: str,
        token_id: str,
        token_hash: str,
        models: tuple[str, ...] | None = None,
        budget_usd: float | None = None,
        budget_period: BudgetPeriod | None = None,
    ) -> User:
        listed = None if models is None else json.dumps(list(models))
        with self._transaction() as db:
            row = (name, False, token_id, token_hash, listed, budget_usd, budget_period, _now_ms())
            if db.execute(_INSERT, row).rowcount != 1:
                raise UserExists(f"a user named {name!r} exists already")
            return _user(db.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone())

    def users(self) -> list[User]:
        with self._read() as db:
            rows = db.execute(f"{_SELECT} ORDER BY is_admin DESC, user_id").fetchall()
        return [_user(row) for row in rows]

    def user(self, name: str) -> User | None:
        with self._read() as db:
            row = db.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone()
        return None if row is None else _user(row)

    def user_by_id(self, user_id: int) -> User | None:
        with self._read() as db:
            row = db.execute(f"{_SELECT} WHERE user_id = ?", (user_id,)).fetchone()
        return None if row is None else _user(row)

    def token_holder(self, token_id: str) -> tuple[User, str] | None:
        with self._read() as db:
            return self._token_holder(db, token_id)

    def token_holder_now(self, token_id: str) -> tuple[User, str] | None:
        """A networked database always makes the caller wait."""
        raise WouldWait("ask in a worker thread")

    @staticmethod
    def _token_holder(db: Executor, token_id: str) -> tuple[User, str] | None:
        row = db.execute(
            f"SELECT {USER_COLUMNS}, token_hash FROM users"
            " WHERE token_id = ? AND revoked_at_ms IS NULL",
            (token_id,),
        ).fetchone()
        return None if row is None or row[9] is None else (_user(row), str(row[9]))

    def set_token(self, name: str, token_id: str, token_hash: str) -> User | None:
        with self._transaction() as db:
            changed = db.execute(
                "UPDATE users SET token_id = ?, token_hash = ?, revoked_at_ms = NULL"
                " WHERE name = ? AND NOT is_admin",
                (token_id, token_hash, name),
            )
            if changed.rowcount != 1:
                return None
            return _signed_out(db, name)

    def revoke(self, name: str) -> User | None:
        with self._transaction() as db:
            changed = db.execute(
                "UPDATE users SET revoked_at_ms = coalesce(revoked_at_ms, ?)"
                " WHERE name = ? AND NOT is_admin",
                (_now_ms(), name),
            )
            if changed.rowcount != 1:
                return None
            return _signed_out(db, name)

    def set_budget(
        self, name: str, budget_usd: float | None, period: BudgetPeriod | None
    ) -> User | None:
        with self._transaction() as db:
            changed = db.execute(
                "UPDATE users SET budget_usd = ?, budget_period = ? WHERE name = ?",
                (budget_usd, period if budget_usd is not None else None, name),
            )
            if changed.rowcount != 1:
                return None
            return _user(db.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone())

    def touch_user(self, user_id: int, when_ms: int) -> None:
        with self._transaction(flush=False) as db:
            db.execute(
                "UPDATE users SET last_used_at_ms = ? WHERE user_id = ?"
                " AND (last_used_at_ms IS NULL OR last_used_at_ms < ?)",
                (when_ms, user_id, when_ms),
            )
