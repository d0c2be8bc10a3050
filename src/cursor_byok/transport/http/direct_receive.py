"""A Run stream's request message taken in the step that read it.

hypercorn hands an HTTP/2 stream's request body to the app through an
`asyncio.Queue`: the ASGI `receive` is the queue's `get`, and a message put
while the stream's reader waits on it wakes that reader one event-loop step
later, a whole round of every other stream's ready callbacks on a busy
server. The run request is on the way to the model call: so while the
reader waits on an empty queue with no message of its own in hand, a body
message is taken at once, in the step that read it off the socket (Python
3.12's eager tasks), and anything that comes meanwhile goes through the
queue as before, to the reader, which settles the message taken first.

This reaches behind `receive` as `send_now` reaches behind `send`, without
importing hypercorn: where `receive` is not a queue's `get` (HTTP/1.1,
another server) there is no direct path and nothing changes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

from cursor_byok.runtime.early_calls import STARTS_AT_ONCE, start_at_once
from cursor_byok.transport.http.run_messages import Taken

log = logging.getLogger(__name__)

Message = Mapping[str, Any]
SETTLE: Message = {"type": "cursor_byok.settle"}
"""Put for the reader when a message taken directly ended the stream."""


class DirectReceive:
    """Installed on the queue behind one stream's `receive` for as long as
    its reader reads (`close` takes it off)."""

    def __init__(
        self, queue: asyncio.Queue[Any], take: Callable[[Message], Coroutine[Any, Any, Taken]]
    ):
        self._queue = queue
        self._take = take
        self.waiting = False
        """The reader waits in `receive` (set by the reader around it)."""
        self._taking: asyncio.Task[Taken] | None = None
        queue.put_nowait = self._put  # type: ignore[method-assign,assignment]  # this instance only

    @classmethod
    def behind(
        cls,
        receive: Callable[[], Awaitable[Message]],
        take: Callable[[Message], Coroutine[Any, Any, Taken]],
    ) -> DirectReceive | None:
        queue = getattr(getattr(receive, "__wrapped__", receive), "__self__", None)
        if not STARTS_AT_ONCE or not isinstance(queue, asyncio.Queue):
            return None
        return cls(queue, take)

    def _put(self, message: Message) -> None:
        direct = (
            self.waiting
            and self._taking is None
            and self._queue.empty()
            and message.get("type") == "http.request"
        )
        if not direct:
            asyncio.Queue.put_nowait(self._queue, message)
            return
        self._taking = taking = start_at_once(self._take(message), "run request message")
        if taking.done():
            self._taken(taking)
        else:
            taking.add_done_callback(self._taken)

    def _taken(self, taking: asyncio.Task[Taken]) -> None:
        """A message taken directly was handed on. If the stream reads on, the
        next may be taken directly too; if not (or it failed), the reader is
        woken to settle it."""
        if self._taking is not taking:
            return
        if not taking.cancelled() and taking.exception() is None and taking.result() is Taken.MORE:
            self._taking = None
            return
        asyncio.Queue.put_nowait(self._queue, SETTLE)

    async def settle(self) -> Taken:
        """What the message taken directly came to, once it is handed on
        (MORE if there is none); its failure is raised here."""
        taking, self._taking = self._taking, None
        return Taken.MORE if taking is None else await taking

    def close(self) -> None:
        """The reader is done: later messages go to the queue; a message
        still being taken is stopped, as the reader's own would be."""
        del self._queue.put_nowait
        taking = self._taking
        if taking is None or taking.cancelled():
            return
        if not taking.done():
            taking.cancel()
        elif (error := taking.exception()) is not None:  # never settled: said here
            log.error("a Run request message failed", exc_info=error)
