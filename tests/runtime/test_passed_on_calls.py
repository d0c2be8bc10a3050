"""The runner reading a real adapter whose deltas are passed on as they
arrive (`PassesOn`): they are published in the step that read them, and
they count as output already shown, so a failure after them is not retried.

A real SQLite file, the real router and Anthropic adapter, and a replay
provider on a real socket that paces its events.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.events import TextDelta
from cursor_byok.loop import Failed, Final, Start, TurnSettings
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import user
from tests.fakes import RecordingSink
from tests.llm.loopback import LoopbackServer, Reply, recording

FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01)
BODY = recording("anthropic/text-usage.sse")
DELTA_SENT = BODY.index(b"event: content_block_stop")
"""Where the recorded answer's one text delta has been sent."""


class TimedSink(RecordingSink):
    """Notes whether a task was running as each item was published (none
    is while a transport's read callback runs)."""

    in_task: list[tuple[Outbound, bool]]

    def __init__(self) -> None:
        super().__init__()
        self.in_task = []

    def publish(self, conversation_id: str, item: Outbound) -> None:
        self.in_task.append((item, asyncio.current_task() is not None))
        super().publish(conversation_id, item)


@pytest.fixture
async def provider() -> AsyncIterator[LoopbackServer]:
    async with LoopbackServer(pace_s=0.003) as server:
        yield server


@pytest.fixture
async def running(
    provider: LoopbackServer, tmp_path: Path
) -> AsyncIterator[tuple[Runner, TimedSink, SQLiteStore]]:
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[providers.claude]
api = "anthropic"
base_url = "{provider.base_url}"
api_key = "sk-ant-test"
[models.m]
provider = "claude"
model = "claude-sonnet-4-6"
"""
    )
    router = Router(load_config(path, env={}), env={})
    store = SQLiteStore(tmp_path / "s.db", synchronous="NORMAL")
    sink = TimedSink()
    runner = Runner(store, router, sink, retry=FAST)
    try:
        yield runner, sink, store
    finally:
        await runner.close()
        await router.aclose()


def started(text: str) -> Start:
    return Start(user(text), settings=TurnSettings(model="m"))


async def test_a_passed_on_delta_is_published_by_the_read_callback(
    running: tuple[Runner, TimedSink, SQLiteStore], provider: LoopbackServer
) -> None:
    runner, sink, _ = running
    provider.replies.append(Reply(BODY, chunk_size=None))
    await runner.submit("c", "req:0", started("hi"))
    [final] = await sink.wait_for("c", Final)
    deltas = [in_task for item, in_task in sink.in_task if isinstance(item, TextDelta)]
    assert isinstance(final, Final)
    assert deltas == [False]


async def test_a_failure_after_a_passed_on_delta_is_not_retried(
    running: tuple[Runner, TimedSink, SQLiteStore], provider: LoopbackServer
) -> None:
    runner, sink, _ = running
    provider.replies += [Reply(BODY, chunk_size=None, cut_after=DELTA_SENT), Reply(BODY)]
    await runner.submit("c", "req:0", started("hi"))
    [failed] = await sink.wait_for("c", Failed)
    assert isinstance(failed, Failed)
    assert len(provider.received) == 1


async def test_a_failure_before_any_delta_is_retried(
    running: tuple[Runner, TimedSink, SQLiteStore], provider: LoopbackServer
) -> None:
    runner, sink, _ = running
    before = BODY.index(b"event: content_block_start")
    provider.replies += [Reply(BODY, chunk_size=None, cut_after=before), Reply(BODY)]
    await runner.submit("c", "req:0", started("hi"))
    [final] = await sink.wait_for("c", Final)
    assert isinstance(final, Final)
    assert len(provider.received) == 2
