"""Group commit over a real SQLite file: commits that wait while a batch is
written go together as the next one, flushes that wait go together as the
next flush; each caller gets its own answer."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.loop import ConversationState
from cursor_byok.runtime.commit_queue import CommitQueue
from cursor_byok.store.base import (
    CommitRequest,
    InputCommit,
    StagedBatch,
    StoreError,
    VersionConflict,
)
from cursor_byok.store.sqlite import SQLiteStore
from tests.store.hooked_stage import HookedStage
from tests.store.test_store import grown


class GatedStore:
    """The real store; its next batch written on the writer thread waits for
    `go` once `hold` is set, so the test decides what queues meanwhile. With
    `staging`, batches are staged and committed on the loop and only their
    flush waits (on the writer thread); without, the store never stages and
    the writer thread writes them."""

    def __init__(
        self, store: SQLiteStore, serial_writer: bool = True, staging: bool = True
    ) -> None:
        self.store = store
        self.serial_writer = serial_writer
        self.staging = staging
        self.threads: dict[str, set[int]] = {"stage": set(), "commit": set(), "flush": set()}
        self.hold = False
        self.go = threading.Event()
        self.writing = threading.Event()
        self.batches: list[list[str]] = []
        self.began: list[float] = []
        self.fail_next = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    def commit_batch(
        self, requests: Sequence[CommitRequest]
    ) -> list[int | InputCommit | Exception]:
        self.batches.append([request.input_id for request in requests])
        self.began.append(time.monotonic())
        self.writing.set()
        self._gate()
        return self.store.commit_batch(requests)

    def _gate(self) -> None:
        if self.hold:
            assert self.go.wait(10)
        if self.fail_next:
            self.fail_next = False
            raise OSError("disk I/O error")

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        if not self.staging:
            return None
        staged = self.store.stage_batch_now(requests)
        if staged is None:
            return None
        self.batches.append([request.input_id for request in requests])
        self.began.append(time.monotonic())
        self.threads["stage"].add(threading.get_ident())
        return HookedStage(staged, before=self._committing, flushing=self._flushing)

    def _committing(self) -> None:
        self.threads["commit"].add(threading.get_ident())
        if self.fail_next:  # (on the loop: never held)
            self.fail_next = False
            raise OSError("disk I/O error")

    def _flushing(self) -> None:
        self.threads["flush"].add(threading.get_ident())
        self.writing.set()
        self._gate()


@contextlib.contextmanager
def gated_store(tmp_path: Path, staging: bool) -> Iterator[GatedStore]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="FULL")
    try:
        yield GatedStore(store, staging=staging)
    finally:
        store.close()


@pytest.fixture(params=["staged", "thread"])
def gated(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[GatedStore]:
    """Both ways a batch is written: staged and committed on the loop and
    flushed on the writer thread, or written whole by the writer thread."""
    with gated_store(tmp_path, staging=request.param == "staged") as gated:
        yield gated


@pytest.fixture
def staged(tmp_path: Path) -> Iterator[GatedStore]:
    """The staged way alone."""
    with gated_store(tmp_path, staging=True) as gated:
        yield gated


@pytest.fixture
def threaded(tmp_path: Path) -> Iterator[GatedStore]:
    """The writer thread's way alone."""
    with gated_store(tmp_path, staging=False) as gated:
        yield gated


def new(conversation_id: str, version: int = 0) -> CommitRequest:
    state = grown(ConversationState(conversation_id), "hello")
    return CommitRequest(f"{conversation_id}:in", version, state, {"c": conversation_id})


async def thread_io(function: Callable[..., object], *args: object) -> object:
    return await asyncio.to_thread(function, *args)


async def test_commits_that_wait_for_a_batch_go_together_as_the_next(
    threaded: GatedStore,
) -> None:
    gated = threaded
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    gated.hold = True
    lone = asyncio.ensure_future(queue.commit(new("c0")))
    await asyncio.to_thread(gated.writing.wait, 10)
    waiting = [asyncio.ensure_future(queue.commit(new(f"c{i}"))) for i in range(1, 31)]
    await asyncio.sleep(0.01)
    gated.go.set()
    assert await lone == 1
    assert await asyncio.gather(*waiting) == [1] * 30
    assert gated.batches == [["c0:in"], [f"c{i}:in" for i in range(1, 31)]]
    assert queue.batches == 2
    for i in range(31):
        loaded = gated.store.load(f"c{i}")
        assert loaded is not None and loaded.version == 1
    queue.close()


async def test_staged_commits_land_at_once_and_flushes_that_wait_go_together(
    staged: GatedStore,
) -> None:
    """On the loop a commit lands when it is asked for, flush or not; its
    answer waits for a flush begun after it, and the commits made while one
    flush is under way share the next."""
    gated = staged
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    gated.hold = True
    lone = asyncio.ensure_future(queue.commit(new("c0")))
    await asyncio.to_thread(gated.writing.wait, 10)  # its flush is under way
    waiting = [asyncio.ensure_future(queue.commit(new(f"c{i}"))) for i in range(1, 31)]
    await asyncio.sleep(0.01)
    for i in range(31):  # committed, readers see them...
        loaded = gated.store.load(f"c{i}")
        assert loaded is not None and loaded.version == 1
    assert not lone.done() and not any(w.done() for w in waiting)  # ...none answered
    planned = replace(new("p0"), flush=False)
    assert await queue.commit(planned) == 1  # (one that asked for none is answered now)
    gated.go.set()
    assert await lone == 1
    assert await asyncio.gather(*waiting) == [1] * 30
    assert queue.batches == 32 and queue.flushes == 2
    queue.close()


async def test_the_next_batch_is_written_while_the_event_loop_is_busy(
    threaded: GatedStore,
) -> None:
    """The writer thread goes on to what waits as soon as a batch is written;
    the loop only takes the answers (it used to start each batch itself, so a
    busy loop left the writer idle while commits piled up). So it is where
    the store cannot stage: a staged batch's statements run on the loop."""
    gated = threaded
    queue = CommitQueue(gated, thread_io, max_batch=2)  # type: ignore[arg-type]
    gated.hold = True
    commits = [asyncio.ensure_future(queue.commit(new("c0")))]
    await asyncio.to_thread(gated.writing.wait, 10)
    commits += [asyncio.ensure_future(queue.commit(new(f"c{i}"))) for i in range(1, 5)]
    await asyncio.sleep(0)  # all five are queued
    gated.go.set()
    busy_from = time.monotonic()
    time.sleep(0.5)  # noqa: ASYNC251 (the loop thread is busy: no callback of it runs)
    busy_to = time.monotonic()
    assert await asyncio.gather(*commits) == [1] * 5
    assert [len(batch) for batch in gated.batches] == [1, 2, 2]
    assert all(busy_from <= began < busy_to for began in gated.began[1:])
    queue.close()


async def test_a_batch_is_bounded(threaded: GatedStore) -> None:
    """(Staged commits go one by one, as they come.)"""
    gated = threaded
    queue = CommitQueue(gated, thread_io, max_batch=4)  # type: ignore[arg-type]
    gated.hold = True
    first = asyncio.ensure_future(queue.commit(new("c0")))
    await asyncio.to_thread(gated.writing.wait, 10)
    rest = [asyncio.ensure_future(queue.commit(new(f"c{i}"))) for i in range(1, 10)]
    gated.go.set()
    await asyncio.gather(first, *rest)
    assert [len(batch) for batch in gated.batches] == [1, 4, 4, 1]
    queue.close()


async def test_a_refused_commit_fails_its_own_caller_only(gated: GatedStore) -> None:
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    assert await queue.commit(new("c1")) == 1
    gated.hold = True
    gated.writing.clear()
    blocker = asyncio.ensure_future(queue.commit(new("c0")))
    await asyncio.to_thread(gated.writing.wait, 10)
    stale = asyncio.ensure_future(queue.commit(new("c1", version=0)))
    fine = asyncio.ensure_future(queue.commit(new("c2")))
    gated.go.set()
    assert await blocker == 1
    with pytest.raises(VersionConflict):
        await stale
    assert await fine == 1
    queue.close()


async def test_a_failed_transaction_fails_its_batch_and_the_next_goes_on(
    gated: GatedStore,
) -> None:
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    gated.fail_next = True
    with pytest.raises(OSError, match="disk I/O"):
        await queue.commit(new("c0"))
    assert gated.store.load("c0") is None
    assert await queue.commit(new("c0")) == 1
    queue.close()


async def test_a_cancelled_caller_s_commit_still_lands(gated: GatedStore) -> None:
    """As with any thread hop: the caller stops waiting, the write goes on."""
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    gated.hold = True
    gone = asyncio.ensure_future(queue.commit(new("c0")))
    await asyncio.to_thread(gated.writing.wait, 10)
    gone.cancel()
    staying = asyncio.ensure_future(queue.commit(new("c1")))
    gated.go.set()
    assert await staying == 1
    assert gone.cancelled()
    assert gated.store.load("c0") is not None
    queue.close()


async def test_a_store_with_parallel_writers_gets_one_hop_per_commit(gated: GatedStore) -> None:
    gated.serial_writer = False
    hops: list[str] = []

    async def counting(function: Callable[..., object], *args: object) -> object:
        hops.append(getattr(function, "__name__", "?"))
        return await thread_io(function, *args)

    queue = CommitQueue(gated, counting)  # type: ignore[arg-type]
    answers = await asyncio.gather(*(queue.commit(new(f"c{i}")) for i in range(3)))
    assert answers == [1, 1, 1]
    assert hops == ["commit_one"] * 3 and gated.batches == []
    resend = replace(new("c0", version=1), checked=True)  # a resend is looked up there too
    assert await queue.commit(resend) == InputCommit("c0:in", 1, {"c": "c0"})
    queue.close()


async def test_statements_and_commits_run_on_the_loop_and_only_flushes_on_the_writer_thread(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="FULL")
    gated = GatedStore(store)
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    try:
        answers = await asyncio.gather(*(queue.commit(new(f"c{i}")) for i in range(5)))
        assert answers == [1] * 5
        assert gated.threads["stage"] == gated.threads["commit"] == {threading.get_ident()}
        assert gated.threads["flush"] and threading.get_ident() not in gated.threads["flush"]
    finally:
        queue.close()
        store.close()


async def test_a_failed_flush_fails_the_commits_it_was_to_cover(staged: GatedStore) -> None:
    """Their transactions are in the file, but may not outlive a power cut:
    the callers hear of it, and the next flush goes on."""
    gated = staged
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]

    def failing() -> None:
        raise OSError("disk I/O error while syncing")

    gated._flushing, flushing = failing, gated._flushing  # type: ignore[method-assign]
    with pytest.raises(OSError, match="syncing"):
        await queue.commit(new("c0"))
    gated._flushing = flushing  # type: ignore[method-assign]
    assert await queue.commit(new("c1")) == 1
    queue.close()


async def test_a_batch_the_store_cannot_stage_now_goes_to_the_writer_thread(
    tmp_path: Path,
) -> None:
    """Another process holds the file's write lock: the loop does not wait
    for it; the writer thread does, and the commit lands once it is free."""
    path = tmp_path / "db.sqlite3"
    store = SQLiteStore(path, synchronous="NORMAL")
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    queue = CommitQueue(store, thread_io)
    try:
        other.execute("BEGIN IMMEDIATE")
        waiting = asyncio.ensure_future(queue.commit(new("c0")))
        began = time.monotonic()
        await asyncio.sleep(0.2)  # the loop runs on meanwhile
        assert time.monotonic() - began < 5  # (not held for the 30 s busy timeout)
        assert not waiting.done()
        other.execute("COMMIT")
        assert await waiting == 1
        assert await queue.commit(new("c1")) == 1  # staged again, the file free
        assert queue.batches == 2
    finally:
        other.close()
        queue.close()
        store.close()


async def test_a_commit_after_the_writer_is_closed_is_refused_and_lands_nothing(
    gated: GatedStore,
) -> None:
    queue = CommitQueue(gated, thread_io)  # type: ignore[arg-type]
    assert await queue.commit(new("c0")) == 1
    queue.close()
    for conversation_id in ("c1", "c2"):
        with pytest.raises(StoreError, match="closed"):
            await asyncio.wait_for(queue.commit(new(conversation_id)), 5)
    assert gated.store.load("c1") is None
    # the write connection was given back: the store still commits
    assert gated.store.commit_batch([new("c3")]) == [1]
