"""Conversations a page at a time, newest first, for the dashboard: keyset
paging on the `conversations_by_owner` index (owner, updated_at_ms), one
range read per owner merged in one statement, so a page costs the same on
the first page and deep in a store of 100,000 conversations, on SQLite and
on PostgreSQL alike."""

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
        just after `before`; with `model`, only those with a call to it."""
        found: list[ConversationSummary] = []
        with self._read() as db:
            for start in range(0, len(owners), OWNERS_PER_STATEMENT):
                chunk = owners[start : start + OWNERS_PER_STATEMENT]
                if model is not None and len(chunk) > 1:
                    sql, parameters = _by_model(chunk, limit, before, model)
                else:
                    sql, parameters = _statement(chunk, limit, before, model)
                found.extend(
                    ConversationSummary(*row) for row in db.execute(sql, parameters).fetchall()
                )
        newest = heapq.nlargest(limit, found, key=lambda c: (c.updated_at_ms, c.conversation_id))
        return newest


def _by_model(
    owners: Sequence[int], limit: int, before: PageKey | None, model: str
) -> tuple[str, list[object]]:
    """Several owners' conversations with a call to `model`: the calls to it
    read once (no index by model), the rest sorted. Checking each owner's
    newest one by one costs 7 to 15 times more for a team of 100 on
    100,000 conversations (`bench/ui.py`); one owner's are checked so."""
    marks = ",".join("?" * len(owners))
    where = f"owner IN ({marks})"
    parameters: list[object] = list(owners)
    if before is not None:
        where += " AND updated_at_ms <= ? AND (updated_at_ms < ? OR conversation_id < ?)"
        parameters += [before[0], before[0], before[1]]
    sql = (
        f"SELECT {_COLUMNS} FROM conversations WHERE {where} AND conversation_id IN"
        " (SELECT conversation_id FROM llm_calls WHERE model = ?)"
        " ORDER BY updated_at_ms DESC, conversation_id DESC LIMIT ?"
    )
    return sql, [*parameters, model, limit]


def _statement(
    owners: Sequence[int], limit: int, before: PageKey | None, model: str | None
) -> tuple[str, list[object]]:
    where = "owner = ?"
    if before is not None:
        # The first term bounds the index range; the second breaks ties.
        where += " AND updated_at_ms <= ? AND (updated_at_ms < ? OR conversation_id < ?)"
    if model is not None:
        where += (
            " AND EXISTS (SELECT 1 FROM llm_calls l"
            " WHERE l.conversation_id = c.conversation_id AND l.model = ?)"
        )
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
        if model is not None:
            parameters.append(model)
        parameters.append(limit)
    sql = " UNION ALL ".join(parts) + " ORDER BY updated_at_ms DESC, conversation_id DESC LIMIT ?"
    return sql, [*parameters, limit]
