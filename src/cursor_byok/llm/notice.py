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

SERVER = "cursor-byok"
"""The `api` and `provider` of a message the server wrote itself; its
`model` says what kind (`notice`, `budget`)."""

BUDGET = "budget"
"""A call refused because its user's budget is used up."""
BUDGET_UNCHECKED = "budget-unchecked"
"""A call not made because its user's budget could not be checked."""


def server_error(kind: str, text: str) -> AssistantMessage:
    """The message of an error the server itself ends a call with, marked
    with its kind so the transport can show it for what it is."""
    return AssistantMessage(
        content=(), api=SERVER, provider=SERVER, model=kind, stop_reason="error", error_message=text
    )


def is_server_error(message: AssistantMessage, kind: str) -> bool:
    return message.provider == SERVER and message.model == kind


class NoticeStream:
    """A one-message stream written by the server itself (no provider)."""

    def __init__(self, text: str) -> None:
        message = AssistantMessage(
            content=(),
            api=SERVER,
            provider=SERVER,
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
