"""A response written by the server itself, streamed like a model's.

Used where the right answer to the user is text and a normal end of the turn
rather than an error banner: no model or key configured. The text is streamed
but the final message has no content: the loop appends nothing for it, so the
next request never shows the model words it did not write.
"""

from __future__ import annotations

import time

from cursor_byok.llm.events import (
    DoneEvent,
    ResponseEvent,
    StartEvent,
    TextDelta,
    TextEnd,
    TextStart,
)
from cursor_byok.llm.types import AssistantMessage


class NoticeStream:
    """A one-message stream written by the server itself (no provider)."""

    def __init__(self, text: str) -> None:
        message = AssistantMessage(
            content=(),
            api="cursor-byok",
            provider="cursor-byok",
            model="notice",
            stop_reason="stop",
            timestamp=int(time.time() * 1000),
        )
        self._events: list[ResponseEvent] = [
            StartEvent(),
            TextStart(0),
            TextDelta(0, text),
            TextEnd(0, text),
            DoneEvent("stop", message),
        ]

    async def recv(self) -> ResponseEvent:
        if not self._events:
            raise StopAsyncIteration
        return self._events.pop(0)

    async def aclose(self) -> None:
        self._events.clear()
