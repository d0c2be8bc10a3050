"""Group commit, for a store that serializes its commits on one connection.

Each commit used to be a thread hop of its own: a worker thread woken, one
transaction with its own fsync (for the commits that flush), and the event
loop woken again to take the answer. With many conversations turning at
once those commits only queued behind one another on the store's writer
lock, each paying all three. Here the commits that wait while one batch is
written go together as the next batch: one thread hand-off, one transaction
(each commit in a savepoint of its own, so a refused one is rolled back
alone), one flush and one loop wake-up for all of them. A commit that finds
the writer idle goes at once, so a lone conversation waits for nothing.
A store with parallel writers (PostgreSQL's pool) takes each commit in a
worker thread of its own, as before.

Where the store can (SQLite, its write connection free), a batch's
statements run on the event loop's thread and only its commit, the write
and the flush, goes to the writer thread: a writer thread running the
statements wanted the GIL back after each one while the busy loop held it,
so under load a batch of a few milliseconds' CPU took around a hundred, and
every planned model call's first delta waited for it. Where it cannot (a
worker thread holds the connection), the writer thread writes the whole
batch, and the ones after it while they wait.

Nothing is answered before its batch's transaction is committed: history is
still durable before anything that depends on it is published.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cursor_byok.runtime.observe import StageClock
from cursor_byok.store.base import (
    BatchAnswer,
    CommitRequest,
    InputCommit,
    StagedBatch,
    Store,
    StoreError,
)

Answer = int | InputCommit
Waiting = tuple[CommitRequest, "asyncio.Future[Answer]"]
Answers = list[BatchAnswer] | BaseException
"""A batch's answers, one per request, or what failed its whole transaction."""

MAX_BATCH = 256
"""Commits per transaction at most: a bound on how long one batch holds the
writer (each commit costs well under a millisecond of it)."""


def commit_one(store: Store, request: CommitRequest) -> Answer:
    """One request in a transaction of its own."""
    if request.forks:  # only the batch form takes the whole request
        (answer,) = store.commit_batch([request])
        if isinstance(answer, Exception):
            raise answer
        return answer
    commit = store.commit_new_input if request.checked else store.commit_input
    return commit(*request.arguments())


class CommitQueue:
    """Commits to one store: batched, staged on the loop and committed by a
    thread of their own where the store serializes its writers, else one
    worker-thread hop (`io`) each.

    A staged batch's successor is staged once its commit has landed and its
    answers are given. Batches the writer thread writes whole (the store
    could not stage) follow one another on that thread without waiting for
    the loop, which is busy exactly when commits pile up."""

    def __init__(
        self,
        store: Store,
        io: Callable[..., Awaitable[Any]],
        max_batch: int = MAX_BATCH,
        stages: StageClock | None = None,
    ) -> None:
        """`stages` is told how long each commit was awaited (`commit`)."""
        self._store = store
        self._stages = stages if stages is not None else StageClock()
        self._io = io
        self._max_batch = max_batch
        self._lock = threading.Lock()
        self._waiting: deque[Waiting] = deque()
        """Guarded by `_lock`, as is `_writing`."""
        self._writing = False
        self._writer = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="cursor-byok-commits")
            if store.serial_writer
            else None
        )
        self.batches = 0
        """Transactions written so far (for tests and metrics)."""

    async def commit(self, request: CommitRequest) -> Answer:
        """What `Store.commit_new_input` (checked) or `commit_input` answers,
        or the error that refused the request, raised."""
        began = time.perf_counter_ns()
        try:
            return await self._commit(request)
        finally:
            self._stages.since("commit", began)

    async def _commit(self, request: CommitRequest) -> Answer:
        if self._writer is None:
            self.batches += 1
            answer: Answer = await self._io(commit_one, self._store, request)
            return answer
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Answer] = loop.create_future()
        with self._lock:
            self._waiting.append((request, answered))
            start, self._writing = not self._writing, True
        if start:
            self._next(loop)
        return await answered

    def _take(self) -> list[Waiting] | None:
        """The next batch; None (and the writer marked idle) when none waits."""
        with self._lock:
            if not self._waiting:
                self._writing = False
                return None
            count = min(len(self._waiting), self._max_batch)
            return [self._waiting.popleft() for _ in range(count)]

    def _next(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the loop: stage the next batch and hand its commit to the
        writer thread; or, if the store cannot stage it now, hand the writer
        thread the batch itself."""
        assert self._writer is not None
        while (batch := self._take()) is not None:
            try:
                staged = self._store.stage_batch_now([request for request, _ in batch])
            except Exception as failed:  # noqa: BLE001 (the transaction failed: none landed)
                self.batches += 1
                self._answer(batch, failed)
                continue
            if staged is None:
                with self._lock:
                    self._waiting.extendleft(reversed(batch))
                if (closed := self._submit(self._write_all, loop)) is not None:
                    self._refuse_all(closed)
                return
            self.batches += 1
            if (closed := self._submit(self._finish, loop, batch, staged)) is not None:
                staged.abandon()
                self._answer(batch, closed)
                self._refuse_all(closed)
            return

    def _submit(self, work: Callable[..., None], *args: object) -> StoreError | None:
        """Hand `work` to the writer thread; the error to answer with when
        the writer was shut down (the server stops)."""
        assert self._writer is not None
        try:
            self._writer.submit(work, *args)
        except RuntimeError as closed:
            return StoreError(f"the store is closed ({closed})")
        return None

    def _finish(
        self, loop: asyncio.AbstractEventLoop, batch: list[Waiting], staged: StagedBatch
    ) -> None:
        """On the writer thread: commit a staged batch, then let the loop
        answer it and stage the next."""
        answers: Answers
        try:
            staged.finish()
            answers = staged.answers
        except BaseException as failed:  # noqa: BLE001 (the transaction failed: none landed)
            answers = failed
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for them
            loop.call_soon_threadsafe(self._landed, loop, batch, answers)

    def _landed(
        self, loop: asyncio.AbstractEventLoop, batch: list[Waiting], answers: Answers
    ) -> None:
        self._answer(batch, answers)
        # At once: behind the loop's other ready callbacks the next batch
        # would wait a whole round of them (tens of ms under load).
        self._next(loop)

    def _write_all(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the writer thread, when the store could not stage: batch after
        batch until none waits."""
        while (batch := self._take()) is not None:
            self.batches += 1
            answers: Answers
            try:
                answers = self._store.commit_batch([request for request, _ in batch])
            except BaseException as failed:  # noqa: BLE001 (the transaction failed: none landed)
                answers = failed
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for them
                loop.call_soon_threadsafe(self._answer, batch, answers)

    def _refuse_all(self, error: StoreError) -> None:
        with self._lock:
            refused = list(self._waiting)
            self._waiting.clear()
            self._writing = False
        for _, answered in refused:
            if not answered.done():
                answered.set_exception(error)

    @staticmethod
    def _answer(batch: list[Waiting], answers: Answers) -> None:
        results = [answers] * len(batch) if isinstance(answers, BaseException) else answers
        for (_, answered), answer in zip(batch, results, strict=True):
            if answered.done():  # its caller was cancelled; the commit stands
                continue
            if isinstance(answer, BaseException):
                answered.set_exception(answer)
            else:
                answered.set_result(answer)

    def close(self) -> None:
        """Wait for the batches being written; no new one starts after this."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
