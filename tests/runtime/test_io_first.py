"""`after_polled_io` on asyncio's own loop (the one `serve` runs): a socket
that became readable before the wait has its callback run before the
waiter resumes, where a plain yield resumes ahead of it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

from cursor_byok.runtime.io_first import after_polled_io


async def read_before(wait: Callable[[], Awaitable[None]]) -> bool:
    """Whether a readable socket's callback ran before `wait()` returned."""
    loop = asyncio.get_running_loop()
    assert type(loop).__module__.startswith("asyncio"), "about asyncio's own loop"
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    seen: list[bytes] = []
    loop.add_reader(ours.fileno(), lambda: seen.append(ours.recv(16)))
    try:
        await asyncio.sleep(0.01)  # a pass with nothing ready: the loop at rest
        theirs.send(b"delta")  # ready by the next poll
        await wait()
        return seen == [b"delta"]
    finally:
        loop.remove_reader(ours.fileno())
        ours.close()
        theirs.close()


async def test_the_io_ready_at_the_wait_runs_before_the_waiter_resumes() -> None:
    assert await read_before(after_polled_io)


async def test_a_plain_yield_resumes_ahead_of_it() -> None:
    """The premise: asyncio runs a pass's ready callbacks before its poll's
    I/O. If a new Python changes that, this says so."""
    assert not await read_before(lambda: asyncio.sleep(0))


async def test_a_waiter_cancelled_meanwhile_leaves_nothing_behind() -> None:
    loop = asyncio.get_running_loop()
    errors: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    try:
        waiting = after_polled_io()
        waiting.cancel()
        await asyncio.sleep(0.01)  # the timer fires on a cancelled future
    finally:
        loop.set_exception_handler(None)
    assert waiting.cancelled() and errors == []
