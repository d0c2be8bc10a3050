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

Nothing is answered before its batch's transaction is committed: history is
still durable before anything that depends on it is published.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cursor_byok.store.base import CommitRequest, InputCommit, Store, StoreError

Answer = int | InputCommit
Waiting = tuple[CommitRequest, "asyncio.Future[Answer]"]

MAX_BATCH = 256
"""Commits per transaction at most: a bound on how long one batch holds the
writer (each commit costs well under a millisecond of it)."""


def commit_one(store: Store, request: CommitRequest) -> Answer:
    """One request in a transaction of its own."""
    commit = store.commit_new_input if request.checked else store.commit_input
    return commit(*request.arguments())


class CommitQueue:
    """Commits to one store: batched by a thread of their own where the store
    serializes its writers, else one worker-thread hop (`io`) each.

    The writer thread takes the next batch itself as soon as one is written:
    waiting for the event loop to start it left the writer idle while the
    loop was busy, which is exactly when commits pile up (200 turns starting
    together waited some 50 ms for it between two batches)."""

    def __init__(
        self,
        store: Store,
        io: Callable[..., Awaitable[Any]],
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._store = store
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
            try:
                self._writer.submit(self._write_all, loop)
            except RuntimeError as closed:  # the writer was shut down: the server stops
                self._refuse_all(StoreError(f"the store is closed ({closed})"))
        return await answered

    def _write_all(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the writer thread: batch after batch until none waits."""
        while True:
            with self._lock:
                if not self._waiting:
                    self._writing = False
                    return
                count = min(len(self._waiting), self._max_batch)
                batch = [self._waiting.popleft() for _ in range(count)]
            self.batches += 1
            answers: list[Answer | Exception] | BaseException
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
    def _answer(batch: list[Waiting], answers: list[Answer | Exception] | BaseException) -> None:
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
