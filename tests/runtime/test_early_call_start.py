"""A turn's early model call starts in the loop step that takes the turn's
input: on a busy loop each step is a whole round of every other stream's
ready callbacks. Its planning commit follows once the loop has polled and
run the I/O ready meanwhile (`runtime.io_first`), two steps on, not more:
the deltas other calls have waiting are relayed before the commit's rows
are made."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from cursor_byok.llm import ResponseStream
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages
from cursor_byok.loop import Final
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import CommitRequest, QuickLookup, StagedBatch
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import start, stream_of
from tests.fakes import RecordingSink, ScriptedLLM
from tests.runtime.test_runner import FAST, FINAL_REPLY

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="a task starts at once from Python 3.12 on"
)


class LoopSteps:
    """Counts the event loop's steps: a callback that queues itself again
    runs once per step."""

    def __init__(self) -> None:
        self.count = 0
        self._handle: asyncio.Handle | None = None

    def start(self) -> None:
        self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def _tick(self) -> None:
        self.count += 1
        self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()


class SteppedStore:
    """The real store, noting the loop step of the worker's first look at the
    input (`lookup_now`) and of the commit staged for it."""

    def __init__(self, store: SQLiteStore, steps: LoopSteps, seen: dict[str, int]) -> None:
        self.store, self.steps, self.seen = store, steps, seen

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    def lookup_now(self, conversation_id: str, input_id: str) -> QuickLookup | None:
        self.seen.setdefault("input", self.steps.count)
        return self.store.lookup_now(conversation_id, input_id)

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        self.seen.setdefault("commit", self.steps.count)
        return self.store.stage_batch_now(requests)


class SteppedLLM(ScriptedLLM):
    def __init__(
        self, scripts: list[list[ResponseEvent]], steps: LoopSteps, seen: dict[str, int]
    ) -> None:
        super().__init__(scripts)
        self.steps, self.seen = steps, seen

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        self.seen.setdefault("call", self.steps.count)
        return await super().call(model, ctx, request)


@contextlib.asynccontextmanager
async def warmed(
    tmp_path: Path,
) -> AsyncIterator[tuple[LoopSteps, dict[str, int], Runner, RecordingSink, SQLiteStore]]:
    """A runner whose loop steps are counted, after a first turn that warms
    what a serving process has warm (its user, read once a while); `seen`
    is cleared of that turn."""
    steps, seen = LoopSteps(), dict[str, int]()
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = SteppedLLM([stream_of(FINAL_REPLY), stream_of(FINAL_REPLY)], steps, seen)
    sink = RecordingSink()
    runner = Runner(SteppedStore(store, steps, seen), llm, sink, retry=FAST)  # type: ignore[arg-type]
    steps.start()
    try:
        assert (await runner.submit("warm", "req:w", start("go"))).committed
        await sink.wait_for("warm", Final)
        seen.clear()
        yield steps, seen, runner, sink, store
    finally:
        steps.stop()
        await runner.close()
        store.close()


async def test_the_call_starts_in_the_input_s_own_loop_step_and_its_commit_after_a_poll(
    tmp_path: Path,
) -> None:
    async with warmed(tmp_path) as (_steps, seen, runner, sink, store):
        assert (await runner.submit("c", "req:0", start("go"))).committed
        await sink.wait_for("c", Final)
        loaded = store.load("c")
        assert loaded is not None and loaded.state.messages[-1] == FINAL_REPLY
    assert seen["call"] == seen["input"], seen  # the request is on its way at once
    # The commit after the next poll's I/O: the timer step, then the worker's.
    assert seen["commit"] == seen["input"] + 2, seen


async def test_a_new_conversation_s_first_input_is_taken_in_the_step_that_submits_it(
    tmp_path: Path,
) -> None:
    async with warmed(tmp_path) as (steps, seen, runner, sink, _store):
        submitted = steps.count
        assert (await runner.submit("new", "req:0", start("go"))).committed
        await sink.wait_for("new", Final)
    # Its worker started with the input queued and ran to its first wait at
    # once: the input was looked at, and the model called, in the same step.
    assert seen["input"] == submitted, (submitted, seen)
    assert seen["call"] == submitted, (submitted, seen)
