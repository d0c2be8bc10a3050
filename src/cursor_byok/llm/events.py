"""The response stream: the events one model call produces, and the seam.

Grammar of one stream (adapters must keep it):

    stream := error | start block* (done | error)
    block  := X_start X_delta* X_end        (X in text, thinking, tool_call)

Only the last block may be left open before `error`. A block a provider's
own tool wrote (`ProviderBlock`, its web search) streams no events and
takes no index: it is in the `done` message only. The `done` message holds
the blocks the model wrote; a trailing text block the server wrote (a note on
why the provider stopped, a notice instead of an answer) is streamed but left
out of it, so it is shown and never becomes history. A delta carries the
content index and the new piece only, never a copy of the whole partial
message: copying per delta makes a response cost O(n^2) in its length.
Errors never escape as exceptions: they end the stream as an `ErrorEvent`
carrying the provider's status and message.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

from cursor_byok.llm.types import (
    AssistantMessage,
    DoneReason,
    ErrorReason,
    ToolCall,
)


@dataclass(frozen=True, slots=True)
class StartEvent:
    """The upstream accepted the request; a new attempt begins."""


@dataclass(frozen=True, slots=True)
class TextStart:
    content_index: int


@dataclass(frozen=True, slots=True)
class TextDelta:
    content_index: int
    delta: str


@dataclass(frozen=True, slots=True)
class TextEnd:
    content_index: int
    content: str


@dataclass(frozen=True, slots=True)
class ThinkingStart:
    content_index: int


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    content_index: int
    delta: str


@dataclass(frozen=True, slots=True)
class ThinkingEnd:
    content_index: int
    content: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A tool call opens; id and name are known from the first chunk on."""

    content_index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of the tool call's raw JSON argument string."""

    content_index: int
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    content_index: int
    tool_call: ToolCall


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """The response is complete; `message` is the only thing that enters history."""

    reason: DoneReason
    message: AssistantMessage


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """The call failed (`error`) or was cancelled (`aborted`).

    `message` is the partial response with `error_message` set. After a
    failure it is a record, never history; after an abort it holds all that
    streamed, the open block included, and the loop keeps it (as a new
    message marked interrupted) when a turn was canceled. `status` is the
    upstream HTTP status when there was one; `retryable` says whether
    repeating the identical request may succeed (connect errors,
    408/409/429/5xx, overload), and `retry_after` is the provider's hint in
    seconds.
    """

    reason: ErrorReason
    message: AssistantMessage
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None


ResponseEvent: TypeAlias = (
    StartEvent
    | TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | DoneEvent
    | ErrorEvent
)

TERMINAL_EVENTS = (DoneEvent, ErrorEvent)

_PIECES = (TextDelta, ThinkingDelta, ToolCallDelta)
JOINED_MAX = 32 * 1024
"""Characters past which no more deltas are joined to one: a compressed
body can bring megabytes in one read, and one message to the client should
stay a size that streams."""


def next_joined(pending: deque[ResponseEvent]) -> ResponseEvent:
    """Take the next event; if it is a delta, the deltas of the same block
    right behind it are taken too and joined into one (up to `JOINED_MAX`).
    The stream says the same (a delta's piece is only ever appended), in
    fewer events: pieces that came in one read of a busy socket then cost
    one trip downstream."""
    event = pending.popleft()
    if not pending or not isinstance(event, _PIECES):
        return event
    kind, index = type(event), event.content_index
    pieces: list[str] | None = None
    size = len(event.delta)
    while pending and size < JOINED_MAX:
        after = pending[0]
        if not isinstance(after, kind) or after.content_index != index:
            break
        if pieces is None:
            pieces = [event.delta]
        pieces.append(after.delta)
        size += len(after.delta)
        pending.popleft()
    if pieces is None:
        return event
    return kind(index, "".join(pieces))


class ResponseStream(Protocol):
    """One model call in flight. `recv` returns events in stream order and,
    after the terminal `done`/`error`, raises `StopAsyncIteration`."""

    async def recv(self) -> ResponseEvent: ...

    async def aclose(self) -> None:
        """Stop the call and release the connection; idempotent."""
        ...


@runtime_checkable
class PassesOn(Protocol):
    """A stream that can hand its deltas to the reader as they arrive, in
    the loop step that read them, while `recv` waits with nothing pending;
    the start, the terminal event and failures still come out of `recv`.
    Deltas of one block read together may be handed on joined (`next_joined`)."""

    def pass_on(self, take: Callable[[ResponseEvent], None]) -> None: ...
