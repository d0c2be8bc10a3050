"""uvicorn's HTTP/1.1 protocol with a deadline for each request's head.

uvicorn closes an idle keep-alive connection only until the next byte
arrives, and never bounds a request head that does not complete: a client
that connects and says nothing, or sends one header line and stops, holds
its connection forever. Here every connection must deliver a complete
request head within a deadline of connecting or of its previous response,
or it is closed. (The body has its own deadline, in `request_body`.)
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class HeadDeadlineH11(H11Protocol):
    """Set `head_timeout_s` on a subclass (see `with_head_deadline`)."""

    head_timeout_s: float = 30.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._expire)

    def _expire(self) -> None:
        """Close the connection if it is still waiting for a request head; a
        request in progress is left to the body deadline and the app."""
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def with_head_deadline(seconds: float) -> type[HeadDeadlineH11]:
    """The protocol class for uvicorn's `http=` option, with its deadline."""
    return type("HeadDeadlineH11", (HeadDeadlineH11,), {"head_timeout_s": seconds})
