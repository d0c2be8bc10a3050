"""The order in which one event-loop pass serves the sockets it found ready.

asyncio runs the read callbacks of a pass in the order the selector lists
the sockets, and under load a pass holds dozens of streams' reads. Two
kinds of read decide how long a user waits for the first word of an answer,
and both are rare next to the steady relay of deltas: a client's request
(a new turn, or the flow-control credit its streams wait on) and the first
read of a model answer. A socket marked here (`serve_first`) is served
ahead of the others found ready in the same pass; every ready socket is
still served in that pass, so nothing waits longer than one pass, as before.

The marks are file descriptors, kept for the process: whoever marks one
unmarks it (`served_in_turn`) before the socket is closed, so a number the
kernel reuses starts unmarked.
"""

from __future__ import annotations

import asyncio
import selectors
import sys

_FIRST: set[int] = set()


def serve_first(fd: int) -> None:
    """Serve `fd`'s readiness ahead of unmarked sockets, until unmarked."""
    if fd >= 0:
        _FIRST.add(fd)


def served_in_turn(fd: int) -> None:
    """Back to the selector's own order (unmarking an unmarked fd is a no-op)."""
    _FIRST.discard(fd)


def marked() -> frozenset[int]:
    """The marked descriptors (for checks and tests)."""
    return frozenset(_FIRST)


class FirstServedSelector(selectors.DefaultSelector):
    """The platform's default selector, its ready list with marked sockets first."""

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready: list[tuple[selectors.SelectorKey, int]] = super().select(timeout)
        first = _FIRST
        if not first or len(ready) < 2:
            return ready
        ahead = [event for event in ready if event[0].fd in first]
        if not ahead or len(ahead) == len(ready):
            return ready
        return ahead + [event for event in ready if event[0].fd not in first]


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The server's loop: asyncio's selector loop on `FirstServedSelector`
    (on Windows, asyncio's default loop, unordered)."""
    if sys.platform == "win32":
        return asyncio.new_event_loop()
    return asyncio.SelectorEventLoop(FirstServedSelector())
