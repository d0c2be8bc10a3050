"""Bookkeeping that lets the loop's ready I/O go first.

asyncio's loop runs, in each pass, the callbacks made ready during the last
pass, then those of the I/O its poll found ready, then the timers due. A
task that yields (`asyncio.sleep(0)`) resumes among the first, ahead of the
sockets that became readable meanwhile: with a few dozen busy streams, a
model's delta waiting in a socket then waits behind a turn's commit rows and
accounting as well. `after_polled_io` resumes after a pass's I/O instead (a
timer due at once): a delta read in that pass goes to its client first, and
the bookkeeping waits one pass, never more. On an idle loop the pass is
immediate.

(On uvloop, timers come before the poll: there it is a plain yield.)
"""

from __future__ import annotations

import asyncio


def after_polled_io() -> asyncio.Future[None]:
    """A future set once the loop's next poll has run the I/O it found ready."""
    loop = asyncio.get_running_loop()
    woken: asyncio.Future[None] = loop.create_future()
    loop.call_at(loop.time(), _wake, woken)
    return woken


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():  # (cancelled meanwhile: nothing waits)
        woken.set_result(None)
