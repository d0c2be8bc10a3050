"""The runner over a real SQLite file, with a scripted model at the edge
(seed §17.4 and the idempotency rules of §11)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    ResponseStream,
    StartEvent,
    TextDelta,
)
from cursor_byok.llm.serialize import canonical_dumps, message_to_json, serialize_messages
from cursor_byok.llm.types import AssistantMessage, TextContent
from cursor_byok.loop import CallClient, Cancel, Canceled, Failed, Final, ToolResult
from cursor_byok.runtime import conversation as conversation_module
from cursor_byok.runtime.conversation import Conversation, StreamEvent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.observe import Metrics
from cursor_byok.runtime.outcome import Outcome
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import (
    CallStatus,
    CommitRequest,
    InputCommit,
    OperationStatus,
    StagedBatch,
)
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import (
    SETTINGS,
    assistant,
    error_event,
    result,
    start,
    stream_of,
    tool_call,
)
from tests.fakes import PausingLLM, RecordingSink, ScriptedLLM, ScriptedStream

Make = Callable[..., "Harness"]
FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01)


class Harness:
    def __init__(self, path: Path, scripts: list[list[ResponseEvent]], delay: float = 0.0):
        self.path = path
        self.store = SQLiteStore(path, synchronous="NORMAL")
        self.llm = ScriptedLLM(scripts, delay)
        self.sink = RecordingSink()
        self.runner = Runner(self.store, self.llm, self.sink, retry=FAST)

    def history(self, conversation_id: str = "c") -> Sequence[object]:
        loaded = self.store.load(conversation_id)
        assert loaded is not None
        return loaded.state.messages


@pytest.fixture
async def harness_factory(tmp_path: Path) -> AsyncIterator[list[Harness]]:
    made: list[Harness] = []
    yield made
    for harness in made:
        await harness.runner.close()
        harness.store.close()


@pytest.fixture
def make(harness_factory: list[Harness], tmp_path: Path) -> Make:
    def build(scripts: list[list[ResponseEvent]], delay: float = 0.0) -> Harness:
        harness = Harness(tmp_path / "db.sqlite3", scripts, delay)
        harness_factory.append(harness)
        return harness

    return build


ANSWER_WITHIN_S = 5.0


async def answered(submitting: Awaitable[Outcome], what: str) -> Outcome:
    """The outcome of a submit, which takes milliseconds here: a resend the
    runner does not recognize is not answered at all (its commit conflicts
    with its own earlier one, and the runner reloads and retries it for
    ever), so a broken rule shows as this failure, not the run's timeout."""
    with contextlib.suppress(TimeoutError):
        return await asyncio.wait_for(submitting, ANSWER_WITHIN_S)
    pytest.fail(f"{what} got no answer in {ANSWER_WITHIN_S}s: not taken for a duplicate?")


TOOL_REPLY = assistant(TextContent("Let me read it."), tool_call("t1", "a.txt"))
FINAL_REPLY = assistant(TextContent("It says hello."), timestamp=4)


async def test_a_tool_turn_streams_in_order_and_commits_only_whole_messages(make: Make) -> None:
    h: Harness = make([stream_of(TOOL_REPLY, chunk=2), stream_of(FINAL_REPLY, chunk=2)])
    counts: list[tuple[str, int]] = []
    original = h.sink.publish

    def observing(conversation_id: str, item: object) -> None:
        loaded = h.store.load(conversation_id)
        counts.append((type(item).__name__, len(loaded.state.messages) if loaded else 0))
        original(conversation_id, item)  # type: ignore[arg-type]

    h.sink.publish = observing  # type: ignore[method-assign]

    outcome = await h.runner.submit("c", "req:0", start("read a.txt"))
    assert outcome.committed and not outcome.duplicate
    [call] = await h.sink.wait_for("c", CallClient)
    assert isinstance(call, CallClient) and call.tool_call == tool_call("t1", "a.txt")
    assert len(h.llm.requests) == 1  # the next model call waits for the tool result

    await h.runner.submit("c", "req:1", ToolResult(result("t1", "hello")))
    await h.sink.wait_for("c", Final)

    expected_events = [e for e in stream_of(TOOL_REPLY, chunk=2) if not isinstance(e, StartEvent)]
    published = [i for i in h.sink.of("c") if not isinstance(i, StartEvent)]
    assert published[: len(expected_events)] == expected_events
    # Every delta was published while history held only the user message.
    for name, count in counts[: len(expected_events) - 1]:
        assert count == 1, name
    assert h.history() == (
        start("read a.txt").user_message,
        TOOL_REPLY,
        result("t1", "hello"),
        FINAL_REPLY,
    )
    first, second = (bytes_ for _, bytes_ in h.llm.requests)
    assert b"hello" not in first and b"hello" in second


async def test_a_call_answered_at_the_first_try_counts_one_attempt(make: Make) -> None:
    denied = ErrorEvent("error", error_event("invalid x-api-key").message, 401)
    h: Harness = make([stream_of(FINAL_REPLY), [denied]])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    await h.runner.submit("c", "req:1", start("again"))
    await h.sink.wait_for("c", Failed)
    answered, failed = h.store.get_llm_call("c:call:1"), h.store.get_llm_call("c:call:2")
    assert answered is not None and (answered.status, answered.attempts) == (
        CallStatus.COMMITTED,
        1,
    )
    assert failed is not None and (failed.status, failed.attempts) == (CallStatus.FAILED, 1)


async def test_a_duplicate_input_returns_the_recorded_result_and_runs_nothing(make: Make) -> None:
    h: Harness = make([stream_of(TOOL_REPLY), stream_of(FINAL_REPLY)])
    first = await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", CallClient)
    again = await answered(h.runner.submit("c", "req:0", start("go")), "a resent input")
    assert again.duplicate and again.result == first.result
    assert len(h.llm.requests) == 1
    assert len([i for i in h.sink.of("c") if isinstance(i, CallClient)]) == 1


async def test_a_turn_s_lookups_are_read_at_once_and_only_its_commits_hop(make: Make) -> None:
    """The store tells at once that a new conversation has nothing to load
    and whether an input was committed before: only a turn's two commits
    leave the loop, to the commit writer's thread, a new conversation's
    first turn as a later one; no other worker-thread hop."""
    h: Harness = make([stream_of(FINAL_REPLY), stream_of(FINAL_REPLY)])
    hops: list[str] = []
    hop = h.runner._io

    async def counting(function: Callable[..., object], *args: object) -> object:
        hops.append(getattr(function, "__name__", repr(function)))
        return await hop(function, *args)

    h.runner._io = counting  # type: ignore[method-assign,assignment]
    for turn in range(2):
        hops.clear()
        batches = h.runner._commits.batches
        await h.runner.submit("c", f"req:{turn}", start(f"go {turn}"))
        await h.sink.wait_for("c", Final, count=turn + 1)
        assert hops == [], turn
        assert h.runner._commits.batches - batches == 2, turn
    assert len(h.history()) == 4


async def test_a_resend_as_a_restarted_runner_s_first_input_is_a_duplicate(make: Make) -> None:
    """The first input after a load is looked up in the load's read: a resend
    is still recognized, and nothing is called or published again."""
    first: Harness = make([stream_of(TOOL_REPLY)])
    sent = await first.runner.submit("c", "req:0", start("go"))
    await first.sink.wait_for("c", CallClient)
    await first.runner.close()

    second: Harness = make([stream_of(FINAL_REPLY)])
    resent = second.runner.submit("c", "req:0", start("go"))
    again = await answered(resent, "an input resent to a restarted runner")
    assert again.duplicate and again.result == sent.result
    fresh = await second.runner.submit("c", "req:1", ToolResult(result("t1")))
    assert fresh.committed and not fresh.duplicate
    await second.sink.wait_for("c", Final)
    assert len(second.llm.requests) == 1
    assert [type(m).__name__ for m in second.history()].count("UserMessage") == 1


async def test_the_same_tool_result_twice_appends_once(make: Make) -> None:
    h: Harness = make([stream_of(TOOL_REPLY), stream_of(FINAL_REPLY, chunk=50)], delay=0.01)
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", CallClient)
    one = await h.runner.submit("c", "req:1", ToolResult(result("t1")))
    two = await h.runner.submit("c", "req:2", ToolResult(result("t1")))
    assert one.committed and not two.committed
    await h.sink.wait_for("c", Final)
    assert [type(m).__name__ for m in h.history()].count("ToolResultMessage") == 1
    operation = h.store.get_client_operation("c:turn:1:call:1:tool:t1")
    assert operation is not None and operation.status is OperationStatus.COMPLETED


async def test_a_retryable_failure_before_output_retries_the_identical_request(make: Make) -> None:
    overloaded = ErrorEvent("error", error_event("overloaded").message, 529, retryable=True)
    h: Harness = make([[StartEvent(), overloaded], [overloaded], stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    assert len(h.llm.requests) == 3
    assert len({data for _, data in h.llm.requests}) == 1
    assert not any(isinstance(i, ErrorEvent) for i in h.sink.of("c"))
    record = h.store.get_llm_call("c:call:1")
    assert record is not None
    assert (record.status, record.attempts) == (CallStatus.COMMITTED, 3)
    assert h.history()[-1] == FINAL_REPLY


async def test_a_failure_after_output_fails_the_turn_without_a_partial_message(make: Make) -> None:
    broken = ErrorEvent("error", error_event("connection reset").message, 502, retryable=True)
    partial = stream_of(FINAL_REPLY)[:4]
    h: Harness = make([[*partial, broken]])
    await h.runner.submit("c", "req:0", start("go"))
    [failed] = await h.sink.wait_for("c", Failed)
    assert isinstance(failed, Failed)
    assert failed.message.error_message == "connection reset"
    assert len(h.llm.requests) == 1
    assert h.history() == (start("go").user_message,)
    record = h.store.get_llm_call("c:call:1")
    assert record is not None and record.status is CallStatus.FAILED
    assert record.error == "connection reset"


async def test_a_retry_after_beyond_the_budget_ends_the_turn_at_once(make: Make) -> None:
    message = error_event("Rate limit reached").message
    limited = ErrorEvent("error", message, 429, retryable=True, retry_after=60.0)
    h: Harness = make([[limited], stream_of(FINAL_REPLY)])
    started = time.monotonic()
    await h.runner.submit("c", "req:0", start("go"))
    [failed] = await h.sink.wait_for("c", Failed)
    assert time.monotonic() - started < 5  # not 60 s, and not a retry capped short
    assert isinstance(failed, Failed) and len(h.llm.requests) == 1
    text = failed.message.error_message or ""
    assert "asked to wait 60 s" in text and "retry budget of 30 s" in text
    assert re.search(r"Try again after \d\d:\d\d:\d\d UTC\.$", text)
    record = h.store.get_llm_call("c:call:1")
    assert record is not None and record.status is CallStatus.FAILED and record.error == text


async def test_a_non_retryable_error_fails_at_once_and_keeps_the_message(make: Make) -> None:
    denied = ErrorEvent("error", error_event("invalid x-api-key").message, 401)
    h: Harness = make([[denied], stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Failed)
    assert len(h.llm.requests) == 1
    record = h.store.get_llm_call("c:call:1")
    assert record is not None and record.error == "invalid x-api-key"


async def test_a_stream_that_ends_without_done_fails_cleanly(make: Make) -> None:
    h: Harness = make([stream_of(FINAL_REPLY)[:-1]])
    await h.runner.submit("c", "req:0", start("go"))
    [failed] = await h.sink.wait_for("c", Failed)
    assert "without a final event" in (failed.message.error_message or "")  # type: ignore[union-attr]
    assert h.history() == (start("go").user_message,)


class RaisingStream(ScriptedStream):
    """Plays its events, then fails as an adapter bug would."""

    async def recv(self) -> ResponseEvent:
        if self.position == len(self.events) and not self.closed:
            raise KeyError("choices")
        return await super().recv()


async def test_an_adapter_that_raises_mid_stream_fails_the_call_cleanly(
    make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    h: Harness = make([])
    played = stream_of(FINAL_REPLY)[:3]

    async def call(*_: object) -> ResponseStream:
        return RaisingStream(list(played))

    monkeypatch.setattr(h.llm, "call", call)
    await h.runner.submit("c", "req:0", start("go"))
    [failed] = await h.sink.wait_for("c", Failed)
    text = failed.message.error_message or ""  # type: ignore[union-attr]
    assert text == "the model stream failed: KeyError: 'choices'"
    assert h.history() == (start("go").user_message,)


async def test_cancel_mid_stream_closes_the_upstream_and_keeps_what_streamed(make: Make) -> None:
    long = assistant(TextContent("word " * 200))
    h: Harness = make([stream_of(long, chunk=5)], delay=0.005)
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", TextDelta, count=3)
    await h.runner.submit("c", "req:1", Cancel("user stop"))
    [canceled] = await h.sink.wait_for("c", Canceled)
    assert canceled == Canceled("user stop")
    await asyncio.sleep(0.05)
    assert h.llm.streams[0].closed
    first, kept = h.history()
    assert first == start("go").user_message
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert kept.text and ("word " * 200).startswith(kept.text)
    record = h.store.get_llm_call("c:call:1")
    assert record is not None and record.status is CallStatus.CANCELED


async def test_a_restarted_runner_resumes_the_call_with_the_same_id_and_bytes(
    make: Make, tmp_path: Path
) -> None:
    slow = stream_of(FINAL_REPLY, chunk=1)
    first: Harness = make([slow], delay=0.01)
    await first.runner.submit("c", "req:0", start("go"))
    await first.sink.wait_for("c", TextDelta, count=2)
    await first.runner.close()  # the process dies mid-stream: nothing was committed

    second: Harness = make([stream_of(FINAL_REPLY)])
    assert await second.runner.recover() == ["c"]
    await second.sink.wait_for("c", Final)
    assert first.llm.requests[0] == second.llm.requests[0]
    assert second.history() == (start("go").user_message, FINAL_REPLY)


async def test_a_saved_request_that_no_longer_matches_its_hash_is_never_sent(
    make: Make, tmp_path: Path
) -> None:
    first: Harness = make([stream_of(FINAL_REPLY, chunk=1)], delay=0.01)
    await first.runner.submit("c", "req:0", start("go"))
    await first.sink.wait_for("c", TextDelta, count=1)
    await first.runner.close()
    db = sqlite3.connect(tmp_path / "db.sqlite3")
    db.execute("UPDATE request_parts SET body = CAST('\"not the prompt\"' AS BLOB)")
    db.commit()
    db.close()

    second: Harness = make([stream_of(FINAL_REPLY)])
    await second.runner.recover()
    [failed] = await second.sink.wait_for("c", Failed)
    assert isinstance(failed, Failed)
    assert "could not be rebuilt" in (failed.message.error_message or "")
    assert second.llm.requests == []
    assert second.history() == (start("go").user_message,)


async def test_a_committed_call_streamed_twice_appends_one_message(make: Make) -> None:
    # Two processes resume the same call: both stream it, one commits. The
    # first process stops while the call is still in flight (its model is slow).
    setup: Harness = make([[StartEvent()]], delay=60.0)
    await setup.runner.submit("c", "req:0", start("go"))
    await setup.runner.close()

    a: Harness = make([stream_of(FINAL_REPLY)], delay=0.001)
    b: Harness = make([stream_of(FINAL_REPLY)], delay=0.002)
    await asyncio.gather(a.runner.recover(), b.runner.recover())
    await a.sink.wait_for("c", DoneEvent)
    await b.sink.wait_for("c", (DoneEvent, TextDelta), count=3)
    await asyncio.sleep(0.1)
    history = a.history()
    assert history == (start("go").user_message, FINAL_REPLY)
    assert serialize_messages(history) == serialize_messages(b.history())  # type: ignore[arg-type]


async def test_a_tool_call_after_restart_is_sent_again_with_the_same_operation_id(
    make: Make,
) -> None:
    """Sent again, and said to be: the process that asked it stopped, so
    the client may have run it (the transport decides what to do then)."""
    first: Harness = make([stream_of(TOOL_REPLY)])
    await first.runner.submit("c", "req:0", start("go"))
    [sent] = await first.sink.wait_for("c", CallClient)
    await first.runner.close()
    second: Harness = make([stream_of(FINAL_REPLY)])
    await second.runner.recover()
    [again] = await second.sink.wait_for("c", CallClient)
    assert isinstance(sent, CallClient) and isinstance(again, CallClient)
    assert not sent.again and again.again
    assert (again.operation_id, again.tool_call) == (sent.operation_id, sent.tool_call)
    await second.runner.submit("c", "req:1", ToolResult(result("t1")))
    await second.sink.wait_for("c", Final)
    assert isinstance(second.history()[-1], AssistantMessage)


async def test_two_runners_on_one_file_reload_on_conflict_and_lose_nothing(
    make: Make, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cursor_byok.runtime.runner")
    replies = [stream_of(assistant(TextContent(f"reply {n}"), timestamp=n)) for n in range(8)]
    a: Harness = make(list(replies))
    b: Harness = make(list(replies))
    await a.runner.submit("c", "a:0", start("from a", timestamp=1))
    await a.sink.wait_for("c", Final)
    assert await b.runner.state_of("c") is not None  # b caches version 3
    await a.runner.submit("c", "a:1", start("again from a", timestamp=2))
    await a.sink.wait_for("c", Final, count=2)
    # b's cached version is stale: its commit conflicts, it reloads, retries.
    outcome = await b.runner.submit("c", "b:0", start("from b", timestamp=3))
    assert outcome.committed
    assert "version conflict, reloading" in caplog.text
    await b.sink.wait_for("c", Final)
    texts = [getattr(m, "content", None) for m in b.history()]
    assert texts.count("from a") == texts.count("again from a") == texts.count("from b") == 1
    kinds = [type(m).__name__ for m in b.history()]
    assert kinds == ["UserMessage", "AssistantMessage"] * 3


async def test_an_operation_already_completed_is_answered_from_its_saved_result(
    make: Make,
) -> None:
    first: Harness = make([stream_of(TOOL_REPLY)])
    await first.runner.submit("c", "req:0", start("go"))
    [sent] = await first.sink.wait_for("c", CallClient)
    assert isinstance(sent, CallClient)
    await first.runner.close()
    saved = first.store.get_client_operation(sent.operation_id)
    assert saved is not None and saved.status is OperationStatus.WAITING
    # The result reached the store, but the process died before the state moved on.
    message = result("t1", "saved output")
    first.store.save_client_operation(
        replace(
            saved,
            status=OperationStatus.COMPLETED,
            result=canonical_dumps(message_to_json(message)),
        )
    )
    second: Harness = make([stream_of(FINAL_REPLY)])
    await second.runner.recover()
    await second.sink.wait_for("c", Final)
    assert not any(isinstance(i, CallClient) for i in second.sink.of("c"))
    assert second.history()[2] == message


async def test_the_model_call_limit_holds_across_a_restart_mid_turn(make: Make) -> None:
    loops = [stream_of(assistant(tool_call(f"t{n}", "a.txt"))) for n in range(5)]
    first: Harness = make(loops[:2])
    limited = replace(start("loop forever"), settings=replace(SETTINGS, max_model_calls=3))
    await first.runner.submit("c", "req:0", limited)
    for n in range(2):
        [call] = (await first.sink.wait_for("c", CallClient, count=n + 1))[-1:]
        assert isinstance(call, CallClient)
        if n == 0:
            await first.runner.submit("c", "req:1", ToolResult(result(call.tool_call.id)))
    await first.runner.close()  # the process dies with the second tool call out
    second: Harness = make(loops[2:])
    await second.runner.recover()
    [again] = await second.sink.wait_for("c", CallClient)
    assert isinstance(again, CallClient) and again.tool_call.id == "t1"
    await second.runner.submit("c", "req:2", ToolResult(result("t1")))
    [third] = (await second.sink.wait_for("c", CallClient, count=2))[-1:]
    assert isinstance(third, CallClient)
    await second.runner.submit("c", "req:3", ToolResult(result(third.tool_call.id)))
    [final] = await second.sink.wait_for("c", Final)
    assert isinstance(final, Final)
    assert "limit of 3 model calls" in final.message.text
    assert len(first.llm.requests) + len(second.llm.requests) == 3  # no fourth call
    assert second.history()[-1] == result(third.tool_call.id)  # the notice is not history
    loaded = second.store.load("c")
    assert loaded is not None and loaded.state.status.value == "final"


async def test_an_input_that_changes_nothing_is_counted_and_logged(
    make: Make, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cursor_byok.runtime.runner")
    h: Harness = make([stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    outcome = await h.runner.submit("c", "req:1", ToolResult(result("nobody")))
    assert not outcome.committed and not outcome.duplicate
    await h.runner.submit("c", "req:2", Cancel("late"))
    assert h.runner.ignored == {"tool result nobody waits for": 1, "nothing to cancel": 1}
    assert 'reason="nothing to cancel"' in caplog.text
    assert h.store.find_input_commit("c", "req:1") is None
    metrics = Metrics()
    counted = Runner(h.store, h.llm, h.sink, retry=FAST, metrics=metrics)
    try:
        await counted.submit("c", "req:3", Cancel("again"))
    finally:
        await counted.close()
    exported = generate_latest(metrics.registry).decode()
    assert 'cursor_byok_ignored_inputs_total{reason="nothing to cancel"} 1.0' in exported


class RaisingRouter:
    async def call(self, model: str, ctx: object, request: object) -> object:
        raise RuntimeError("adapter bug")


async def test_a_router_that_raises_fails_the_turn_instead_of_hanging(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "r.sqlite3", synchronous="NORMAL")
    sink = RecordingSink()
    runner = Runner(store, RaisingRouter(), sink, retry=FAST)  # type: ignore[arg-type]
    try:
        await runner.submit("c", "req:0", start("go"))
        [failed] = await sink.wait_for("c", Failed)
        assert "adapter bug" in (failed.message.error_message or "")  # type: ignore[union-attr]
        # The conversation is usable again.
        state = await runner.state_of("c")
        assert state is not None and state.status.value == "failed"
    finally:
        await runner.close()
        store.close()


async def test_an_unstorable_answer_fails_the_call_instead_of_hanging(tmp_path: Path) -> None:
    bad = assistant(type(tool_call("x"))("t1", "read_file", {"n": float("nan")}))
    h_store = SQLiteStore(tmp_path / "n.sqlite3", synchronous="NORMAL")
    sink = RecordingSink()
    runner = Runner(h_store, ScriptedLLM([stream_of(bad)]), sink, retry=FAST)
    try:
        await runner.submit("c", "req:0", start("go"))
        [failed] = await sink.wait_for("c", Failed)
        assert "could not be stored" in (failed.message.error_message or "")  # type: ignore[union-attr]
    finally:
        await runner.close()
        h_store.close()


async def test_idle_conversations_are_forgotten_and_reloaded_on_demand(
    make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    h: Harness = make([stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    monkeypatch.setattr(conversation_module, "IDLE_CONVERSATION_TTL_S", 0.0)
    monkeypatch.setattr(conversation_module, "SWEEP_INTERVAL_S", 0.0)
    await asyncio.sleep(0.01)
    state = await h.runner.state_of("other")  # touching another one sweeps
    assert state is not None and "c" not in h.runner._conversations
    again = await h.runner.state_of("c")
    assert again is not None and again.messages[-1] == FINAL_REPLY


async def test_deltas_keep_their_order_whether_the_worker_idles_or_has_work_queued(
    make: Make,
) -> None:
    """An idle worker lets a delta through the loop at once; one busy with an
    input (here, a resent message, looked up in the store off the event
    loop) or with work queued has the deltas queue behind it. Either way the
    sink sees the stream's events in order, each once."""
    reply = assistant(TextContent("word " * 120), timestamp=4)
    h: Harness = make([stream_of(reply, chunk=3)], delay=0.0005)
    await h.runner.submit("c", "req:0", start("talk"))
    looks = 0
    while not any(isinstance(i, Final) for i in h.sink.of("c")):
        again = await h.runner.submit("c", "req:0", start("talk"))
        assert again.duplicate
        await asyncio.gather(*(h.runner.state_of("c") for _ in range(3)))
        looks += 1
        await asyncio.sleep(0.002)
    expected = [e for e in stream_of(reply, chunk=3) if not isinstance(e, DoneEvent)]
    published = [i for i in h.sink.of("c") if not isinstance(i, Final | DoneEvent)]
    assert looks > 3  # the worker had work while the stream went on
    assert published == expected


class HeldCommits:
    """The real store, whose commits that plan a model call (flush=False)
    wait until `go` is set: a commit still in flight, as seen by the runner."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.go = threading.Event()
        self.waiting = threading.Event()

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    def commit_batch(
        self, requests: Sequence[CommitRequest]
    ) -> list[int | InputCommit | Exception]:
        if any(not request.flush for request in requests):
            self.waiting.set()
            assert self.go.wait(10)
        return self.store.commit_batch(requests)

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        """A planning commit is not staged (a staged one lands on the loop at
        once): the writer thread writes it, and holds it (`commit_batch`)."""
        if any(not request.flush for request in requests):
            return None
        return self.store.stage_batch_now(requests)


async def test_a_call_opened_during_its_planning_commit_publishes_nothing_before_it_lands(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    held = HeldCommits(store)
    llm, sink = ScriptedLLM([stream_of(FINAL_REPLY)]), RecordingSink()
    runner = Runner(held, llm, sink, retry=FAST)  # type: ignore[arg-type]
    through_worker: list[ResponseEvent] = []
    stream_event = runner._stream_event

    async def spied(conversation: Conversation, item: StreamEvent) -> None:
        through_worker.append(item.event)
        await stream_event(conversation, item)

    runner._stream_event = spied  # type: ignore[method-assign]
    try:
        submitted = asyncio.ensure_future(runner.submit("c", "req:0", start("go")))
        await asyncio.to_thread(held.waiting.wait, 10)
        for _ in range(50):  # the model answers in full meanwhile
            await asyncio.sleep(0.001)
        assert len(llm.requests) == 1  # opened while the commit is in flight
        assert sink.of("c") == []  # nothing of it published yet
        held.go.set()
        assert (await submitted).committed
        await sink.wait_for("c", Final)
        expected = [e for e in stream_of(FINAL_REPLY) if not isinstance(e, DoneEvent)]
        assert [i for i in sink.of("c") if not isinstance(i, Final | DoneEvent)] == expected
        # Once it lands, the held deltas go through the loop at once; only
        # the answer's end (a commit) goes through the worker.
        assert [type(e) for e in through_worker] == [DoneEvent]
        loaded = store.load("c")
        assert loaded is not None and loaded.state.messages[-1] == FINAL_REPLY
    finally:
        held.go.set()
        await runner.close()
        store.close()


class FailingPlans(HeldCommits):
    """The real store, whose commits that plan a model call fail as a full
    disk would make them fail."""

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        if any(not request.flush for request in requests):
            raise sqlite3.OperationalError("database or disk is full")
        return self.store.stage_batch_now(requests)


async def test_a_call_opened_early_goes_with_its_planning_commit_when_that_fails(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = PausingLLM([stream_of(FINAL_REPLY)], pause_at=1)  # stalls after its start
    sink = RecordingSink()
    runner = Runner(FailingPlans(store), llm, sink, retry=FAST)  # type: ignore[arg-type]
    try:
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            await answered(runner.submit("c", "req:0", start("go")), "the failing start")
        # The call was opened while the commit was staged; it goes with it,
        # rather than go on (its budget check, its request, its stream) into
        # a gate that never opens.
        await asyncio.sleep(0.3)
        assert all(stream.closed for stream in llm.streams)
        assert runner._conversations["c"].reader is None or runner._conversations["c"].reader.done()
        assert sink.of("c") == []
        assert store.load("c") is None  # nothing of the turn was stored
    finally:
        llm.gate.set()
        await runner.close()
        store.close()


async def test_without_early_calls_the_model_waits_for_the_planning_commit(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    held = HeldCommits(store)
    llm, sink = ScriptedLLM([stream_of(FINAL_REPLY)]), RecordingSink()
    runner = Runner(held, llm, sink, retry=FAST, early_calls=False)  # type: ignore[arg-type]
    try:
        submitted = asyncio.ensure_future(runner.submit("c", "req:0", start("go")))
        await asyncio.to_thread(held.waiting.wait, 10)
        await asyncio.sleep(0.05)
        assert llm.requests == []
        held.go.set()
        await submitted
        await sink.wait_for("c", Final)
        assert len(llm.requests) == 1
    finally:
        held.go.set()
        await runner.close()
        store.close()


async def test_the_state_is_answered_at_once_only_while_the_worker_rests(
    tmp_path: Path,
) -> None:
    """A stream asks for the state just as the model starts to answer: with
    the worker at rest the answer needs no trip through its queue (the
    deltas arriving meanwhile would queue behind it); with an input in hand
    the answer waits for that input, in queue order."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    held = HeldCommits(store)
    llm, sink = ScriptedLLM([stream_of(FINAL_REPLY)] * 2), RecordingSink()
    runner = Runner(held, llm, sink, retry=FAST)  # type: ignore[arg-type]
    try:
        held.go.set()
        await runner.submit("c", "req:0", start("one"))
        await sink.wait_for("c", Final)
        asking = runner.state_of("c")
        with pytest.raises(StopIteration) as answered:
            asking.send(None)  # no trip through the worker
        loaded = store.load("c")
        assert loaded is not None and answered.value.value == loaded.state

        held.go.clear()
        held.waiting.clear()
        submitted = asyncio.ensure_future(runner.submit("c", "req:1", start("two")))
        await asyncio.to_thread(held.waiting.wait, 10)  # the worker is committing it
        inspected = asyncio.ensure_future(runner.state_of("c"))
        await asyncio.sleep(0.01)
        assert not inspected.done()
        held.go.set()
        state = await inspected
        assert state is not None
        assert [getattr(m, "content", None) for m in state.messages].count("two") == 1
        assert (await submitted).committed
    finally:
        held.go.set()
        await runner.close()
        store.close()


async def test_a_closed_runner_refuses_new_work_with_a_clear_error(make: Make) -> None:
    """After `close`, an input is refused at once (its conversation known
    here or not), never queued for a worker that is gone or run by a new one."""
    h: Harness = make([stream_of(FINAL_REPLY), stream_of(FINAL_REPLY)])
    await h.runner.submit("c", "req:0", start("go"))
    await h.sink.wait_for("c", Final)
    await h.runner.close()
    for conversation_id in ("new", "c"):
        with pytest.raises(RuntimeError, match="runner is closed"):
            await asyncio.wait_for(h.runner.submit(conversation_id, "req:1", start("more")), 2)
        with pytest.raises(RuntimeError, match="runner is closed"):
            await asyncio.wait_for(h.runner.state_of(conversation_id), 2)
    assert len(h.llm.requests) == 1
    assert h.history() == (start("go").user_message, FINAL_REPLY)
    assert h.store.load("new") is None
