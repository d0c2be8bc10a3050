"""A runner for several processes on one database: one owner per conversation.

The plain `Runner` is the one-process path (SQLite) and pays nothing for
this. `LeasedRunner` adds two things around it:

- Before a conversation is loaded or worked on, this process must hold its
  lease. A lease still fresh in memory costs nothing; one near its end (or
  never taken) costs one round trip. A lease taken anew means another process
  may have written since, so the state is loaded again and, as after a
  restart, work left in flight is resumed. A conversation another live
  process owns raises `NotOwner`.
- A keeper task renews the leases of conversations with work in flight,
  releases those gone idle (so the next process to see an input takes them
  at once), and adopts active conversations whose owner's lease has expired:
  a process that died mid-turn is replaced within the lease plus one beat.

A process can lose a lease it still works under: its keeper ran late (an
overloaded loop, a slow database) and another process took the
conversation over. Every input and model event claims the lease first (free
while it is fresh, one round trip once half of it is used, so a busy
conversation renews itself even when the keeper is late), and a claim
refused ends the work here: the model stream is stopped, queued events are
dropped and `on_lost` tells the transport, which ends the conversation's
open stream with a retryable error so the client resumes where the new
owner is. The store's version compare-and-swap stays the last word: a
process that lost its lease while a commit was on the way sees a version
conflict. A model event that skips the worker's queue (the runner's fast
path for deltas) does so only while a claim would be free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from cursor_byok.cluster.lease import Leases
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.loop.state import IDLE_STATUSES
from cursor_byok.runtime.conversation import Conversation, External, StreamEvent
from cursor_byok.runtime.outcome import Outcome, OwnedElsewhere
from cursor_byok.runtime.records import FirstLoad
from cursor_byok.runtime.runner import Runner
from cursor_byok.runtime.stop_call import caught
from cursor_byok.store.base import StoreError

log = logging.getLogger(__name__)


class NotOwner(OwnedElsewhere):
    """Another live process owns this conversation now."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__(f"conversation {conversation_id} is owned by another process")
        self.conversation_id = conversation_id


class LeasedRunner(Runner):
    """A `Runner` that works only on the conversations whose lease it holds."""

    def __init__(self, *args: Any, leases: Leases, **kwargs: Any) -> None:
        # No model call opens before its planning commit lands: with several
        # processes that commit can lose to another one's, and a process that
        # lost its lease unawares must not call the model at all.
        kwargs.setdefault("early_calls", False)
        super().__init__(*args, **kwargs)
        self.leases = leases
        self._held: dict[str, float] = {}
        """Conversation id -> until when (monotonic) our lease surely holds."""
        self._keeper: asyncio.Task[None] | None = None
        self._working: Counter[str] = Counter()
        """Conversation id -> client inputs being applied now."""
        self._releasing: tuple[frozenset[str], asyncio.Future[None] | None] = (frozenset(), None)
        """The leases the keeper is giving up now, and when it is done."""
        self.adopted: list[str] = []
        """Conversations taken over from an owner whose lease expired."""
        self.lost: list[str] = []
        """Conversations another process took over while this one worked on them."""
        self.on_lost: Callable[[str], None] = lambda _conversation_id: None
        """Told each conversation lost (the transport ends its stream here)."""
        self._pinned: dict[str, int] = {}
        """Conversations kept busy by requests hosted for another process's stream."""

    @property
    def beat_s(self) -> float:
        """How often leases are renewed and orphans looked for."""
        return self.leases.ttl_s / 3

    async def recover(self) -> list[str]:
        """Start the keeper; resume what no live process owns."""
        if self._keeper is None:
            self._keeper = asyncio.create_task(self._keep(), name="lease keeper")
        return await self._adopt_orphans()

    async def close(self) -> None:
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        await super().close()
        held, self._held = list(self._held), {}
        with contextlib.suppress(StoreError):
            await self._io(self.leases.release, held)

    def holds(self, conversation_id: str) -> bool:
        return self._held.get(conversation_id, 0.0) > time.monotonic()

    async def owns(self, conversation_id: str) -> bool:
        """Hold the conversation's lease (taking it if free); False when
        another live process owns it."""
        try:
            anew = await self._claim(conversation_id)
        except NotOwner:
            return False
        conversation = self._conversations.get(conversation_id)
        if anew and conversation is not None:
            conversation.state = None  # as in `_ensure_loaded`: reload before use
        return True

    def pin(self, conversation_id: str) -> None:
        """Keep the lease while a request is hosted here for a stream read
        elsewhere, idle or not: that stream's process waits on this one."""
        self._pinned[conversation_id] = self._pinned.get(conversation_id, 0) + 1

    def unpin(self, conversation_id: str) -> None:
        left = self._pinned.get(conversation_id, 0) - 1
        if left > 0:
            self._pinned[conversation_id] = left
        else:
            self._pinned.pop(conversation_id, None)

    async def owner_of(self, conversation_id: str) -> str | None:
        """The process that holds the conversation's lease now, if any."""
        return await self._io(self.leases.owner_of, conversation_id)

    # -- the hook: every load and every piece of work goes through here ------

    @contextlib.contextmanager
    def _at_work(self, conversation_id: str) -> Iterator[None]:
        """While a client input is applied its conversation is busy, even if
        its committed state still reads idle (a turn's first input): the
        keeper must not give the lease up under it. (A model event comes
        from a call in flight, which keeps the conversation busy itself.)"""
        self._working[conversation_id] += 1
        try:
            yield
        finally:
            self._working[conversation_id] -= 1
            if not self._working[conversation_id]:
                del self._working[conversation_id]

    async def _external(self, conversation: Conversation, item: External) -> Outcome:
        with self._at_work(conversation.conversation_id):
            return await super()._external(conversation, item)

    def _hand_over(self, conversation: Conversation, call_id: str, event: ResponseEvent) -> None:
        """A model event skips the queue (and so the claim in `_ensure_loaded`)
        only while the lease surely holds, when that claim would be free; else
        it is queued, and the claim renews the lease or finds it lost."""
        if self._claim_is_free(conversation.conversation_id):
            super()._hand_over(conversation, call_id, event)
        elif not caught(conversation, call_id, event):  # a stopped call's word is taken
            conversation.queue.put_nowait(StreamEvent(call_id, event))

    def _at_rest(self, conversation: Conversation) -> bool:
        """`state_of` answers without the worker only while the claim an
        `Inspect` makes would be free: else the worker claims (and on a lease
        taken anew, reloads and resumes) first."""
        return super()._at_rest(conversation) and self._claim_is_free(conversation.conversation_id)

    def _claim_is_free(self, conversation_id: str) -> bool:
        """Our lease surely holds for a while yet: `_claim` would do nothing."""
        until = self._held.get(conversation_id)
        return until is not None and until - time.monotonic() > self.leases.ttl_s / 2

    async def _ensure_loaded(
        self, conversation: Conversation, resume: bool = True, input_id: str | None = None
    ) -> FirstLoad | None:
        conversation_id = conversation.conversation_id
        held = conversation_id in self._held
        try:
            taken_anew = await self._claim(conversation_id)
        except NotOwner:
            if held:  # we worked on it: it was lost while the keeper was late
                self._forget(conversation_id)
            else:
                self._stop(conversation)
            raise
        if taken_anew:
            conversation.state = None  # another process may have written since
        return await super()._ensure_loaded(conversation, resume, input_id)

    async def _claim(self, conversation_id: str) -> bool:
        """Hold the lease; True when taken anew rather than kept."""
        started = time.monotonic()
        until = self._held.get(conversation_id)
        if until is not None and until - started > self.leases.ttl_s / 2:
            return False
        releasing, released = self._releasing
        if conversation_id in releasing and released is not None:
            await asyncio.shield(released)  # else our release could delete the lease we take
        if not await self._io(self.leases.acquire, conversation_id):
            self._held.pop(conversation_id, None)
            raise NotOwner(conversation_id)
        self._held[conversation_id] = started + self.leases.ttl_s
        return until is None or until <= started

    # -- the keeper ----------------------------------------------------------

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.beat_s)
            try:
                await self._renew()
                await self._adopt_orphans()
            except StoreError as error:  # the database is away; try next beat
                log.warning("leases: %s", error)

    def _busy(self, conversation_id: str) -> bool:
        if conversation_id in self._pinned:
            return True
        conversation = self._conversations.get(conversation_id)
        if conversation is None:
            return False
        reading = conversation.reader is not None and not conversation.reader.done()
        state = conversation.state
        idle = state is not None and state.committed.status in IDLE_STATUSES
        working = self._working[conversation_id] > 0
        return reading or working or not conversation.queue.empty() or not idle

    async def _renew(self) -> None:
        busy = {c: until for c, until in self._held.items() if self._busy(c)}
        started = time.monotonic()
        kept = await self._io(self.leases.renew, list(busy))
        for conversation_id, until in busy.items():
            if conversation_id in kept:
                self._held[conversation_id] = started + self.leases.ttl_s
            elif self._held.get(conversation_id) == until:  # not claimed meanwhile
                self._forget(conversation_id)
        # Judged idle only now, after the round trip: an input that arrived
        # meanwhile keeps its conversation's lease.
        idle = frozenset(c for c in self._held if not self._busy(c))
        if not idle:
            return
        for conversation_id in idle:
            del self._held[conversation_id]
        released = asyncio.get_running_loop().create_future()
        self._releasing = (idle, released)
        try:
            await self._io(self.leases.release, list(idle))
        finally:
            self._releasing = (frozenset(), None)
            released.set_result(None)

    def _forget(self, conversation_id: str) -> None:
        """Another process owns a conversation we worked on: stop here, and
        say so (`on_lost`: the transport ends its stream here)."""
        self._held.pop(conversation_id, None)
        conversation = self._conversations.get(conversation_id)
        if conversation is not None:
            self._stop(conversation)
        self.lost.append(conversation_id)
        log.warning("conversation %s: lease lost to another process", conversation_id)
        self.on_lost(conversation_id)

    def _stop(self, conversation: Conversation) -> None:
        """Drop the model stream and the events it queued: the owner calls the
        model again. Queued client inputs stay (each is refused with
        `NotOwner` in turn); the state is loaded again if the lease comes back,
        since a lease taken anew always reloads."""
        conversation.stop_reader()
        kept = []
        while not conversation.queue.empty():
            item = conversation.queue.get_nowait()
            if not isinstance(item, StreamEvent):
                kept.append(item)
        for item in kept:
            conversation.queue.put_nowait(item)

    async def _adopt_orphans(self) -> list[str]:
        active = await self._io(self._store.active_conversations)
        candidates = [c for c in active if not self.holds(c)]
        orphans = await self._io(self.leases.unowned, candidates)
        adopted = []
        for conversation_id in orphans:
            try:
                await self.state_of(conversation_id)
            except NotOwner:  # another process adopted it first
                continue
            log.info("conversation %s: taken over from an expired owner", conversation_id)
            adopted.append(conversation_id)
            self.adopted.append(conversation_id)
        return adopted
