"""One owner per conversation on a shared PostgreSQL database: two leased
runners, each with its own pool, stand for two server processes."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest

from cursor_byok.cluster.leased_runner import LeasedRunner, NotOwner
from cursor_byok.cluster.processes import leases_on
from cursor_byok.llm.events import ResponseEvent, StartEvent, TextDelta
from cursor_byok.llm.types import TextContent
from cursor_byok.loop import CallClient, Cancel, Canceled, Failed, Final, ToolResult
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import InputCommit, StoreError
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.store.scratch_postgres import PostgresServer
from tests.factories import assistant, error_event, result, start, stream_of, tool_call
from tests.fakes import PausingLLM, RecordingSink, ScriptedLLM

TTL_S = 0.6
FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01)
TOOL_REPLY = assistant(TextContent("Let me read it."), tool_call("t1", "a.txt"))
FINAL_REPLY = assistant(TextContent("It says hello."), timestamp=4)


class Process:
    """What one server process holds: its own pool, model, sink and runner."""

    def __init__(
        self, url: PostgresURL, name: str, scripts: list[list[ResponseEvent]], pausing: bool
    ) -> None:
        self.store = PostgresStore(url, max_connections=4)
        self.llm = PausingLLM(scripts) if pausing else ScriptedLLM(scripts, delay=0.005)
        self.sink = RecordingSink()
        leases = leases_on(self.store, name, TTL_S)
        self.runner = LeasedRunner(self.store, self.llm, self.sink, retry=FAST, leases=leases)

    async def die(self) -> None:
        """Stop as kill -9 would: no lease released, nothing more written."""
        keeper = self.runner._keeper
        if keeper is not None:
            keeper.cancel()
        await Runner.close(self.runner)


Start = Callable[..., Process]
"""(name, scripts, pausing=False): a process; `pausing` holds its model's
answers back until `llm.gate` is set."""


@pytest.fixture
async def process(postgres_server: PostgresServer) -> AsyncIterator[Start]:
    url = postgres_server.new_database()
    started: list[Process] = []

    def make(name: str, scripts: list[list[ResponseEvent]], pausing: bool = False) -> Process:
        started.append(Process(url, name, scripts, pausing))
        return started[-1]

    yield make
    for one in started:
        await one.runner.close()
        one.store.close()


async def test_a_conversation_owned_by_a_live_process_is_refused_elsewhere(
    process: Start,
) -> None:
    a, b = process("a", [stream_of(TOOL_REPLY)]), process("b", [])
    await a.runner.recover()
    await b.runner.recover()
    await a.runner.submit("c", "req:0", start("read a.txt"))
    await a.sink.wait_for("c", CallClient)
    with pytest.raises(NotOwner):
        await b.runner.submit("c", "req:1", ToolResult(result("t1", "hello")))
    await asyncio.sleep(3 * TTL_S)  # a renews while the turn waits for its tool
    with pytest.raises(NotOwner):
        await b.runner.submit("c", "req:1", ToolResult(result("t1", "hello")))
    assert b.runner.adopted == [] and b.llm.requests == []


async def test_a_dead_owner_waiting_for_a_tool_is_replaced_after_its_lease(
    process: Start,
) -> None:
    a, b = process("a", [stream_of(TOOL_REPLY)]), process("b", [stream_of(FINAL_REPLY)])
    await a.runner.recover()
    await b.runner.recover()
    await a.runner.submit("c", "req:0", start("read a.txt"))
    [sent] = await a.sink.wait_for("c", CallClient)
    await a.die()
    died = time.monotonic()

    [again] = await b.sink.wait_for("c", CallClient)
    took = time.monotonic() - died
    # The same operation, said to be asked before (the dead owner sent it):
    # the transport asks a read again, and never runs a command twice.
    assert isinstance(sent, CallClient) and isinstance(again, CallClient)
    assert (again.operation_id, again.tool_call, again.again) == (
        sent.operation_id,
        sent.tool_call,
        True,
    )
    assert TTL_S * 0.5 < took <= 2 * TTL_S
    await asyncio.sleep(0.05)  # the adoption is noted once the resume returns
    assert b.runner.adopted == ["c"]
    await b.runner.submit("c", "req:1", ToolResult(result("t1", "hello")))
    await b.sink.wait_for("c", Final)
    loaded = b.store.load("c")
    assert loaded is not None
    assert loaded.state.messages == (
        start("read a.txt").user_message,
        TOOL_REPLY,
        result("t1", "hello"),
        FINAL_REPLY,
    )
    assert len(a.llm.requests) == 1 and len(b.llm.requests) == 1


async def test_a_dead_owner_mid_stream_is_resumed_with_the_same_request(
    process: Start,
) -> None:
    slow = stream_of(FINAL_REPLY, chunk=1)
    a, b = process("a", [slow]), process("b", [stream_of(FINAL_REPLY)])
    a.llm.delay = 0.05
    await a.runner.recover()
    await b.runner.recover()
    await a.runner.submit("c", "req:0", start("go"))
    await a.sink.wait_for("c", TextDelta, count=2)
    await a.die()

    [final] = await b.sink.wait_for("c", Final)
    assert isinstance(final, Final)
    assert a.llm.requests == b.llm.requests  # the same call, the same bytes
    loaded = b.store.load("c")
    assert loaded is not None
    assert loaded.state.messages == (start("go").user_message, FINAL_REPLY)


async def test_a_long_turn_keeps_its_owner_and_an_idle_one_is_free_at_once(
    process: Start,
) -> None:
    a = process("a", [stream_of(FINAL_REPLY, chunk=1)])
    b = process("b", [stream_of(assistant(TextContent("Again."), timestamp=6))])
    a.llm.delay = 4 * TTL_S / len(stream_of(FINAL_REPLY, chunk=1))
    await a.runner.recover()
    await b.runner.recover()
    await a.runner.submit("c", "req:0", start("go"))
    await a.sink.wait_for("c", Final)  # longer than the lease: renewed meanwhile
    assert b.runner.adopted == [] and b.llm.requests == []

    await asyncio.sleep(TTL_S / 2)  # a's keeper releases the idle conversation
    await b.runner.submit("c", "req:1", start("again", timestamp=5))
    await b.sink.wait_for("c", Final)
    loaded = b.store.load("c")
    assert loaded is not None and len(loaded.state.messages) == 4
    with pytest.raises(NotOwner):
        await a.runner.submit("c", "req:2", start("from a", timestamp=7))


def hold_keeper_back(one: Process) -> None:
    """No more renewals, as from a keeper starved by an overloaded loop."""
    keeper = one.runner._keeper
    assert keeper is not None
    keeper.cancel()


async def test_a_commit_is_refused_once_the_lease_is_gone_and_the_version_check_backs_it(
    process: Start,
) -> None:
    a, b = process("a", [stream_of(TOOL_REPLY)]), process("b", [stream_of(FINAL_REPLY)])
    await a.runner.recover()
    await b.runner.recover()
    await a.runner.submit("c", "req:0", start("read a.txt"))
    await a.sink.wait_for("c", CallClient)
    hold_keeper_back(a)
    await b.sink.wait_for("c", CallClient)  # b adopted it and asks for the tool again
    await b.runner.submit("c", "req:1", ToolResult(result("t1", "hello")))
    await b.sink.wait_for("c", Final)
    committed = b.store.load("c")
    assert committed is not None

    # a still has the turn in memory, waiting for the tool; its claim is refused.
    with pytest.raises(NotOwner):
        await a.runner.submit("c", "req:1-on-a", ToolResult(result("t1", "hello")))
    assert a.runner.lost == ["c"]
    # Were a to believe it held the lease, its stale commit would still be
    # refused by the version compare-and-swap: it reloads, and the result,
    # now out of turn, changes nothing.
    a.runner._held["c"] = time.monotonic() + 60
    outcome = await a.runner.submit("c", "req:1-again", ToolResult(result("t1", "hello")))
    assert not outcome.committed
    after = b.store.load("c")
    assert after is not None
    assert (after.version, after.state) == (committed.version, committed.state)
    assert len(a.llm.requests) == 1 and len(b.llm.requests) == 1


async def test_the_keeper_keeps_the_lease_of_a_first_input_being_committed(
    process: Start,
) -> None:
    a = process("a", [stream_of(FINAL_REPLY)], pausing=True)  # a slow first token
    b = process("b", [stream_of(FINAL_REPLY)])
    # A first input is committed as one that may be a resend (the lookup in
    # its commit's transaction): `commit_new_input`.
    commit = a.store.commit_new_input
    committing = threading.Event()

    def slow_commit(*args: Any) -> int | InputCommit:
        committing.set()
        time.sleep(TTL_S)  # three keeper beats while the input is applied
        return commit(*args)

    a.store.commit_new_input = slow_commit  # type: ignore[method-assign,assignment]
    await a.runner.recover()
    await b.runner.recover()
    submitted = asyncio.ensure_future(a.runner.submit("c", "req:0", start("go")))
    assert await asyncio.to_thread(committing.wait, 5)
    await asyncio.sleep(TTL_S / 2)  # past a keeper beat, the commit still on its way
    assert await b.runner.owner_of("c") == "a"
    await submitted
    await asyncio.sleep(2 * TTL_S)  # the model is called; its stream is slow to start
    assert isinstance(a.llm, PausingLLM)
    a.llm.gate.set()
    await a.sink.wait_for("c", Final)
    assert a.runner.lost == [] and b.runner.adopted == [] and b.llm.requests == []


async def test_the_state_is_read_from_memory_only_while_the_lease_surely_holds(
    process: Start,
) -> None:
    """`state_of` skips the worker while the claim it would make is free;
    once the lease may be gone it claims first, so a process that lost the
    conversation never answers from what it remembers."""
    a = process("a", [stream_of(FINAL_REPLY)])
    b = process("b", [stream_of(assistant(TextContent("Again."), timestamp=6))])
    await a.runner.submit("c", "req:0", start("go"))
    await a.sink.wait_for("c", Final)
    asking = a.runner.state_of("c")
    with pytest.raises(StopIteration) as answered:
        asking.send(None)  # no trip through the worker
    assert answered.value.value.messages[-1] == FINAL_REPLY

    await asyncio.sleep(TTL_S * 1.2)  # a has no keeper: its lease runs out
    await b.runner.submit("c", "req:1", start("again", timestamp=5))
    await b.sink.wait_for("c", Final)
    with pytest.raises(NotOwner):
        await a.runner.state_of("c")


async def stalled_past_its_lease(process: Start, delay: float) -> Process:
    """A process, with no keeper, whose model stream stalls mid-answer until
    its lease has run out (nobody else takes it); once `llm.gate` is set
    the stream goes on, an event every `delay`. Its scripts answer twice,
    so a second call would be seen, not fail."""
    answer = stream_of(FINAL_REPLY, chunk=1)
    a = process("a", [answer, answer], pausing=True)
    assert isinstance(a.llm, PausingLLM)
    a.llm.pause_at, a.llm.delay = len(answer) // 2, delay
    await a.runner.submit("c", "req:0", start("go"))
    await a.sink.wait_for("c", TextDelta, count=2)
    probe = leases_on(a.store, "probe", TTL_S)
    began = time.monotonic()
    while probe.unowned(["c"]) != ["c"]:
        assert time.monotonic() - began < 10 * TTL_S, "the lease was never given up"
        await asyncio.sleep(0.05)
    return a


async def answered_once(a: Process) -> None:
    [end] = await a.sink.wait_for("c", (Final, Failed, Canceled))
    assert len(a.llm.requests) == 1
    assert isinstance(end, Final)
    texts = [e.delta for e in a.sink.of("c") if isinstance(e, TextDelta)]
    assert "".join(texts) == "It says hello."
    loaded = a.store.load("c")
    assert loaded is not None
    assert loaded.state.messages == (start("go").user_message, FINAL_REPLY)
    assert a.runner.lost == [] and a.runner.holds("c")


async def test_a_lease_taken_anew_while_the_model_streams_resumes_no_second_call(
    process: Start,
) -> None:
    """The next model event claims the lease anew, which reloads the state
    and resumes the work in flight: the call still streaming, which goes
    on, and is not made a second time."""
    a = await stalled_past_its_lease(process, delay=0.05)
    assert isinstance(a.llm, PausingLLM)
    a.llm.gate.set()
    await answered_once(a)


async def test_a_lease_taken_anew_after_the_stream_ended_resumes_no_second_call(
    process: Start,
) -> None:
    """As above, but the rest of the stream arrives at once: the call's
    reader has ended by the time the worker has claimed the lease and
    reloaded, its events still queued. The call is still in flight here."""
    a = await stalled_past_its_lease(process, delay=0.0)
    assert isinstance(a.llm, PausingLLM)
    a.llm.gate.set()
    await answered_once(a)


async def until(holds: Callable[[], bool], what: str) -> None:
    began = time.monotonic()
    while not holds():
        assert time.monotonic() - began < 10 * TTL_S, what
        await asyncio.sleep(0.02)


async def released(one: Process, conversation_id: str, what: str) -> None:
    """Until the process has let the lease go in the database too: its keeper
    forgets an idle lease before the release's round trip ends, and another
    process that claims within that round trip is rightly refused."""
    began = time.monotonic()
    while one.runner.holds(conversation_id) or await one.runner.owner_of(conversation_id):
        assert time.monotonic() - began < 10 * TTL_S, what
        await asyncio.sleep(0.02)


async def test_a_lease_taken_anew_reloads_what_another_process_wrote(process: Start) -> None:
    """A process that gave an idle conversation up and takes it again may
    have missed what another process wrote meanwhile: it reads the state
    again, never answers from what it remembers."""
    a = process("a", [stream_of(FINAL_REPLY)])
    b = process("b", [stream_of(assistant(TextContent("Again."), timestamp=6))])
    await a.runner.recover()
    await b.runner.recover()
    await a.runner.submit("c", "req:0", start("go"))
    await a.sink.wait_for("c", Final)
    remembered = await a.runner.state_of("c")
    assert remembered is not None and len(remembered.messages) == 2
    await released(a, "c", "a kept the idle lease")
    await b.runner.submit("c", "req:1", start("again", timestamp=5))
    await b.sink.wait_for("c", Final)
    await released(b, "c", "b kept the idle lease")
    state = await a.runner.state_of("c")
    loaded = b.store.load("c")
    assert loaded is not None and len(loaded.state.messages) == 4
    assert state == loaded.state


async def test_no_model_event_reaches_the_client_once_the_lease_is_gone(process: Start) -> None:
    """The stream stalls past the lease (no keeper renews it) and another
    process takes the conversation over. When the stream goes on, its events
    do not skip the claim: the first one finds the lease gone and the call
    stops here, with nothing more published (the new owner answers)."""
    answer = stream_of(FINAL_REPLY, chunk=1)
    a = process("a", [answer], pausing=True)
    assert isinstance(a.llm, PausingLLM)
    a.llm.pause_at = len(answer) // 2
    b = process("b", [answer])
    await b.runner.recover()  # b's keeper adopts what nobody owns
    await a.runner.submit("c", "req:0", start("go"))
    before = [e for e in answer[: a.llm.pause_at] if isinstance(e, TextDelta)]
    await a.sink.wait_for("c", TextDelta, count=len(before))
    shown = list(a.sink.of("c"))
    await b.sink.wait_for("c", Final)  # adopted once a's lease ran out
    a.llm.gate.set()
    await until(lambda: a.runner.lost == ["c"], "a never found the lease gone")
    assert a.sink.of("c") == shown
    assert len(a.llm.requests) == 1 and len(b.llm.requests) == 1


async def test_an_input_arriving_while_the_keeper_releases_keeps_the_lease_it_takes(
    process: Start,
) -> None:
    """The keeper is giving an idle conversation up (its release is on the
    way to the database) when an input for it arrives. The input's claim
    waits for that release and then takes the lease: had it taken the lease
    first, the release would have deleted it, leaving the conversation
    unowned in the database while this process works on it."""
    again = assistant(TextContent("Again."), timestamp=6)
    a = process("a", [stream_of(FINAL_REPLY), stream_of(again)], pausing=True)
    assert isinstance(a.llm, PausingLLM)
    a.llm.gate.set()
    await a.runner.recover()
    await a.runner.submit("c", "req:0", start("go"))
    await a.sink.wait_for("c", Final)
    a.llm.gate.clear()  # the next answer waits: the conversation stays busy

    releasing, go = threading.Event(), threading.Event()
    release = a.runner.leases.release

    def slow_release(conversation_ids: Sequence[str]) -> None:
        releasing.set()
        assert go.wait(5)
        release(conversation_ids)

    a.runner.leases.release = slow_release  # type: ignore[method-assign]
    assert await asyncio.to_thread(releasing.wait, 5 * TTL_S)
    submitted = asyncio.ensure_future(a.runner.submit("c", "req:1", start("again", timestamp=5)))
    await asyncio.sleep(TTL_S / 4)  # the input's claim, while the release is on its way
    go.set()
    assert (await submitted).committed
    await asyncio.sleep(TTL_S)  # a few keeper beats while the model call waits
    assert await a.runner.owner_of("c") == "a"
    assert a.runner.lost == [] and a.runner.holds("c")
    a.llm.gate.set()
    await a.sink.wait_for("c", Final, count=2)


async def test_a_call_whose_end_was_not_stored_is_made_again_once_the_lease_is_taken_anew(
    process: Start,
) -> None:
    """The model call ended, but the commit of its end failed (the database
    blinked): the conversation still waits for that call, which is over.
    A lease taken anew resumes it, as a restart would: the call is made
    again, not taken for one still in flight here."""
    a = process("a", [[StartEvent(), error_event("denied")], stream_of(FINAL_REPLY)])
    commit = a.store.commit_new_input
    refused: list[str] = []

    def blinking(*args: Any, **kwargs: Any) -> Any:
        if not refused and args[0].endswith(":end"):
            refused.append(args[0])
            raise StoreError("the database went away")
        return commit(*args, **kwargs)

    a.store.commit_new_input = blinking  # type: ignore[method-assign]
    await a.runner.submit("c", "req:0", start("go"))
    await until(lambda: bool(refused), "the call's end was never committed")
    probe = leases_on(a.store, "probe", TTL_S)
    await until(lambda: probe.unowned(["c"]) == ["c"], "the lease never ran out")
    await a.runner.state_of("c")  # claims the lease anew: reloads, resumes
    [end] = await a.sink.wait_for("c", (Final, Failed))
    assert isinstance(end, Final) and len(a.llm.requests) == 2
    assert a.llm.requests[0] == a.llm.requests[1]  # the same call, the same bytes


async def test_an_input_queued_when_the_lease_is_found_gone_is_refused_not_dropped(
    process: Start,
) -> None:
    """A model event finds the lease gone (another process took the
    conversation over) while a client input waits behind it. The model's
    stream and events are dropped here; the input is not: it is refused
    (NotOwner), so whoever submitted it learns where to go instead of
    waiting for ever."""
    answer = stream_of(FINAL_REPLY, chunk=1)
    a = process("a", [answer], pausing=True)
    assert isinstance(a.llm, PausingLLM)
    a.llm.pause_at = 2
    b = process("b", [answer])
    await b.runner.recover()  # b's keeper adopts what nobody owns
    await a.runner.submit("c", "req:0", start("go"))
    await b.sink.wait_for("c", Final)  # adopted once a's lease ran out

    claiming, refuse = threading.Event(), threading.Event()
    acquire = a.runner.leases.acquire

    def slow_acquire(conversation_id: str) -> bool:
        if not claiming.is_set():
            claiming.set()
            assert refuse.wait(5)
            # b's own keeper may be late on a loaded machine (the lease lives
            # 0.6 s): b takes the lease for long, so a's claim is surely refused
            assert leases_on(b.store, "b", 60.0).acquire(conversation_id)
        return acquire(conversation_id)

    a.runner.leases.acquire = slow_acquire  # type: ignore[method-assign]
    a.llm.gate.set()  # the next model event claims the lease
    assert await asyncio.to_thread(claiming.wait, 5)
    queued = asyncio.ensure_future(a.runner.submit("c", "req:1", Cancel("stop")))
    await asyncio.sleep(0.05)
    refuse.set()
    with pytest.raises(NotOwner):
        await asyncio.wait_for(queued, 5)
    assert a.runner.lost == ["c"]


async def test_a_streaming_conversation_renews_its_own_lease_while_the_keeper_is_late(
    process: Start,
) -> None:
    """No keeper runs (as when an overloaded loop starves it), and the model
    streams for several leases: each event once half the lease is used
    claims it again, which extends the lease this process holds."""
    answer = stream_of(FINAL_REPLY, chunk=1)
    a = process("a", [answer])
    assert isinstance(a.llm, ScriptedLLM)
    a.llm.delay = 3 * TTL_S / len(answer)
    await a.runner.submit("c", "req:0", start("go"))
    [end] = await a.sink.wait_for("c", (Final, Failed, Canceled))
    assert isinstance(end, Final)
    assert a.runner.lost == [] and a.runner.holds("c") and len(a.llm.requests) == 1
