"""Each model call's rows (one per attempt), written by the runner with the
commit of the call's end, over a real SQLite file with a scripted model at
the edge: figures from the answer, a retried call's failed attempts as
`retried`, failures, cancels and unpriced models said as such, a call never
made (a budget's refusal) without a row, and nothing written twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.llm.events import ErrorEvent, ResponseEvent, StartEvent
from cursor_byok.llm.types import Cost, TextContent
from cursor_byok.loop import CallClient, Canceled, Failed, Final, LLMEvent, ToolResult
from cursor_byok.loop.inputs import Cancel
from cursor_byok.store.owners import scoped
from tests.factories import assistant, error_event, result, start, stream_of
from tests.fakes import PausingLLM
from tests.runtime.test_accounting import FINAL_REPLY, TOOL_REPLY, Harness

Make = Callable[[list[list[ResponseEvent]]], Harness]


@pytest.fixture
async def make(tmp_path: Path) -> AsyncIterator[Make]:
    made: list[Harness] = []

    def build(scripts: list[list[ResponseEvent]]) -> Harness:
        harness = Harness(tmp_path / "db.sqlite3", scripts)
        made.append(harness)
        return harness

    yield build
    for harness in made:
        await harness.runner.close()
        harness.store.close()


async def test_each_call_of_a_turn_has_a_row_with_its_figures(make: Make) -> None:
    h = make([stream_of(TOOL_REPLY), stream_of(FINAL_REPLY)])
    ana = h.user("ana")
    conversation = scoped(ana, "c")
    await h.runner.submit(conversation, "req:0", start("go"))
    await h.sink.wait_for(conversation, CallClient)
    await h.runner.submit(conversation, "client:1", ToolResult(result("t1", "hello")))
    await h.sink.wait_for(conversation, Final)
    first, second = h.store.model_calls(conversation)
    assert (first.call_id, second.call_id) == (f"{conversation}:call:1", f"{conversation}:call:2")
    for row in (first, second):
        assert (row.user_id, row.model, row.outcome, row.attempt) == (ana, "priced", "ok", 1)
        assert (row.input, row.output, row.cache_read, row.cache_write) == (10, 5, 0, 0)
        assert row.reasoning == 2 and row.cost_usd == pytest.approx(0.02)
        assert row.turn_id == f"{conversation}:turn:1" and row.error is None
        assert row.ttft_ms is not None and 0 <= row.ttft_ms <= row.duration_ms
        assert row.started_at_ms > 1_700_000_000_000
    # where each answer is in the history: user, answer, result, answer
    assert (first.step, second.step) == (1, 3)
    assert first.started_at_ms <= second.started_at_ms


async def test_a_retried_call_has_a_row_per_attempt(make: Make) -> None:
    overloaded = ErrorEvent("error", error_event("overloaded").message, 529, retryable=True)
    h = make([[StartEvent(), overloaded], [overloaded], stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    rows = h.store.model_calls("c")
    assert [(r.call_id, r.attempt, r.outcome) for r in rows] == [
        ("c:call:1", 1, "retried"),
        ("c:call:1", 2, "retried"),
        ("c:call:1", 3, "ok"),
    ]
    assert [r.error for r in rows[:2]] == ["overloaded", "overloaded"]
    assert [(r.input, r.output) for r in rows] == [(0, 0), (0, 0), (10, 5)]


async def test_an_end_sent_again_and_a_duplicate_input_write_no_second_row(make: Make) -> None:
    h = make([stream_of(TOOL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", CallClient)
    await h.runner.submit("c", "req:0", start("go"))
    done = stream_of(TOOL_REPLY)[-1]
    await h.runner.submit("c", "c:call:1:end", LLMEvent("c:call:1", done))
    assert [(r.call_id, r.attempt) for r in h.store.model_calls("c")] == [("c:call:1", 1)]


async def test_a_failed_call_and_an_unpriced_model_say_so(make: Make) -> None:
    unpriced = replace(FINAL_REPLY, usage=replace(FINAL_REPLY.usage, cost=Cost(priced=False)))
    h = make([stream_of(unpriced)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    h.llm.scripts.append([StartEvent(), error_event("bad request")])
    await h.runner.submit("c", "req:1", start("again"))
    await h.sink.wait_for("c", Failed)
    ok, failed = h.store.model_calls("c")
    assert ok.outcome == "ok" and ok.cost_usd is None and ok.output == 5
    assert failed.outcome == "error" and failed.error == "bad request"
    assert failed.step == 3  # no answer was added: it would have been message 3


async def test_a_canceled_call_has_its_row_and_a_refused_one_none(tmp_path: Path) -> None:
    slow = PausingLLM([stream_of(assistant(TextContent("slow")))], pause_at=2)
    h = Harness(tmp_path / "db.sqlite3", [], slow)
    try:
        await _cancel_then_refuse(h)
    finally:
        await h.runner.close()
        h.store.close()


async def _cancel_then_refuse(h: Harness) -> None:
    ana = h.user("ana", budget=0.000001, period="day")
    conversation = scoped(ana, "c")
    await h.runner.submit(conversation, "req:0", start("go"))
    await asyncio.wait_for(_requested(h), 5)
    await h.runner.submit(conversation, "stop:0", Cancel("stop"))
    await h.sink.wait_for(conversation, Canceled)
    (canceled,) = h.store.model_calls(conversation)
    assert canceled.outcome == "canceled" and canceled.cost_usd is None
    assert canceled.duration_ms >= 0 and canceled.user_id == ana
    # a call the budget refuses (another call holds it all) is never made
    h.store.reserve_budget("hold", ana, 1.0, 0, 2**62)
    await h.runner.submit(conversation, "req:1", start("again"))
    await h.sink.wait_for(conversation, Failed)
    assert len(h.store.model_calls(conversation)) == 1


async def _requested(h: Harness) -> None:
    """Until the model was asked (the scripted model keeps no event to wait on)."""
    while not h.llm.requests:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
