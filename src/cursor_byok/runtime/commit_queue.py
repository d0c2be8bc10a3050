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
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
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
    serializes its writers, else one worker-thread hop (`io`) each."""

    def __init__(
        self,
        store: Store,
        io: Callable[..., Awaitable[Any]],
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._store = store
        self._io = io
        self._max_batch = max_batch
        self._waiting: list[Waiting] = []
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
        self._waiting.append((request, answered))
        if not self._writing:
            self._write_next(loop)
        return await answered

    def _write_next(self, loop: asyncio.AbstractEventLoop) -> None:
        assert self._writer is not None
        batch = self._waiting[: self._max_batch]
        del self._waiting[: self._max_batch]
        self._writing = True
        self.batches += 1
        requests = [request for request, _ in batch]
        try:
            written = loop.run_in_executor(self._writer, self._store.commit_batch, requests)
        except RuntimeError as closed:  # the writer was shut down: the server stops
            self._writing = False
            for _, answered in batch:
                answered.set_exception(StoreError(f"the store is closed ({closed})"))
            return
        written.add_done_callback(partial(self._written, loop, batch))

    def _written(
        self,
        loop: asyncio.AbstractEventLoop,
        batch: list[Waiting],
        written: asyncio.Future[list[Answer | Exception]],
    ) -> None:
        self._writing = False
        answers: list[Answer | BaseException]
        if written.cancelled():  # only when the loop itself shuts down
            answers = [asyncio.CancelledError()] * len(batch)
        elif (failed := written.exception()) is not None:
            answers = [failed] * len(batch)  # the transaction failed: none landed
        else:
            answers = list(written.result())
        for (_, answered), answer in zip(batch, answers, strict=True):
            if answered.done():  # its caller was cancelled; the commit stands
                continue
            if isinstance(answer, asyncio.CancelledError):
                answered.cancel()
                continue
            if isinstance(answer, BaseException):
                answered.set_exception(answer)
            else:
                answered.set_result(answer)
        if self._waiting:
            self._write_next(loop)

    def close(self) -> None:
        """Wait for the batch being written; no new one starts after this."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
