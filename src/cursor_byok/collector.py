"""Garbage-collector settings for a long-running server process.

CPython's cyclic collector runs a young collection every 700 new container
objects and, now and then, a full one over everything alive. A server that
relays tens of thousands of deltas a second allocates that many objects in a
few milliseconds, and its full collections walk every module, protobuf
descriptor and cached history it holds: measured under load, collection took
about 8% of the server's CPU and a full pass paused the event loop for about
70 ms, which every open stream sees as a gap.

So once start-up is done, what it built is frozen (never scanned again: it
lives as long as the process) and young collections run less often. Reference
counting still frees almost everything at once; only cycles wait longer.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
"""New container objects between young collections (CPython's default: 700)."""


def settle_after_startup() -> None:
    """Freeze what start-up allocated and space out young collections."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
