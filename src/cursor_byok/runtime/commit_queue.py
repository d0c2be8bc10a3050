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

Where the store can (SQLite, its write connection free), a commit's
statements and its commit run on the event loop's thread, at once, and only
the flush it asked for, the wait for the disk, goes to the writer thread. A
writer thread running the statements wanted the GIL back after each one
while the busy loop held it, so under load a batch of a few milliseconds'
CPU took around a hundred; one that only committed still waited for the GIL
at its start, after its commit and for its answer on the loop, and every
commit queued behind it. At 50 streams on a slow host the commit that plans
a model call landed 19 ms after it was asked for at the median, and held
the call's first delta for 13 ms more than half the time. The flushes go
together: one on the writer thread covers every commit made before it
began, and those commits are answered once it returns. Where the store
cannot stage (a worker thread holds the connection), the writer thread
writes the whole batch, and the ones after it while they wait.

Nothing is answered before its transaction is committed, nor before the
flush it asked for: history is still durable before anything that depends
on it is published.
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
    """Commits to one store: where the store serializes its writers, staged
    and committed on the loop with their flushes grouped on a thread of
    their own, else one worker-thread hop (`io`) each.

    Batches the writer thread writes whole (the store could not stage)
    follow one another on that thread without waiting for the loop, which is
    busy exactly when commits pile up; the commits that come meanwhile wait
    and go as one batch."""

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
        self._owed: list[tuple[list[Waiting], StagedBatch]] = []
        """Committed batches waiting for a flush (guarded by `_lock`, as is
        `_flush_queued`)."""
        self._flush_queued = False
        self._closed = False
        self._writer = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="cursor-byok-commits")
            if store.serial_writer
            else None
        )
        self.batches = 0
        """Transactions written so far (for tests and metrics)."""
        self.flushes = 0
        """Flushes of staged commits made so far (for tests)."""

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
        if self._closed:  # (a staged commit would land before its flush is refused)
            raise StoreError("the store is closed")
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
        """On the loop: stage and commit each batch that waits, and answer it,
        or leave it to the next flush if it asked for one; if the store
        cannot stage now, hand the writer thread the batches themselves."""
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
            try:
                staged.commit()
            except Exception as failed:  # noqa: BLE001 (as above)
                self._answer(batch, failed)
                continue
            if staged.flush_owed:
                self._owe_flush(loop, batch, staged)
            else:
                self._answer(batch, staged.answers)

    def _owe_flush(
        self, loop: asyncio.AbstractEventLoop, batch: list[Waiting], staged: StagedBatch
    ) -> None:
        """`batch` is answered once a flush begun after its commit returns."""
        with self._lock:
            self._owed.append((batch, staged))
            queued, self._flush_queued = self._flush_queued, True
        if not queued and (closed := self._submit(self._flush, loop)) is not None:
            with self._lock:
                owed, self._owed = self._owed, []
            for each, _ in owed:
                self._answer(each, closed)

    def _submit(self, work: Callable[..., None], *args: object) -> StoreError | None:
        """Hand `work` to the writer thread; the error to answer with when
        the writer was shut down (the server stops)."""
        assert self._writer is not None
        try:
            self._writer.submit(work, *args)
        except RuntimeError as closed:
            return StoreError(f"the store is closed ({closed})")
        return None

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the writer thread: one flush for every batch committed before
        it began, then their answers on the loop. A flush that fails fails
        them all: their commits are in the file, but may not outlive a
        power cut."""
        with self._lock:
            owed, self._owed = self._owed, []
            self._flush_queued = False
        if not owed:
            return
        failed: BaseException | None = None
        try:
            owed[-1][1].flush()  # (the latest: it covers every commit before it)
        except BaseException as error:  # noqa: BLE001 (answered, not raised on a lost thread)
            failed = error
        self.flushes += 1
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for them
            loop.call_soon_threadsafe(self._flushed, owed, failed)

    def _flushed(
        self, owed: list[tuple[list[Waiting], StagedBatch]], failed: BaseException | None
    ) -> None:
        for batch, staged in owed:
            self._answer(batch, failed if failed is not None else staged.answers)

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
        """Wait for the batches being written and the flushes owed; no new
        commit starts after this."""
        self._closed = True
        if self._writer is not None:
            self._writer.shutdown(wait=True)
