"""A conversation as the runner holds it: its queue of inputs, in the order
they reach the loop, and what the worker knows of its committed state."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.loop.inputs import Input
from cursor_byok.loop.state import ConversationState, RuntimeState
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


@dataclass(slots=True)
class Conversation:
    conversation_id: str
    queue: asyncio.Queue[External | StreamEvent | Inspect] = field(default_factory=asyncio.Queue)
    state: RuntimeState | None = None
    version: int = 0
    reader: asyncio.Task[None] | None = None
    worker: asyncio.Task[None] | None = None
    turn_started: float | None = None
    touched: float = field(default_factory=time.monotonic)
    busy: bool = True
    """The worker is applying an input (or not started yet): model events queue."""
