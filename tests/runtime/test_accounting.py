"""Usage and budgets where the runner makes its model calls, over a real
SQLite file with a scripted model at the edge: a call's usage is recorded
once whatever is retried or sent twice, and a user over budget gets no
call made, a turn's or a summary's, and an error that says why."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from cursor_byok.llm.events import ErrorEvent, ResponseEvent, StartEvent
from cursor_byok.llm.models import Price, with_cost
from cursor_byok.llm.notice import BUDGET, BUDGET_UNCHECKED, is_server_error
from cursor_byok.llm.types import AssistantMessage, TextContent, Usage
from cursor_byok.loop import CallClient, Compact, Failed, Final, LLMEvent, ToolResult
from cursor_byok.runtime import accounting as accounting_module
from cursor_byok.runtime.accounting import ModelTerms
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.observe import Metrics
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.owners import scoped
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.store.usage import BudgetPeriod
from tests.factories import assistant, error_event, result, start, stream_of, tool_call
from tests.fakes import PausingLLM, RecordingSink, ScriptedLLM

FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01)
PRICE = Price(input=1000.0, output=2000.0, cache_read=100.0, cache_write=1250.0)
"""Dollars per million tokens: a reply of 10 in and 5 out costs $0.02."""
TERMS = ModelTerms("priced", PRICE, context_window=1000, max_output=100)
"""The most one call can cost: 1000 x $1250/M + 100 x $2000/M = $1.45."""


def priced(message: AssistantMessage) -> AssistantMessage:
    usage = Usage(input=10, output=5, cache_read=0, cache_write=0, total_tokens=15, reasoning=2)
    return replace(message, usage=with_cost(usage, "any", PRICE))


TOOL_REPLY = priced(assistant(TextContent("Let me read it."), tool_call("t1", "a.txt")))
FINAL_REPLY = priced(assistant(TextContent("It says hello."), timestamp=4))


class Harness:
    def __init__(
        self, path: Path, scripts: list[list[ResponseEvent]], llm: ScriptedLLM | None = None
    ) -> None:
        self.store = SQLiteStore(path, synchronous="NORMAL")
        self.llm = llm if llm is not None else ScriptedLLM(scripts)
        self.sink = RecordingSink()
        self.metrics = Metrics()
        self.runner = Runner(
            self.store,
            self.llm,
            self.sink,
            retry=FAST,
            metrics=self.metrics,
            pricing=lambda _model: TERMS,
        )

    def user(self, name: str, budget: float | None = None, period: BudgetPeriod = "day") -> int:
        made = new_token()
        added = self.store.add_user(
            name, made.token_id, made.token_hash, None, budget, period if budget else None
        )
        return added.id

    def rows(self) -> list[tuple[int, str, int, int, int, float, int]]:
        return [
            (r.user_id, r.model, r.calls, r.input, r.output, round(r.cost_usd, 6), r.reasoning)
            for r in self.store.usage_rows("2000-01-01", "2999-12-31")
        ]


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


async def test_a_turn_s_calls_are_recorded_per_user_and_model(make: Make) -> None:
    h = make([stream_of(TOOL_REPLY), stream_of(FINAL_REPLY)])
    ana = h.user("ana")
    conversation = scoped(ana, "c")
    await h.runner.submit(conversation, "req:0", start("go"))
    (ask,) = await h.sink.wait_for(conversation, CallClient)
    assert isinstance(ask, CallClient)
    await h.runner.submit(conversation, "client:1", ToolResult(result("t1", "hello")))
    await h.sink.wait_for(conversation, Final)
    # two calls, under the configured model's name, with what they cost
    assert h.rows() == [(ana, "priced", 2, 20, 10, 0.04, 4)]
    (row,) = h.store.usage_rows("2000-01-01", "2999-12-31")
    assert row.ttft_calls == 2 and row.duration_ms_total >= 0
    scraped = generate_latest(h.metrics.registry).decode()
    assert 'cursor_byok_user_calls_total{user="ana"} 2.0' in scraped
    assert 'cursor_byok_user_tokens_total{kind="input",user="ana"} 20.0' in scraped
    assert 'cursor_byok_user_cost_usd_total{user="ana"} 0.04' in scraped


async def test_a_retried_call_is_recorded_once_with_the_answer_s_usage(make: Make) -> None:
    overloaded = ErrorEvent("error", error_event("overloaded").message, 529, retryable=True)
    h = make([[StartEvent(), overloaded], [overloaded], stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    assert len(h.llm.requests) == 3
    assert h.rows() == [(1, "priced", 1, 10, 5, 0.02, 2)]


async def test_a_duplicate_input_and_a_second_stream_of_a_call_record_nothing_more(
    make: Make,
) -> None:
    h = make([stream_of(TOOL_REPLY), stream_of(FINAL_REPLY)])
    first = await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", CallClient)
    again = await h.runner.submit("c", "req:0", start("go"))
    assert again.duplicate and again.result == first.result
    # the call's end arriving again (a resent stream) changes nothing
    done = stream_of(TOOL_REPLY)[-1]
    await h.runner.submit("c", "c:call:1:end", LLMEvent("c:call:1", done))
    assert h.rows() == [(1, "priced", 1, 10, 5, 0.02, 2)]


async def test_a_user_over_budget_gets_no_call_and_an_error_naming_the_budget(
    make: Make,
) -> None:
    h = make([stream_of(FINAL_REPLY)])
    ana = h.user("ana", budget=0.03, period="day")
    conversation = scoped(ana, "c")
    await h.runner.submit(conversation, "req:0", start("go"))
    await h.sink.wait_for(conversation, Final)
    # $0.02 spent of $0.03: the next call is admitted; none is scripted
    h.llm.scripts.append(stream_of(FINAL_REPLY))
    await h.runner.submit(conversation, "req:1", start("again"))
    await h.sink.wait_for(conversation, Final, count=2)
    assert len(h.llm.requests) == 2
    # $0.04 spent: over the budget, the third call is not made
    await h.runner.submit(conversation, "req:2", start("and again"))
    (failed,) = await h.sink.wait_for(conversation, Failed)
    assert isinstance(failed, Failed) and is_server_error(failed.message, BUDGET)
    text = failed.message.error_message or ""
    assert "daily budget of user ana, $0.03, is used up: $0.04 spent" in text
    assert len(h.llm.requests) == 2
    state = await h.runner.state_of(conversation)
    assert state is not None and state.status.value == "failed"
    record = h.store.get_llm_call(f"{conversation}:call:3")
    assert record is not None and record.status.value == "failed"
    assert h.rows() == [(ana, "priced", 2, 20, 10, 0.04, 4)]
    scraped = generate_latest(h.metrics.registry).decode()
    assert 'cursor_byok_user_budget_refusals_total{user="ana"} 1.0' in scraped


async def test_a_summary_call_is_checked_against_the_budget_too(make: Make) -> None:
    h = make([stream_of(FINAL_REPLY), stream_of(FINAL_REPLY)])
    ana = h.user("ana", budget=0.03, period="week")
    conversation = scoped(ana, "c")
    for n in range(2):
        await h.runner.submit(conversation, f"req:{n}", start(f"question {n}"))
        await h.sink.wait_for(conversation, Final, count=n + 1)
    await h.runner.submit(conversation, "compact:0", Compact())
    (failed,) = await h.sink.wait_for(conversation, Failed)
    assert isinstance(failed, Failed) and is_server_error(failed.message, BUDGET)
    assert "weekly budget" in (failed.message.error_message or "")
    assert len(h.llm.requests) == 2


async def test_the_administrator_and_users_without_a_budget_are_never_held(make: Make) -> None:
    h = make([stream_of(FINAL_REPLY) for _ in range(3)])
    bob = h.user("bob")
    for n, conversation in enumerate(("c", scoped(bob, "c"), scoped(bob, "d"))):
        await h.runner.submit(conversation, f"req:{n}", start("go"))
        await h.sink.wait_for(conversation, Final)
    assert h.store.reserve_budget("x", bob, 1.0, 0, 1).budget_usd is None
    assert [(r[0], r[2]) for r in h.rows()] == [(1, 1), (bob, 2)]
    with h.store._read() as db:
        assert db.execute("SELECT count(*) FROM budget_reservations").fetchone() == (0,)


async def test_a_budget_that_cannot_be_checked_makes_no_call(make: Make) -> None:
    h = make([stream_of(FINAL_REPLY)])
    ana = h.user("ana", budget=5.0)

    def broken(*_args: object) -> object:
        raise OSError("disk on fire")

    h.store.reserve_budget = broken  # type: ignore[method-assign,assignment]
    conversation = scoped(ana, "c")
    await h.runner.submit(conversation, "req:0", start("go"))
    (failed,) = await h.sink.wait_for(conversation, Failed)
    assert isinstance(failed, Failed) and is_server_error(failed.message, BUDGET_UNCHECKED)
    assert "budget could not be checked: disk on fire" in (failed.message.error_message or "")
    assert h.llm.requests == []


async def test_a_call_in_flight_holds_its_most_cost_until_it_ends(make: Make) -> None:
    h = make([])
    ana = h.user("ana", budget=5.0)
    conversation = scoped(ana, "c")
    paused = PausingLLM([stream_of(FINAL_REPLY)], pause_at=1)
    h.runner._reader.llm = paused
    await h.runner.submit(conversation, "req:0", start("go"))
    for _ in range(200):
        with h.store._read() as db:
            held = db.execute("SELECT amount_usd FROM budget_reservations").fetchall()
        if held:
            break
        await asyncio.sleep(0.01)
    assert held == [(pytest.approx(1.45),)]
    paused.gate.set()
    await h.sink.wait_for(conversation, Final)
    with h.store._read() as db:
        assert db.execute("SELECT count(*) FROM budget_reservations").fetchone() == (0,)
    assert h.rows() == [(ana, "priced", 1, 10, 5, 0.02, 2)]


async def test_a_long_call_keeps_its_hold_from_expiring(
    make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reservation expires so that a dead process's stops counting; a call
    still running renews its own, and never makes one once it has ended."""
    monkeypatch.setattr(accounting_module, "RESERVATION_TTL_S", 0.4)
    h = make([])
    ana = h.user("ana", budget=5.0)
    conversation = scoped(ana, "c")
    paused = PausingLLM([stream_of(FINAL_REPLY)], pause_at=1)
    h.runner._reader.llm = paused

    def expiry() -> list[tuple[int]]:
        with h.store._read() as db:
            return db.execute("SELECT expires_at_ms FROM budget_reservations").fetchall()

    await h.runner.submit(conversation, "req:0", start("go"))
    for _ in range(500):  # until the call holds its reservation
        if expiry():
            break
        await asyncio.sleep(0.01)
    (first,) = expiry()
    await asyncio.sleep(1.0)  # past two lifetimes: renewed, not expired
    (later,) = expiry()
    assert later[0] > first[0] + 500
    paused.gate.set()
    await h.sink.wait_for(conversation, Final)
    await asyncio.sleep(0.5)
    assert expiry() == []


async def test_an_early_call_whose_planning_commit_did_not_land_gives_its_hold_back(
    make: Make,
) -> None:
    """Two runners on one file: the second's commit conflicts, so the call it
    opened early is dropped, and what that call held is given back (or it
    would hold the user's budget for an hour)."""
    replies = [stream_of(FINAL_REPLY) for _ in range(3)]
    a, b = make(list(replies)), make(list(replies))
    ana = a.user("ana", budget=50.0)
    conversation = scoped(ana, "c")
    await a.runner.submit(conversation, "a:0", start("from a", timestamp=1))
    await a.sink.wait_for(conversation, Final)
    assert await b.runner.state_of(conversation) is not None  # b caches this version
    await a.runner.submit(conversation, "a:1", start("again from a", timestamp=2))
    await a.sink.wait_for(conversation, Final, count=2)
    assert (await b.runner.submit(conversation, "b:0", start("from b", timestamp=3))).committed
    await b.sink.wait_for(conversation, Final)
    held: list[tuple[str]] = [("?",)]
    for _ in range(200):  # the release runs in the background
        with a.store._read() as db:
            held = db.execute("SELECT call_id FROM budget_reservations").fetchall()
        if not held:
            break
        await asyncio.sleep(0.01)
    assert held == []
    assert [row[2] for row in a.rows()] == [3]  # the three calls that ended
