"""Where a client-run subagent's conversation stands, read from the store.

A parent waiting on a child the client runs (`transport/dialect/task_client`)
watches the child's committed state rather than the runner's cache, since
on PostgreSQL another process may drive the child. What counts as the
child's answer to this Task call (its turn over, its last text, the calls
its turn made) is decided here, above the store, which only keeps the
link rows (`store/subagent_links`).
"""

from __future__ import annotations

from dataclasses import dataclass

from cursor_byok.llm.types import last_answer
from cursor_byok.loop.state import IDLE_STATUSES
from cursor_byok.store.base import Store


@dataclass(frozen=True, slots=True)
class ChildNow:
    """Where a child conversation stands, as committed."""

    status: str
    message_count: int
    answer: str = ""
    """The text of its last answer, once its turn is over."""
    model_calls: int = 0
    """The model calls its turn made, once it is over (its parent's turn
    counts them against its own limit)."""

    @property
    def resting(self) -> bool:
        return self.status in IDLE_STATUSES


def child_now(store: Store, child_id: str, after: int = 0) -> ChildNow | None:
    """The child as the store has it now (None: not stored): its head only
    while it runs, so watching a long child costs what watching a short one
    does (and another process may be the one driving it); its state once,
    when it rests."""
    head = store.timeline_window(child_id, 0, 0)
    if head is None:
        return None
    count = head.message_count
    if count <= after:  # nothing of this call's yet (a resumed child's old turns)
        return ChildNow(head.status, 0)
    if head.status not in IDLE_STATUSES:
        return ChildNow(head.status, count)
    loaded = store.load(child_id)  # once, at rest: its answer and its turn's call count
    if loaded is None:
        return ChildNow(head.status, count)
    state = loaded.state
    return ChildNow(head.status, count, last_answer(state.messages), state.turn_calls)
