"""Fakes at the true outer edge: the model provider and the client's sink.

`ScriptedLLM` plays prepared event lists as model calls (one script per call,
in order) and records every request it was sent, as canonical bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    ResponseStream,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.serialize import request_bytes
from cursor_byok.llm.types import RequestMessages
from cursor_byok.llm.upstream_errors import UpstreamError
from cursor_byok.runtime.outbound import Outbound


@dataclass
class ScriptedStream:
    """Plays its events; closed before its end, it ends like a real stream:
    with an `aborted` event carrying what was played (built by the real
    assembler), then nothing."""

    events: list[ResponseEvent]
    delay: float = 0.0
    closed: bool = False
    position: int = 0
    last_word: ErrorEvent | None = None
    last_word_delay: float = 0.0
    """How long the stopped stream takes to hand over its partial response."""

    async def recv(self) -> ResponseEvent:
        if self.closed:
            last_word = self.last_word
            if last_word is None:
                raise StopAsyncIteration
            self.last_word = None
            await asyncio.sleep(self.last_word_delay)
            return last_word
        if self.position >= len(self.events):
            raise StopAsyncIteration
        if self.delay:
            await asyncio.sleep(self.delay)
        event = self.events[self.position]
        self.position += 1
        return event

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        played = self.events[: self.position]
        if played and not isinstance(played[-1], DoneEvent | ErrorEvent):
            self.last_word = partial_of(played)


def partial_of(played: list[ResponseEvent]) -> ErrorEvent:
    """The `aborted` event an adapter ends with when stopped after `played`."""
    assembler = Assembler("test-api", "test", "test-model", 2)
    for event in played:
        match event:
            case TextStart():
                assembler.open_text()
            case ThinkingStart():
                assembler.open_thinking()
            case ToolCallStart(id=call_id, name=name):
                assembler.open_tool_call(call_id, name)
            case TextDelta(delta=piece) | ThinkingDelta(delta=piece) | ToolCallDelta(delta=piece):
                assembler.delta(piece)
            case TextEnd() | ThinkingEnd() | ToolCallEnd():
                assembler.close()
            case _:
                pass
    assembler.fail(UpstreamError("the call was cancelled"), reason="aborted")
    last = assembler.out[-1]
    assert isinstance(last, ErrorEvent)
    return last


@dataclass
class ScriptedLLM:
    """Each call takes the next script; a script is the list of events one
    attempt produces. Requests are recorded as canonical bytes."""

    scripts: list[list[ResponseEvent]]
    delay: float = 0.0
    requests: list[tuple[str, bytes]] = field(default_factory=list)
    streams: list[ScriptedStream] = field(default_factory=list)
    last_word_delay: float = 0.0

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        self.requests.append((model, request_bytes(request)))
        if not self.scripts:
            raise AssertionError("the model was called more often than scripted")
        stream = ScriptedStream(self.scripts.pop(0), self.delay)
        stream.last_word_delay = self.last_word_delay
        self.streams.append(stream)
        return stream


@dataclass
class PausedStream(ScriptedStream):
    """Plays its events but waits at `pause_at` until the gate opens."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    pause_at: int = 0

    async def recv(self) -> ResponseEvent:
        if self.position == self.pause_at and not self.closed:
            await self.gate.wait()
        return await super().recv()


@dataclass
class PausingLLM(ScriptedLLM):
    """A model whose answers stop after `pause_at` events until `gate` is set
    (a slow first token, a stalled stream); `delay` spaces every event."""

    pause_at: int = 0
    gate: asyncio.Event = field(default_factory=asyncio.Event)

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        played = await super().call(model, ctx, request)
        assert isinstance(played, ScriptedStream)
        paused = PausedStream(played.events, self.delay, gate=self.gate, pause_at=self.pause_at)
        self.streams[-1] = paused  # the stream handed out is the one recorded
        return paused


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
