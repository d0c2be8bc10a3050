"""`GET /healthz`: 200 while this process can serve, 503 when its database
does not answer, so a load balancer takes the process out of rotation. The
body says only reachable or unreachable: /healthz needs no token.

The database is asked at most once a second (`CachedCheck`): a health check
costs a worker thread of the pool the store's calls share, and /healthz is
open to anyone who can reach the port."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable

from cursor_byok.transport.http.stream_writer import Send

DatabaseReachable = Callable[[], Awaitable[bool]]

HEALTH_CACHE_S = 1.0
"""How long one answer of the database serves every /healthz."""


class CachedCheck:
    """A `DatabaseReachable` asked at most once per `ttl_s`: within it every
    caller gets the last answer, and callers arriving while it is asked wait
    for that one answer (a caller that goes away does not cancel it)."""

    def __init__(self, check: DatabaseReachable, ttl_s: float = HEALTH_CACHE_S) -> None:
        self._check = check
        self._ttl_s = ttl_s
        self._answer = True
        self._until = -math.inf
        self._asking: asyncio.Future[bool] | None = None

    async def __call__(self) -> bool:
        if time.monotonic() < self._until:
            return self._answer
        if self._asking is None:
            self._asking = asyncio.ensure_future(self._ask())
        return await asyncio.shield(self._asking)

    async def _ask(self) -> bool:
        try:
            answer = await self._check()
        finally:
            self._asking = None
        self._answer, self._until = answer, time.monotonic() + self._ttl_s
        return answer


async def reply_health(send: Send, database_reachable: DatabaseReachable | None) -> None:
    up = database_reachable is None or await database_reachable()
    body = b"ok\ndatabase: reachable\n" if up else b"database: unreachable\n"
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 200 if up else 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})
