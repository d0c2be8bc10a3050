"""Rewinds at run time: the reads and writes around `loop.forks`.

Before a run is applied, `place` reads what the store knows of the
conversation's branches and of the turns the client's state names, lets
`loop.forks.place` decide, and, for a fork, has the runner apply a `Fork`
input to the new branch (committed, with the row that lists it, in one
transaction) before the run's own input goes there. As each turn's stream
ends, `mark_turn` notes where the client's last checkpoint stands.

Nothing here edits or deletes a stored row: a branch is a conversation of
its own whose history begins with a copy of the kept prefix (the same
messages, so every request of the branch begins with the bytes the prefix
rendered to before, and the provider's prefix cache still hits).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from cursor_byok.loop.forks import NO_TURNS, Continue, ForkAt, TurnMark, fork_input_id, place
from cursor_byok.loop.inputs import Fork, Input
from cursor_byok.loop.state import ConversationState
from cursor_byok.runtime.observe import Metrics, logfmt
from cursor_byok.runtime.outcome import Outcome
from cursor_byok.store.forks import Branches, branch_key, root_of

log = logging.getLogger(__name__)

T = TypeVar("T")


class Driver(Protocol):
    """What of the runner a rewind uses."""

    async def submit(self, conversation_id: str, input_id: str, input_: Input) -> Outcome: ...

    async def state_of(self, conversation_id: str) -> ConversationState | None: ...


class Rewinds:
    """Places runs on branches and notes where turns end (see the module)."""

    def __init__(
        self,
        store: Branches,
        runner: Driver,
        metrics: Metrics | None = None,
    ) -> None:
        self._store = store
        self._runner = runner
        self._metrics = metrics
        self.counts: Counter[str] = Counter()
        """Runs by what their state told: "fork" or "unrecognised"."""
        self._marking: dict[str, set[asyncio.Task[None]]] = {}

    async def place(
        self, key: str, turns: Sequence[bytes] | None, starting: bool, input_id: str
    ) -> str:
        """The conversation (the root `key` or a branch of it) a run goes
        to; a fork is made first when the client's state is behind."""
        root = root_of(key)
        await self._marked(root)
        # Read on this thread when that costs no wait (a local file): a
        # resume then takes its stream before the turn it resumes goes on.
        branches = self._store.branches_now(root)
        if branches is None:
            branches = await self._read(self._store.branches, root)
        marks: dict[bytes, TurnMark] = {}
        if turns is not None and branches:
            wanted = (list(turns[-1:]) if starting else list(turns)) or [NO_TURNS]
            found = self._store.turn_marks_now(root, wanted)
            if found is None:
                found = await self._read(self._store.turn_marks, root, wanted)
            marks = found
        placed = place(root, turns, starting, marks, branches, input_id)
        if isinstance(placed, ForkAt):
            keys = [b.key for b in branches]
            committed = await self._read(self._store.committed_on, keys, input_id)
            if committed:  # a run resent after it went somewhere already
                placed = place(root, turns, starting, marks, branches, input_id, committed)
        if isinstance(placed, Continue):
            if placed.unrecognised:
                self._count("unrecognised")
                log.info(
                    logfmt(
                        "conversation_state_unrecognised",
                        conversation=key,
                        turns=len(turns or ()),
                        answered_on=placed.branch,
                    )
                )
            return placed.branch
        return await self._fork(root, placed, input_id)

    async def _fork(self, root: str, fork: ForkAt, input_id: str) -> str:
        branch = branch_key(root, input_id)
        parent = await self._runner.state_of(fork.parent)
        if parent is None:  # listed a moment ago: never gone, but never a crash either
            return fork.parent
        fork_input = Fork(parent, fork.point, fork.todos)
        await self._runner.submit(branch, fork_input_id(input_id), fork_input)
        self._count("fork")
        log.info(logfmt("conversation_forked", parent=fork.parent, point=fork.point, branch=branch))
        return branch

    def mark_turn(self, key: str, turn_blob: bytes, number: int) -> None:
        """Note (in the background) where `key` stands now that a turn whose
        client state names `number` turns, the last `turn_blob`, has ended.
        A run of the same conversation waits for it (`place`)."""
        root = root_of(key)
        task = asyncio.get_running_loop().create_task(self._mark(key, turn_blob, number))
        pending = self._marking.setdefault(root, set())
        pending.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            pending.discard(finished)
            if not pending:
                self._marking.pop(root, None)

        task.add_done_callback(done)

    async def _mark(self, key: str, turn_blob: bytes, number: int) -> None:
        try:
            state = await self._runner.state_of(key)
            if state is None:
                return
            mark = TurnMark(key, number, len(state.messages), state.todos)
            now = int(time.time() * 1000)
            await self._read(self._store.mark_turn, turn_blob, mark, now)
        except Exception:
            log.warning("conversation %s: could not note where its turn ended", key, exc_info=True)

    async def marked(self, key: str) -> None:
        """Wait for the marks of `key`'s conversation still being written."""
        await self._marked(root_of(key))

    async def _marked(self, root: str) -> None:
        pending = self._marking.get(root)
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    async def _read(self, function: Callable[..., T], *args: object) -> T:
        """A store call, in a worker thread (never on the event loop)."""
        return await asyncio.to_thread(function, *args)

    def _count(self, outcome: str) -> None:
        self.counts[outcome] += 1
        if self._metrics is not None:
            self._metrics.rewinds.labels(outcome).inc()
