"""A conversation as the runner holds it: its queue of inputs, in the order
they reach the loop, and what the worker knows of its committed state."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.loop.inputs import Input
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState, RuntimeState
from cursor_byok.runtime.outcome import Outcome


@dataclass(slots=True)
class External:
    input_id: str
    input: Input
    done: asyncio.Future[Outcome]


@dataclass(slots=True)
class StreamEvent:
    call_id: str
    event: ResponseEvent


@dataclass(slots=True)
class Inspect:
    """Load (and on a first load, resume) in the worker, in queue order, so
    loading never races an input being applied."""

    done: asyncio.Future[ConversationState | None]


def describe(item: External | StreamEvent | Inspect) -> str:
    """What a work item is, for a log line."""
    if isinstance(item, External):
        return f"input {item.input_id} ({type(item.input).__name__})"
    if isinstance(item, StreamEvent):
        return f"model event of {item.call_id}"
    return "the load"


@dataclass(slots=True)
class Conversation:
    conversation_id: str
    queue: asyncio.Queue[External | StreamEvent | Inspect] = field(default_factory=asyncio.Queue)
    state: RuntimeState | None = None
    version: int = 0
    reader: asyncio.Task[None] | None = None
    in_flight: str | None = None
    """The call `reader` reads until the worker has taken its last event: a
    call whose stream has ended here is in flight while its end is queued."""
    worker: asyncio.Task[None] | None = None
    turn_started: float | None = None
    touched: float = field(default_factory=time.monotonic)
    busy: bool = True
    """The worker is applying an input (or not started yet): model events queue."""
    stopping: tuple[str, asyncio.Future[ResponseEvent]] | None = None
    """A call being stopped, and where its last word goes (`stop_call`)."""

    def idle_since(self, moment: float) -> bool:
        """Nothing happened since `moment`, nothing is in flight or queued."""
        state = self.state
        idle = state is None or state.committed.status in IDLE_STATUSES
        reading = self.reader is not None and not self.reader.done()
        return idle and not reading and self.queue.empty() and self.touched < moment

    def put(self, input_id: str, input_: Input) -> asyncio.Future[Outcome]:
        """Queue an external input; the future says how it was taken."""
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(External(input_id, input_, done))
        return done

    def stop_reader(self) -> None:
        if self.reader is not None and not self.reader.done():
            self.reader.cancel()
        self.reader = None
        self.in_flight = None

    def fail_waiters(self, error: Exception) -> None:
        """Nobody will process what is still queued: release its waiters."""
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if isinstance(item, External | Inspect) and not item.done.done():
                item.done.set_exception(error)


IDLE_CONVERSATION_TTL_S = 900.0
SWEEP_INTERVAL_S = 60.0


class IdleSweep:
    """Forgets the conversations idle for `IDLE_CONVERSATION_TTL_S` (their
    state is in the store and is loaded again on the next input, so memory
    stays bounded), looking at most once a `SWEEP_INTERVAL_S`."""

    def __init__(self) -> None:
        self._last = time.monotonic()

    def __call__(self, conversations: dict[str, Conversation]) -> None:
        now = time.monotonic()
        if now - self._last < SWEEP_INTERVAL_S:
            return
        self._last = now
        evict_idle(conversations, now - IDLE_CONVERSATION_TTL_S)


def evict_idle(conversations: dict[str, Conversation], moment: float) -> None:
    """Forget the conversations idle since `moment` (their workers stop)."""
    for conversation_id, conversation in list(conversations.items()):
        if conversation.idle_since(moment):
            if conversation.worker is not None:
                conversation.worker.cancel()
            del conversations[conversation_id]
