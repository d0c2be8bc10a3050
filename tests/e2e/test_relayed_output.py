"""A stream read on a process that does not own its conversation gets the
owner's output: two servers on one PostgreSQL database, as two processes
behind a load balancer. The owner hosts the request and stores its output;
the stream's process feeds its client from those rows, in the client's codec."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg
import pytest

from cursor_byok.client.client import (
    CODECS,
    CursorClient,
    End,
    Stream,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.client.run_client import H2Client
from cursor_byok.cluster.lease import Notice, NoticeKind
from cursor_byok.cluster.leased_runner import LeasedRunner
from cursor_byok.cluster.processes import leases_on, relay_on
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop.state import Status
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.connect.errors import Code
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.relay_rows import decode_item
from cursor_byok.transport.sessions.session import EndOfStream
from tests.e2e import nodes
from tests.e2e.nodes import Node
from tests.e2e.test_lease_lost import hold_keeper_back
from tests.e2e.test_restart import resume_request
from tests.e2e.test_two_servers_one_interpreter import ANSWER, READ_TURN, without_times
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

SECOND_ANSWER = assistant(TextContent("Still hello world."), timestamp=9)
READ = pb.ReadResult(success=pb.ReadSuccess(path="a.txt", content="hello world\n", total_lines=1))


@contextlib.asynccontextmanager
async def node(
    url: PostgresURL, scripts: list[list[ResponseEvent]], lease_s: float = 10.0, **options: Any
) -> AsyncIterator[Node]:
    async with nodes.node(url, ScriptedLLM(scripts), lease_s=lease_s, **options) as server:
        yield server


@contextlib.asynccontextmanager
async def two_nodes(
    url: PostgresURL, scripts: Callable[[], list[list[ResponseEvent]]], **options: Any
) -> AsyncIterator[tuple[Node, Node]]:
    """Two processes on one database, each with its own run of `scripts`;
    a long lease (60 s) unless told, so the first keeps what it owns."""
    options = {"lease_s": 60.0, **options}
    async with node(url, scripts(), **options) as a, node(url, scripts(), **options) as b:
        yield a, b


def tool_scripts() -> list[list[ResponseEvent]]:
    return [stream_of(READ_TURN, chunk=3), stream_of(ANSWER, chunk=5)]


async def drop(client: CursorClient, stream: Stream) -> None:
    """The client's stream goes away (its connection closes)."""
    if stream.task is not None:
        stream.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await stream.task
    await client.close()


async def dropped_and_resumed(
    first: str, second: str, appenders: list[str], codec: str, seed: int
) -> tuple[list[str], list[str]]:
    """A tool turn on `first`; its stream drops once the exec request came;
    the client resumes on `second` (a new request id) and answers the exec
    there, each append to a random one of `appenders` (the resume to the
    first of them). The kinds each stream saw."""
    opener = CursorClient(first, codec)
    stream = await opener.open("req-1")
    await opener.append("req-1", 0, run_request("What is in a.txt?"))
    await stream.until(lambda item: kind(item) == "exec")
    # The checkpoint after the exec request is the last thing before the tool's
    # result: dropping after it leaves nothing unread for the resume to carry.
    await stream.until(lambda item: kind(item) == "checkpoint")
    await drop(opener, stream)

    pick = random.Random(seed)
    clients = {url: CursorClient(url, codec) for url in {second, *appenders}}
    sent = 0

    async def append(message: pb.AgentClientMessage) -> None:
        nonlocal sent
        url = appenders[0] if sent == 0 else pick.choice(appenders)
        await clients[url].append("req-2", sent, message)
        sent += 1

    try:
        resumed = await clients[second].open("req-2")
        await append(resume_request())
        exec_item = await resumed.until(lambda item: kind(item) == "exec")
        assert isinstance(exec_item, pb.AgentServerMessage)
        request = exec_item.exec_server_message
        await append(exec_reply(request, read_result=READ))
        await append(stream_close(request.id))
        end = await resumed.until(lambda item: isinstance(item, End))
        assert isinstance(end, End) and end.error is None, end
    finally:
        for client in clients.values():
            await client.close()
    return [kind(i) for i in stream.received], [kind(i) for i in resumed.received]


async def eventually(holds: Callable[[], bool], seconds: float = 2.0) -> bool:
    """Whether `holds()` comes true within `seconds`: a process finishes its
    part (a pump stops once the end is stored, an append is applied after
    the one before) a moment after another process may have seen its effect."""
    for _ in range(int(seconds / 0.02)):
        if holds():
            return True
        await asyncio.sleep(0.02)
    return holds()


async def hosting_ends(host: Node) -> bool:
    return await eventually(lambda: not host.hub.hosted)


def without_heartbeats(kinds: list[str]) -> list[str]:
    return [k for k in kinds if k != "heartbeat"]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_turn_resumed_on_a_process_that_does_not_own_it_completes(
    postgres_server: PostgresServer, codec: str
) -> None:
    alone_db, shared_db = postgres_server.new_database(), postgres_server.new_database()
    seed = 3 + CODECS.index(codec)  # the exec's reply and close: to a, a / a, b / b, b
    async with node(alone_db, tool_scripts()) as alone:
        alone_first, alone_second = await dropped_and_resumed(
            alone.url, alone.url, [alone.url], codec, seed
        )
        alone_history = alone.store.load("conv-1")
        alone_calls = alone.model_calls
    async with node(shared_db, tool_scripts()) as a, node(shared_db, tool_scripts()) as b:
        first, second = await dropped_and_resumed(a.url, b.url, [a.url, b.url], codec, seed)
        shared_history = a.store.load("conv-1")
        assert "req-2" in b.hub.piped and b.hub.piped["req-2"].host == a.hub.name
        assert await hosting_ends(a)  # with the stream
        assert a.model_calls == alone_calls == 2 and b.model_calls == 0
        rows = relay_on(a.store).output_since("req-2")
        assert rows and rows[-1][1] == "end"
        assert b.hub.counters.failed_appends == a.hub.counters.failed_appends == 0
    assert first.count("exec") == second.count("exec") == 1  # asked once per stream
    assert second.count("turn_ended") == 1
    assert without_heartbeats(second) == without_heartbeats(alone_second)
    assert without_heartbeats(first) == without_heartbeats(alone_first)
    assert alone_history is not None and shared_history is not None
    shared = without_times(shared_history.state.messages)
    assert shared == without_times(alone_history.state.messages)
    assert sum(isinstance(m, ToolResultMessage) for m in shared) == 1  # applied once
    assert shared_history.state.status.value == "final"


async def one_turn(url: str, request_id: str, text: str, message_id: str) -> Stream:
    client = CursorClient(url)
    try:
        stream = await client.open(request_id)
        await client.append(request_id, 0, run_request(text, message_id=message_id))
        await stream.until(lambda item: isinstance(item, End))
    finally:
        await client.close()
    return stream


def text_scripts() -> list[list[ResponseEvent]]:
    return [stream_of(ANSWER, chunk=5), stream_of(SECOND_ANSWER, chunk=4)]


async def test_a_second_turn_opened_on_another_process_right_away_is_relayed(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    # A long lease: the first process still holds the idle conversation.
    async with two_nodes(url, text_scripts) as (a, b):
        first = await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        second = await one_turn(b.url, "req-2", "And now?", "m2")
        assert a.model_calls == 2 and b.model_calls == 0
        assert "req-2" in b.hub.piped and len(relay_on(a.store).output_since("req-2")) > 2
        history = a.store.load("conv-1")
    for stream in (first, second):
        end = stream.received[-1]
        assert isinstance(end, End) and end.error is None
        assert [kind(i) for i in stream.received].count("turn_ended") == 1
    assert first.text() == "The file says: hello world"
    assert second.text() == "Still hello world."
    assert history is not None and len(history.state.messages) == 4


@pytest.mark.parametrize("codec", ["proto", "json"])
async def test_a_run_stream_over_http2_is_relayed(
    postgres_server: PostgresServer, codec: str
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        client = await H2Client.connect(b.url)
        try:
            stream = await client.open(codec)
            await stream.send(run_request("And now?", message_id="m2"))
            end = await stream.until(lambda item: isinstance(item, End))
        finally:
            await client.close()
        assert len(b.hub.piped) == 1 and a.model_calls == 2 and b.model_calls == 0
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "Still hello world."


def wait_scripts() -> list[list[ResponseEvent]]:
    return [stream_of(ANSWER, chunk=5), stream_of(READ_TURN, chunk=3)]


async def piped_until_exec(a: Node, b: Node) -> tuple[CursorClient, Stream]:
    """Turn 1 on `a`; turn 2 opened on `b`, piped to `a`, read until its tool request."""
    await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
    client = CursorClient(b.url)
    stream = await client.open("req-2")
    await client.append("req-2", 0, run_request("Read it again", message_id="m2"))
    await stream.until(lambda item: kind(item) == "exec")
    assert "req-2" in b.hub.piped and a.hub.hosted["req-2"].reading
    return client, stream


async def status_within(store: PostgresStore, status: Status, seconds: float) -> Status | None:
    """The conversation's status once it is `status`, or the last seen after `seconds`."""
    seen = None
    for _ in range(int(seconds / 0.05)):
        loaded = store.load("conv-1")
        seen = None if loaded is None else loaded.state.status
        if seen is status:
            break
        await asyncio.sleep(0.05)
    return seen


async def test_a_piped_client_that_goes_away_cancels_the_turn_after_the_grace_period(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, wait_scripts, grace_s=0.5) as (a, b):
        client, stream = await piped_until_exec(a, b)
        await drop(client, stream)
        assert await status_within(a.store, Status.CANCELED, 5.0) is Status.CANCELED


async def test_a_pipe_that_falls_silent_counts_as_its_reader_gone(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, wait_scripts, grace_s=0.5) as (a, b):
        a.hub.reader_beat_s, a.hub.reader_silence_s, b.hub.reader_beat_s = 0.2, 0.8, 0.1
        client, stream = await piped_until_exec(a, b)
        # Heard of every 0.1 s, the far reader stays.
        assert await status_within(a.store, Status.CANCELED, 1.5) is Status.WAITING_CLIENT
        assert a.hub.hosted["req-2"].reading
        b.hub.piped["req-2"].stop()  # as if its process died: no word, no beat
        assert await status_within(a.store, Status.CANCELED, 5.0) is Status.CANCELED
        await drop(client, stream)


async def test_a_host_that_loses_the_lease_ends_the_piped_stream_retryable(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, wait_scripts) as (a, b):
        a.hub.reader_beat_s = 0.2
        client, stream = await piped_until_exec(a, b)
        runner = a.service.runner
        assert isinstance(runner, LeasedRunner)
        runner._forget("conv-1")  # what the keeper does when a renewal is refused
        try:
            end = await stream.until(lambda item: isinstance(item, End), within=5)
        finally:
            await drop(client, stream)
        assert await hosting_ends(a) and runner._pinned == {}
    assert is_retryable_unavailable(end), end


async def test_undecodable_relayed_output_is_skipped_and_counted(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        # Damaged rows ahead of the host's: the host writes after them.
        relay_on(b.store).put_output("req-2", [(0, "message", b"\xff\xff\xff"), (1, "what", b"")])
        second = await one_turn(b.url, "req-2", "And now?", "m2")
        assert b.hub.counters.undecodable_output == 2
        client = CursorClient(b.url)
        try:
            metrics = (await client.get("/metrics")).text
        finally:
            await client.close()
        assert "cursor_byok_relayed_output_skipped 2.0" in metrics
        assert relay_on(a.store).output_since("req-2")[2][0] == 2  # the host's first row
    end = second.received[-1]
    assert isinstance(end, End) and end.error is None
    assert second.text() == "Still hello world."


def is_retryable_unavailable(end: object) -> bool:
    if not isinstance(end, End) or end.error is None:
        return False
    return end.error.get("code") == "unavailable"


async def test_a_stream_piped_to_an_owner_that_is_gone_ends_retryable(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with node(url, text_scripts()) as b:
        # A process that took the conversation and died: its lease runs out.
        assert leases_on(b.store, "elsewhere", 2.0).acquire("conv-1")
        client = CursorClient(b.url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, run_request("hello"))
            end = await stream.until(lambda item: isinstance(item, End), within=15)
        finally:
            await client.close()
        assert b.hub.piped["req-1"].host == "elsewhere"
        assert b.model_calls == 0
    assert is_retryable_unavailable(end), end


async def test_a_host_that_does_not_own_the_conversation_refuses_retryable(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with node(url, text_scripts()) as a:
        assert leases_on(a.store, "elsewhere", 60.0).acquire("conv-1")
        relay = relay_on(a.store)
        for _ in range(20):  # asked until answered, as a pipe does (a notice may be missed)
            relay.announce(Notice(NoticeKind.HOST, "req-7", a.hub.name, "conv-1"))
            await asyncio.sleep(0.25)
            rows = relay.output_since("req-7")
            if rows:
                break
        assert not a.hub.hosted and a.model_calls == 0
        assert a.hub.sessions.get("req-7") is None  # refused before any session was made
    assert rows  # each ask is refused; the first end is the one a pipe reads
    item = decode_item(rows[0][1], rows[0][2])
    assert isinstance(item, EndOfStream) and item.error is not None
    assert item.error.code is Code.UNAVAILABLE and item.error.details
    assert "not owned here" in item.error.message


async def test_bad_appends_on_the_piped_path_lose_nothing_and_hold_nothing(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        client = CursorClient(b.url)
        try:
            stream = await client.open("req-2")
            # Before any run request: applied here as nothing; the host skips them.
            for seqno in range(5):
                await client.append("req-2", seqno, stream_close(seqno + 1))
            # Ahead of its turn: waits, and goes to the host with the run request.
            await client.append_raw("req-2", 6, b"\xff\xff\xff")
            await client.append("req-2", 5, run_request("And now?", message_id="m2"))
            end = await stream.until(lambda item: isinstance(item, End))
        finally:
            await client.close()
        stored = [seqno for seqno, _ in relay_on(a.store).since("req-2")]
        assert stored == [5, 6] and b.hub.piped["req-2"].first_seqno == 5
        # Reached the host, counted there.
        assert await eventually(lambda: a.hub.counters.undecodable_appends == 1)
        assert a.hub.counters.unknown_exec_results == 0  # the stream closes stayed on b
        assert b.hub.counters.failed_appends == a.hub.counters.failed_appends == 0
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "Still hello world."


async def test_a_pipe_that_cannot_store_its_run_request_ends_retryable(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        with psycopg.connect(str(url), autocommit=True) as conn:
            conn.execute("ALTER TABLE relayed_appends RENAME TO relayed_appends_away")
        stream = await one_turn(b.url, "req-2", "And now?", "m2")
        assert a.model_calls == 1 and b.model_calls == 0
    assert is_retryable_unavailable(stream.received[-1]), stream.received[-1]


def changed_hands(end: object) -> bool:
    return is_retryable_unavailable(end) and "changed hands" in str(end.error["message"])  # type: ignore[attr-defined]


@pytest.mark.parametrize("then", ["released", "taken here"])
async def test_a_request_with_no_owner_to_pipe_to_ends_retryable(
    postgres_server: PostgresServer, then: str
) -> None:
    """Another live process owns the conversation, so the request would be
    piped to it; but by the time its owner is read the lease is free, or
    this very process took it: there is nobody to pipe to (a pipe to itself
    would wait on itself). The stream ends retryably and the client's retry
    settles it."""
    url = postgres_server.new_database()
    async with node(url, text_scripts()) as b:
        elsewhere = leases_on(b.store, "elsewhere", 60.0)
        assert elsewhere.acquire("conv-1")
        check = b.runner.owns

        async def owner_changed(owned: bool) -> None:
            assert not owned
            elsewhere.release(["conv-1"])
            if then == "taken here":
                assert await check("conv-1")

        nodes.after_the_owner_check(b, owner_changed)
        client = CursorClient(b.url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, run_request("hello"))
            end = await stream.until(lambda item: isinstance(item, End), within=5)
        finally:
            await client.close()
        assert "req-1" not in b.hub.piped and b.model_calls == 0
        assert relay_on(b.store).since("req-1") == []  # nothing handed to anybody
    assert changed_hands(end), end


def without_context(message: pb.AgentClientMessage) -> pb.AgentClientMessage:
    """A run request whose turn waits for the client's request context."""
    message.run_request.action.user_message_action.ClearField("request_context")
    return message


async def test_a_turn_whose_lease_went_while_it_waited_for_context_is_not_piped(
    postgres_server: PostgresServer,
) -> None:
    """A turn begun here asks the client for its context first; meanwhile the
    idle lease is given up and another process takes it. Once the context
    comes the turn is not ours: but the run request was applied here long
    ago, so there is nothing to hand the owner. The stream ends retryably."""
    url = postgres_server.new_database()
    async with node(url, text_scripts(), lease_s=0.6) as a:
        client = CursorClient(a.url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, without_context(run_request("hello")))
            asked = await stream.until(lambda item: kind(item) == "exec")
            assert isinstance(asked, pb.AgentServerMessage)
            request = asked.exec_server_message
            assert request.HasField("request_context_args")
            await nodes.released(a, "conv-1")
            assert leases_on(a.store, "elsewhere", 60.0).acquire("conv-1")
            answer = pb.RequestContextResult(
                success=pb.RequestContextSuccess(request_context=pb.RequestContext())
            )
            await client.append("req-1", 1, exec_reply(request, request_context_result=answer))
            end = await stream.until(lambda item: isinstance(item, End), within=5)
        finally:
            await client.close()
        assert "req-1" not in a.hub.piped and a.model_calls == 0
        assert a.store.load("conv-1") is None
    assert changed_hands(end), end


async def test_a_hosted_run_request_whose_lease_went_elsewhere_is_not_piped_on(
    postgres_server: PostgresServer,
) -> None:
    """The owner agrees to host a piped request; before it applies the run
    request, its keeper gives the idle lease up and another process takes
    it. The host does not pipe the request on (it is itself a pipe's host):
    it ends the stream retryably, and the client's retry meets the owner."""
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")

        async def taken_elsewhere(owned: bool) -> None:
            assert owned  # the host's own check, as it takes the request
            await a.runner._renew()  # the keeper's beat: the idle lease goes
            assert leases_on(a.store, "elsewhere", 60.0).acquire("conv-1")

        nodes.after_the_owner_check(a, taken_elsewhere)
        second = await one_turn(b.url, "req-2", "And now?", "m2")
        assert "req-2" in b.hub.piped and "req-2" not in a.hub.piped
        assert await hosting_ends(a) and a.runner._pinned == {}
        assert a.model_calls == 1 and b.model_calls == 0
    end = second.received[-1]
    assert is_retryable_unavailable(end), end
    assert isinstance(end, End) and end.error is not None
    assert "no longer owns" in str(end.error["message"])


async def hosted_resume(a: Node, b: Node) -> tuple[CursorClient, Stream]:
    """A tool turn on `a` whose stream drops at the tool request; the client
    resumes it on `b`, which pipes it to `a`; read until the tool is asked."""
    opener = CursorClient(a.url)
    stream = await opener.open("req-1")
    await opener.append("req-1", 0, run_request("What is in a.txt?"))
    await stream.until(lambda item: kind(item) == "checkpoint")
    await drop(opener, stream)
    client = CursorClient(b.url)
    resumed = await client.open("req-2")
    await client.append("req-2", 0, resume_request())
    await resumed.until(lambda item: kind(item) == "exec")
    assert "req-2" in b.hub.piped and "req-2" in a.hub.hosted
    return client, resumed


async def test_a_host_whose_lease_runs_out_unnoticed_stops_hosting(
    postgres_server: PostgresServer,
) -> None:
    """The host's keeper is starved: nothing tells it the lease is gone
    (no renewal was refused), but a hosted request is checked against the
    lease the host holds in memory, and ends once that has run out: the
    host stores a retryable end for the pipe and stops hosting, rather than
    keep a turn it may no longer own."""
    url = postgres_server.new_database()
    async with node(url, tool_scripts(), lease_s=0.6) as a, node(url, tool_scripts()) as b:
        a.hub.reader_beat_s = 0.2
        client, resumed = await hosted_resume(a, b)
        try:
            hold_keeper_back(a)
            assert await hosting_ends(a) and a.runner._pinned == {}
            end = await resumed.until(lambda item: isinstance(item, End), within=5)
        finally:
            await drop(client, resumed)
        rows = relay_on(a.store).output_since("req-2")
        assert a.runner.lost == [] and a.model_calls == 1 and b.model_calls == 0
    last = decode_item(rows[-1][1], rows[-1][2])
    assert isinstance(last, EndOfStream) and last.error is not None
    assert "no longer owns" in last.error.message
    assert is_retryable_unavailable(end), end


async def test_a_piped_request_that_fails_here_ends_its_stream_with_the_error(
    postgres_server: PostgresServer,
) -> None:
    """The client reads its stream on b but its appends landed on a, which
    stored them: the run request, and an append ahead of its turn too big to
    be held. b takes them up as its stream opens: the run request pipes the
    request to the owner, a; the big append cannot be held here and fails
    the request. The failure ends b's stream with its reason, as it would
    on one process, instead of leaving the stream open with its pipe stopped."""
    url = postgres_server.new_database()
    limit = 64 * 1024
    async with (
        node(url, text_scripts(), lease_s=60.0) as a,
        node(url, text_scripts(), lease_s=60.0, request_memory_bytes=limit) as b,
    ):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        appender = CursorClient(a.url)
        try:
            await appender.append("req-2", 0, run_request("And now?", message_id="m2"))
            await appender.append_raw("req-2", 2, b"x" * (2 * limit))
        finally:
            await appender.close()
        assert [seqno for seqno, _ in relay_on(a.store).since("req-2")] == [0, 2]
        client = CursorClient(b.url)
        try:
            stream = await client.open("req-2")
            end = await stream.until(lambda item: isinstance(item, End), within=5)
        finally:
            await client.close()
        assert "req-2" not in b.hub.piped and b.model_calls == 0
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "resource_exhausted"
    assert "append 2 could not be buffered" in str(end.error["message"])


async def test_a_hosted_request_keeps_its_lease_while_its_turn_waits_for_the_client(
    postgres_server: PostgresServer,
) -> None:
    """The owner hosts a piped request whose turn first asks the client for
    its context. The conversation is idle meanwhile, but the pipe's process
    waits on the host: the keeper keeps the lease rather than give it up."""
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        client = CursorClient(b.url)
        try:
            stream = await client.open("req-2")
            await client.append(
                "req-2", 0, without_context(run_request("And now?", "conv-1", message_id="m2"))
            )
            asked = await stream.until(lambda item: kind(item) == "exec")
            assert isinstance(asked, pb.AgentServerMessage)
            assert "req-2" in a.hub.hosted and "req-2" in b.hub.piped
            await a.runner._renew()  # the keeper's beat, while the turn waits
            assert await a.runner.owner_of("conv-1") == a.hub.name
            answer = pb.RequestContextResult(
                success=pb.RequestContextSuccess(request_context=pb.RequestContext())
            )
            request = asked.exec_server_message
            await client.append("req-2", 1, exec_reply(request, request_context_result=answer))
            end = await stream.until(lambda item: isinstance(item, End))
        finally:
            await client.close()
        assert a.model_calls == 2 and b.model_calls == 0
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "Still hello world."


async def test_a_host_request_that_was_missed_is_asked_again(
    postgres_server: PostgresServer,
) -> None:
    """The ask to host travels on an announcement alone, and announcements
    can be missed: until the host's first output the pipe asks again."""
    url = postgres_server.new_database()
    async with two_nodes(url, text_scripts) as (a, b):
        await one_turn(a.url, "req-1", "What is in a.txt?", "m1")
        announce = b.hub.relay.announce
        missed: list[Notice] = []

        def missing_the_first_ask(notice: Notice) -> None:
            if notice.kind is NoticeKind.HOST and not missed:
                missed.append(notice)
                return
            announce(notice)

        b.hub.relay.announce = missing_the_first_ask  # type: ignore[method-assign]
        second = await one_turn(b.url, "req-2", "And now?", "m2")
        assert len(missed) == 1 and "req-2" in b.hub.piped
        assert a.model_calls == 2 and b.model_calls == 0
    end = second.received[-1]
    assert isinstance(end, End) and end.error is None
    assert second.text() == "Still hello world."
