"""`GET /healthz`: 200 while this process can serve, 503 when its database
does not answer, so a load balancer takes the process out of rotation. The
body says only reachable or unreachable: /healthz needs no token."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cursor_byok.transport.http.stream_writer import Send

DatabaseReachable = Callable[[], Awaitable[bool]]


async def reply_health(send: Send, database_reachable: DatabaseReachable | None) -> None:
    up = database_reachable is None or await database_reachable()
    body = b"ok\ndatabase: reachable\n" if up else b"database: unreachable\n"
    headers = [(b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": 200 if up else 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})
