"""Conversation leases in PostgreSQL: the `conversation_leases` table.

Each statement is one round trip and one short transaction; the expiry is
computed with the server's `clock_timestamp()`, never a process's clock.
Taking a lease is an upsert that only overwrites a row that has expired or is
already ours, so two processes racing for one conversation get one winner
(the row lock of the conflicting insert serializes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from cursor_byok.cluster.lease import Leases
from cursor_byok.store.postgres_pooled import pooled

_ACQUIRE = """
INSERT INTO conversation_leases (conversation_id, owner, expires_at)
VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s))
ON CONFLICT (conversation_id) DO UPDATE
    SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
    WHERE conversation_leases.owner = EXCLUDED.owner
       OR conversation_leases.expires_at < clock_timestamp()
RETURNING owner
"""

_RENEW = """
UPDATE conversation_leases SET expires_at = clock_timestamp() + make_interval(secs => %s)
WHERE owner = %s AND conversation_id = ANY(%s) RETURNING conversation_id
"""

_RELEASE = "DELETE FROM conversation_leases WHERE owner = %s AND conversation_id = ANY(%s)"

_OWNER_OF = """
SELECT owner FROM conversation_leases
WHERE conversation_id = %s AND expires_at >= clock_timestamp()
"""

_UNOWNED = """
SELECT wanted.id FROM unnest(%s::text[]) AS wanted(id)
WHERE NOT EXISTS (
    SELECT 1 FROM conversation_leases l
    WHERE l.conversation_id = wanted.id AND l.expires_at >= clock_timestamp()
)
"""


class PostgresLeases(Leases):
    """Leases held by `owner`, each lasting `ttl_s` from its last renewal."""

    def __init__(
        self, pool: ConnectionPool[psycopg.Connection[Any]], owner: str, ttl_s: float
    ) -> None:
        self._pool = pool
        self.owner = owner
        self.ttl_s = ttl_s

    def acquire(self, conversation_id: str) -> bool:
        with pooled(self._pool, "leases") as conn:
            row = conn.execute(_ACQUIRE, (conversation_id, self.owner, self.ttl_s)).fetchone()
        return row is not None

    def renew(self, conversation_ids: Sequence[str]) -> set[str]:
        if not conversation_ids:
            return set()
        with pooled(self._pool, "leases") as conn:
            rows = conn.execute(_RENEW, (self.ttl_s, self.owner, list(conversation_ids)))
            return {r[0] for r in rows.fetchall()}

    def release(self, conversation_ids: Sequence[str]) -> None:
        if conversation_ids:
            with pooled(self._pool, "leases") as conn:
                conn.execute(_RELEASE, (self.owner, list(conversation_ids)))

    def unowned(self, conversation_ids: Sequence[str]) -> list[str]:
        if not conversation_ids:
            return []
        with pooled(self._pool, "leases") as conn:
            rows = conn.execute(_UNOWNED, (list(conversation_ids),)).fetchall()
        return [r[0] for r in rows]

    def owner_of(self, conversation_id: str) -> str | None:
        with pooled(self._pool, "leases") as conn:
            row = conn.execute(_OWNER_OF, (conversation_id,)).fetchone()
        return None if row is None else str(row[0])
