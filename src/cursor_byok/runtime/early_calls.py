"""Model calls opened while the commit that plans them is in flight.

The runner (`early_calls`) opens such a call at once rather than after one
more database round trip; nothing the call streams may be published before
its planning commit lands, and if that commit does not land (a version
conflict, or the input was a duplicate) nothing of the call is published.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.runtime.conversation import Conversation

T = TypeVar("T")

STARTS_AT_ONCE = sys.version_info >= (3, 12)
"""Whether `start_at_once` runs the call at once (Python 3.12's eager tasks)."""


def start_at_once(call: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
    """A task running `call` up to its first wait before this returns, where
    Python can (3.12): the call builds and writes its request within the
    worker's loop step, not one step later. On a busy loop a step is the
    whole round of every other stream's ready callbacks."""
    if sys.version_info >= (3, 12):
        loop = asyncio.get_running_loop()
        return asyncio.Task(call, loop=loop, name=name, eager_start=True)
    return asyncio.create_task(call, name=name)


class EventGate:
    """A call's events held until its planning commit has landed, then passed
    on in order (`release`); if it did not land they are dropped, and so is
    all the call says afterwards (`discard`)."""

    __slots__ = ("_forward", "_held", "_open", "call_id", "settled")

    def __init__(self, call_id: str, forward: Callable[[ResponseEvent], None]) -> None:
        self.call_id = call_id
        self._forward = forward
        self._held: list[ResponseEvent] | None = []
        self._open = False
        self.settled = asyncio.Event()
        """Set once the commit is known to have landed or not."""

    def __call__(self, event: ResponseEvent) -> None:
        if self._open:
            self._forward(event)
        elif self._held is not None:
            self._held.append(event)

    def release(self) -> None:
        held, self._held = self._held or [], None
        self._open = True
        self.settled.set()
        for event in held:
            self._forward(event)

    def discard(self) -> None:
        self._held = None
        self.settled.set()


class EarlyCalls:
    """The gates of early calls whose planning commit is in flight, by call id."""

    def __init__(self) -> None:
        self._gates: dict[str, EventGate] = {}

    def open(self, call_id: str, forward: Callable[[ResponseEvent], None]) -> EventGate:
        gate = self._gates[call_id] = EventGate(call_id, forward)
        return gate

    def landed(self, conversation: Conversation, gate: EventGate) -> None:
        """The planning commit landed and its input is applied: what the call
        streamed meanwhile is handed over as if it arrived now, so its deltas
        take the reader's path (at once while nothing is queued ahead of
        them) rather than each queuing behind the worker."""
        self._gates.pop(gate.call_id, None)
        conversation.busy = False
        try:
            gate.release()
        finally:
            conversation.busy = True

    def abandon(self, call_id: str) -> bool:
        """The planning commit did not land: nothing of the call is passed
        on. True if there was such a call (its stream is to be stopped)."""
        gate = self._gates.pop(call_id, None)
        if gate is not None:
            gate.discard()
        return gate is not None

    async def settled(self, call_id: str) -> None:
        """Wait until the call's planning commit is known to have landed or not."""
        if (gate := self._gates.get(call_id)) is not None:
            await gate.settled.wait()
