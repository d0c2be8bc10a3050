"""What the store offers the dashboard's timeline (kept apart from
`store.timeline_reads`, its SQL, so `store.base` can name it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from cursor_byok.llm.types import Message
from cursor_byok.store.call_rows import ModelCallRow


@dataclass(frozen=True, slots=True)
class TimelineWindow:
    """Messages `start` to `start + len(messages)` of a conversation whose
    history has `message_count`, with its status and resets (the indexes of
    compaction summaries); `calls` the rows of the model calls whose
    answers are (or would have been) in the window, `call_count` all its
    rows."""

    version: int
    status: str
    resets: tuple[int, ...]
    message_count: int
    start: int
    messages: Sequence[Message]
    calls: Sequence[ModelCallRow]
    call_count: int


class Timelines(Protocol):
    """A conversation's timeline a window at a time (`store.timeline_reads`)."""

    def timeline_window(self, conversation_id: str, start: int, size: int) -> TimelineWindow | None:
        """Up to `size` messages from index `start` on, and their calls;
        None when there is no such conversation."""
        ...
