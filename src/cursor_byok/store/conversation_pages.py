"""Conversations a page at a time, newest first, for the dashboard: keyset
paging on the `conversations_by_owner` index (owner, updated_at_ms), one
range read per owner merged in one statement, so a page costs the same on
the first page and deep in a store of 100,000 conversations, on SQLite and
on PostgreSQL alike. Filtered by model, the same on `conversation_models`
(`store.call_rows`), ordered by the last call to that model."""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager

from cursor_byok.store.base import ConversationSummary
from cursor_byok.store.executor import Executor

PageKey = tuple[int, str]
"""Where a page ends: the last row's (updated_at_ms, conversation_id)."""
OWNERS_PER_STATEMENT = 200
"""SQLite allows 500 terms in one compound SELECT."""
_COLUMNS = "conversation_id, version, status, message_count, updated_at_ms, owner"


class ConversationPages(ABC):
    """`Store.conversation_page` over the shared SQL."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    def conversation_page(
        self,
        owners: Sequence[int],
        limit: int,
        before: PageKey | None = None,
        model: str | None = None,
    ) -> list[ConversationSummary]:
        """Up to `limit` conversations of `owners`, last updated first, from
        just after `before`; with `model`, only those with a call to it,
        the last call to it first (`_by_model`)."""
        found: list[ConversationSummary] = []
        with self._read() as db:
            for start in range(0, len(owners), OWNERS_PER_STATEMENT):
                chunk = owners[start : start + OWNERS_PER_STATEMENT]
                if model is not None:
                    sql, parameters = _by_model(chunk, limit, before, model)
                else:
                    sql, parameters = _statement(chunk, limit, before)
                found.extend(
                    ConversationSummary(*row) for row in db.execute(sql, parameters).fetchall()
                )
        newest = heapq.nlargest(limit, found, key=lambda c: (c.updated_at_ms, c.conversation_id))
        return newest


def _by_model(
    owners: Sequence[int], limit: int, before: PageKey | None, model: str
) -> tuple[str, list[object]]:
    """Owners' conversations with a call to `model`, the last call to it
    first: one range of `conversation_models`' index by (model, time) for
    several owners (an owner's is checked row by row, cheaply: the index
    is already in the model's order), by (owner, model, time) for one. Its
    `updated_at_ms` is that last call's time, and pages key on it."""
    if len(owners) == 1:
        where = "m.owner = ? AND m.model = ?"
        parameters: list[object] = [owners[0], model]
    else:
        # `+m.owner`: SQLite would otherwise read the owner index per owner.
        where = f"m.model = ? AND +m.owner IN ({','.join('?' * len(owners))})"
        parameters = [model, *owners]
    if before is not None:
        where += " AND m.last_call_ms <= ? AND (m.last_call_ms < ? OR m.conversation_id < ?)"
        parameters += [before[0], before[0], before[1]]
    sql = (
        "SELECT c.conversation_id, c.version, c.status, c.message_count, m.last_call_ms, c.owner"
        " FROM conversation_models m JOIN conversations c"
        f" ON c.conversation_id = m.conversation_id WHERE {where}"
        " ORDER BY m.last_call_ms DESC, m.conversation_id DESC LIMIT ?"
    )
    return sql, [*parameters, limit]


def _statement(
    owners: Sequence[int], limit: int, before: PageKey | None
) -> tuple[str, list[object]]:
    where = "owner = ?"
    if before is not None:
        # The first term bounds the index range; the second breaks ties.
        where += " AND updated_at_ms <= ? AND (updated_at_ms < ? OR conversation_id < ?)"
    one = (
        f"SELECT * FROM (SELECT {_COLUMNS} FROM conversations c WHERE {where}"
        " ORDER BY updated_at_ms DESC, conversation_id DESC LIMIT ?) AS o{0}"
    )
    parameters: list[object] = []
    parts = []
    for index, owner in enumerate(owners):
        parts.append(one.format(index))
        parameters.append(owner)
        if before is not None:
            parameters += [before[0], before[0], before[1]]
        parameters.append(limit)
    sql = " UNION ALL ".join(parts) + " ORDER BY updated_at_ms DESC, conversation_id DESC LIMIT ?"
    return sql, [*parameters, limit]
