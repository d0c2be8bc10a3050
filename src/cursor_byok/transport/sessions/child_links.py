"""Client-run subagents found again: the child conversation a parent's Task
call started, so that a Task call asked again (a resume on a new stream, a
restart) never starts a second one.

The link is written when the child's first run arrives (its headers name
the parent's request and Task call, `parent_links`), before its first
input is committed: a link to a child never stored reads as no child. The
Task call, asked again, looks it up (`store.subagent_links`) and, while the
child runs (its client resumes it on a request of its own), watches its
committed state in the store (whichever process drives it) until it rests.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from cursor_byok.loop.state import SubagentOf
from cursor_byok.runtime.child_status import ChildNow, child_now
from cursor_byok.store.base import Store
from cursor_byok.store.subagent_links import LinkedChild, link_child, linked

WATCH_S = 0.2
"""How often a waiting Task call reads its running child's committed state."""
START_GRACE_S = 5.0
"""How long a linked child may take to commit its first input."""


@dataclass(frozen=True, slots=True)
class ChildLinks:
    """The links of one store (None: nothing is linked, nothing found)."""

    store: Store | None = None

    async def link(self, parent: SubagentOf, child_id: str) -> None:
        """Record the child of `parent`'s Task call (the first one stays)."""
        if self.store is None or not parent.conversation_id:
            return
        await asyncio.to_thread(
            link_child, self.store, parent.conversation_id, parent.tool_call_id, child_id
        )

    async def child(self, parent_id: str, tool_call_id: str) -> LinkedChild | None:
        """The child conversation linked to the Task call, or None."""
        if self.store is None:
            return None
        return await asyncio.to_thread(linked, self.store, parent_id, tool_call_id)

    async def rested(self, child: LinkedChild, timeout_s: float) -> ChildNow | None:
        """The child as committed once it rests (its turn over); None when
        it does not within `timeout_s`. A child linked with nothing
        committed (its run arrived an instant ago, or the process died in
        between) is waited for `START_GRACE_S`; its empty state then says
        it never started."""
        store = self.store
        if store is None:
            return None
        start = time.monotonic()
        while True:
            now = await asyncio.to_thread(child_now, store, child.conversation_id, child.base)
            empty = now is None or now.message_count == 0
            if now is not None and not empty and now.resting:
                return now
            waited = time.monotonic() - start
            if empty and waited >= min(START_GRACE_S, timeout_s):
                return ChildNow("ready", 0)
            if waited >= timeout_s:
                return None
            await asyncio.sleep(WATCH_S)
