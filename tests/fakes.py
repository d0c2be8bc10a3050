"""Fakes at the true outer edge: the model provider and the client's sink.

`ScriptedLLM` plays prepared event lists as model calls (one script per call,
in order) and records every request it was sent, as canonical bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from cursor_byok.llm.events import ResponseEvent, ResponseStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.serialize import request_bytes
from cursor_byok.llm.types import RequestMessages
from cursor_byok.runtime.runner import Outbound


@dataclass
class ScriptedStream:
    events: list[ResponseEvent]
    delay: float = 0.0
    closed: bool = False
    position: int = 0

    async def recv(self) -> ResponseEvent:
        if self.closed or self.position >= len(self.events):
            raise StopAsyncIteration
        if self.delay:
            await asyncio.sleep(self.delay)
        event = self.events[self.position]
        self.position += 1
        return event

    async def aclose(self) -> None:
        self.closed = True


@dataclass
class ScriptedLLM:
    """Each call takes the next script; a script is the list of events one
    attempt produces. Requests are recorded as canonical bytes."""

    scripts: list[list[ResponseEvent]]
    delay: float = 0.0
    requests: list[tuple[str, bytes]] = field(default_factory=list)
    streams: list[ScriptedStream] = field(default_factory=list)

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        self.requests.append((model, request_bytes(request)))
        if not self.scripts:
            raise AssertionError("the model was called more often than scripted")
        stream = ScriptedStream(self.scripts.pop(0), self.delay)
        self.streams.append(stream)
        return stream


@dataclass
class RecordingSink:
    """Collects everything published, per conversation, and wakes waiters."""

    items: dict[str, list[Outbound]] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, conversation_id: str, item: Outbound) -> None:
        self.items.setdefault(conversation_id, []).append(item)
        self.changed.set()

    def of(self, conversation_id: str) -> list[Outbound]:
        return self.items.get(conversation_id, [])

    async def wait_for(
        self, conversation_id: str, kinds: type | tuple[type, ...], count: int = 1
    ) -> Sequence[Outbound]:
        async def ready() -> Sequence[Outbound]:
            while True:
                found = [i for i in self.of(conversation_id) if isinstance(i, kinds)]
                if len(found) >= count:
                    return found
                self.changed.clear()
                await self.changed.wait()

        return await asyncio.wait_for(ready(), timeout=10)
