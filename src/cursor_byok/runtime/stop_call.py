"""Stopping a model call that a cancel ended (the loop's `StopCall`).

The loop commits a cancel of a streaming call only with the call's last
word, the partial response the stopped stream hands over: so the runner
stops the reader and waits for that word (the reader's own wait for it is
bounded, `model_call.PARTIAL_WAIT_S`), taking it directly rather than
through the queue, and hands over an empty `aborted` event when none came.
Meanwhile the call's other events go nowhere: its turn is ending.
"""

from __future__ import annotations

import asyncio

from cursor_byok.llm.events import DoneEvent, ErrorEvent, ResponseEvent
from cursor_byok.llm.types import AssistantMessage
from cursor_byok.runtime.conversation import Conversation
from cursor_byok.runtime.model_call import PARTIAL_WAIT_S

STOP_WAIT_S = PARTIAL_WAIT_S + 1.0
"""The most a stop waits for the reader to end (its own wait, plus a margin)."""


def nothing_streamed() -> ErrorEvent:
    """The last word of a call that said none: nothing to keep."""
    message = AssistantMessage(
        content=(), api="", provider="", model="", stop_reason="aborted", error_message="stopped"
    )
    return ErrorEvent("aborted", message)


async def last_word(conversation: Conversation, call_id: str) -> ResponseEvent:
    """Stop the reader of `call_id` and return its last word."""
    reader = conversation.reader
    if reader is None or reader.done() or conversation.in_flight != call_id:
        return nothing_streamed()
    word: asyncio.Future[ResponseEvent] = asyncio.get_running_loop().create_future()
    conversation.stopping = (call_id, word)
    try:
        conversation.stop_reader()
        await asyncio.wait({reader}, timeout=STOP_WAIT_S)
    finally:
        conversation.stopping = None
    return word.result() if word.done() else nothing_streamed()


def caught(conversation: Conversation, call_id: str, event: ResponseEvent) -> bool:
    """Whether the event belongs to a call being stopped (then it is taken
    here: its last word is kept, the rest goes nowhere)."""
    stopping = conversation.stopping
    if stopping is None or stopping[0] != call_id:
        return False
    word = stopping[1]
    if isinstance(event, DoneEvent | ErrorEvent) and not word.done():
        word.set_result(event)
    return True
