"""A stream's synchronous body write, where the server under the app has one.

The ASGI `send` is a coroutine: a body write awaited from the stream's
writer task costs that task a wake-up per delta, a whole event-loop step
on a busy server. hypercorn's HTTP/2 connection, as this server runs it
(`h2_send.DirectSend`), can frame a body write at once when nothing of the
stream is queued and its windows hold it; this finds that path behind a
`send` without importing hypercorn (it is loaded once the port listens).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

SendNow = Callable[[bytes], bool]
"""A stream's synchronous write of body bytes: True if taken, False to take
the ASGI path (a window spent, something queued, the stream gone)."""


def direct_sender(send: Any) -> SendNow | None:
    """The synchronous write behind `send` (unwrapped through `__wrapped__`),
    or None where there is none (HTTP/1.1, another server)."""
    raw = getattr(send, "__wrapped__", send)
    stream = getattr(raw, "__self__", None)  # hypercorn's HTTPStream, its app_send bound
    protocol = getattr(getattr(stream, "send", None), "__self__", None)
    body_now = getattr(protocol, "send_body_now", None)
    if stream is None or body_now is None:
        return None
    sender: SendNow = partial(body_now, stream)
    return sender
