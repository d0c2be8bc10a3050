"""The runner's sink: a conversation's output goes to the stream serving it.

When no stream serves the conversation (say the runner resumed it after a
restart before the client reconnected), output is stashed for the next one.
The stash is bounded: past `limit` items, and from the moment the turn's end
is stashed, streamed deltas are dropped (they are cosmetic; the history has
the whole message) while commands and other events are kept. Stashes nobody
picks up are swept like sessions, and are charged to the memory budget,
which may drop the oldest (the history has what they held; a stream that
resumes the conversation asks the runner where the turn stands).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from cursor_byok.llm.events import TextDelta, ThinkingDelta, ToolCallDelta
from cursor_byok.loop.commands import Canceled, Failed, Final
from cursor_byok.runtime.logsafe import logfmt_value
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.transport.sessions.memory_budget import MemoryBudget
from cursor_byok.transport.sessions.registry import ENDED_SESSION_TTL_S, IDLE_SESSION_TTL_S

log = logging.getLogger(__name__)

STASH_LIMIT = 10_000
ITEM_BYTES = 200
"""What a stashed item costs besides its text, for the memory budget."""

_DELTAS = (TextDelta, ThinkingDelta, ToolCallDelta)
_ENDS = (Final, Failed, Canceled)


class Target(Protocol):
    """A stream that can take a conversation's output (a session)."""

    @property
    def ended(self) -> bool: ...

    def deliver(self, conversation_id: str, item: Outbound) -> None:
        """Encode and queue `item`; must not block."""
        ...


@dataclass(slots=True, eq=False)
class _Stash:
    conversation_id: str
    owner: OutputSink
    items: list[Outbound] = field(default_factory=list)
    ended_at: float | None = None
    touched: float = 0.0

    def idle(self) -> bool:
        return True  # nobody reads a stash until it is taken

    def drop(self, reason: str) -> None:
        if self.owner._stash.get(self.conversation_id) is self:
            self.owner._remove(self.conversation_id)


class OutputSink:
    def __init__(
        self,
        limit: int = STASH_LIMIT,
        clock: Callable[[], float] = time.monotonic,
        budget: MemoryBudget | None = None,
    ) -> None:
        self._limit = limit
        self._clock = clock
        self._budget = budget if budget is not None else MemoryBudget()
        self._serving: dict[str, Target] = {}
        self._stash: OrderedDict[str, _Stash] = OrderedDict()
        """Least recently touched first."""
        self._ended: OrderedDict[str, float] = OrderedDict()
        """Conversation id -> when its turn's end was stashed, earliest first."""

    def publish(self, conversation_id: str, item: Outbound) -> None:
        target = self._serving.get(conversation_id)
        if target is None or target.ended:
            self._keep(conversation_id, item)
            return
        target.deliver(conversation_id, item)

    def serve(self, conversation_id: str, target: Target) -> Target | None:
        """`target` serves the conversation from now on; returns the one it replaces."""
        previous = self._serving.get(conversation_id)
        self._serving[conversation_id] = target
        return previous if previous is not target else None

    def serving(self, conversation_id: str) -> Target | None:
        return self._serving.get(conversation_id)

    def taken_over(self, conversation_id: str | None, target: Target) -> bool:
        """Whether another stream serves the conversation now (a resume took it)."""
        serving = self._serving.get(conversation_id) if conversation_id else None
        return serving is not None and serving is not target

    def release(self, conversation_id: str, target: Target) -> None:
        """`target` no longer serves the conversation (its turn ended)."""
        if self._serving.get(conversation_id) is target:
            del self._serving[conversation_id]

    def release_all(self) -> None:
        self._serving.clear()

    def take_stash(self, conversation_id: str) -> list[Outbound]:
        """What was kept for the conversation, oldest first; the stash empties."""
        kept = self._remove(conversation_id)
        return [] if kept is None else kept.items

    def _remove(self, conversation_id: str) -> _Stash | None:
        self._ended.pop(conversation_id, None)
        self._budget.forget(_key(conversation_id))
        return self._stash.pop(conversation_id, None)

    def stashed(self, conversation_id: str) -> int:
        kept = self._stash.get(conversation_id)
        return 0 if kept is None else len(kept.items)

    def _keep(self, conversation_id: str, item: Outbound) -> None:
        now = self._clock()
        kept = self._stash.get(conversation_id)
        key = _key(conversation_id)
        if kept is None:
            self.sweep()
            kept = self._stash[conversation_id] = _Stash(conversation_id, self, touched=now)
            self._budget.track(key, kept, "stash")
        kept.touched = now
        self._stash.move_to_end(conversation_id)
        is_delta = isinstance(item, _DELTAS)
        if is_delta and (kept.ended_at is not None or len(kept.items) >= self._limit):
            return
        if isinstance(item, _ENDS):
            kept.ended_at = self._ended[conversation_id] = now
            deltas = [i for i in kept.items if isinstance(i, _DELTAS)]
            self._budget.refund(key, sum(map(item_bytes, deltas)))
            kept.items = [i for i in kept.items if not isinstance(i, _DELTAS)]
        refused = self._budget.charge(key, item_bytes(item))
        if refused is not None:
            # Over the budget: this stash is the state that goes.
            log.warning("stash of %s dropped: %s", logfmt_value(conversation_id), refused)
            kept.drop("over the memory budget")
            return
        kept.items.append(item)

    def sweep(self) -> None:
        """Remove what expired, oldest first: only what goes is looked at
        (plus one that stays), however many stashes there are."""
        now = self._clock()
        while self._ended and now - next(iter(self._ended.values())) > ENDED_SESSION_TTL_S:
            self._remove(next(iter(self._ended)))
        while self._stash and now - next(iter(self._stash.values())).touched > IDLE_SESSION_TTL_S:
            self._remove(next(iter(self._stash)))


def item_bytes(item: Outbound) -> int:
    """About what an item holds: a fixed cost plus its strings (one level deep)."""
    size = ITEM_BYTES
    for part in dataclasses.fields(item) if dataclasses.is_dataclass(item) else ():
        value = getattr(item, part.name)
        if isinstance(value, str | bytes):
            size += len(value)
    return size


def _key(conversation_id: str) -> str:
    return f"stash {conversation_id}"
