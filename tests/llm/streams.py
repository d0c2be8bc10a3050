"""Reading a `ResponseStream` to the end, and checking the event grammar."""

from __future__ import annotations

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    ResponseStream,
    StartEvent,
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
from cursor_byok.llm.types import ProviderBlock

_STARTS = (TextStart, ThinkingStart, ToolCallStart)
_DELTAS = {TextStart: TextDelta, ThinkingStart: ThinkingDelta, ToolCallStart: ToolCallDelta}
_ENDS = {TextStart: TextEnd, ThinkingStart: ThinkingEnd, ToolCallStart: ToolCallEnd}


async def collect(stream: ResponseStream) -> list[ResponseEvent]:
    events: list[ResponseEvent] = []
    while True:
        try:
            events.append(await stream.recv())
        except StopAsyncIteration:
            return events


def check_grammar(events: list[ResponseEvent]) -> None:
    """stream := error | start block* (done | error); only the last block may stay open."""
    assert events, "empty stream"
    if isinstance(events[0], ErrorEvent):
        assert len(events) == 1
        return
    assert isinstance(events[0], StartEvent)
    assert isinstance(events[-1], DoneEvent | ErrorEvent)
    open_kind: type | None = None
    open_index = -1
    next_index = 0
    for event in events[1:-1]:
        if isinstance(event, _STARTS):
            assert open_kind is None, f"{event} while a block is open"
            assert event.content_index == next_index
            open_kind, open_index = type(event), event.content_index
            next_index += 1
        else:
            assert open_kind is not None, f"{event} outside a block"
            assert getattr(event, "content_index", None) == open_index
            if isinstance(event, _ENDS[open_kind]):
                open_kind = None
            else:
                assert isinstance(event, _DELTAS[open_kind]), event
    if isinstance(events[-1], DoneEvent):
        assert open_kind is None
        # Trailing blocks the server wrote are streamed but not in the message.
        streamed = [b for b in events[-1].message.content if not isinstance(b, ProviderBlock)]
        assert len(streamed) <= next_index


def done_of(events: list[ResponseEvent]) -> DoneEvent:
    check_grammar(events)
    last = events[-1]
    assert isinstance(last, DoneEvent), last
    return last


def error_of(events: list[ResponseEvent]) -> ErrorEvent:
    check_grammar(events)
    last = events[-1]
    assert isinstance(last, ErrorEvent), last
    return last
