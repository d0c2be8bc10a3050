"""A lease lost under overload: the owner's keeper ran late, another process
took the conversation over, and the old owner finds out. Two in-process
servers on one PostgreSQL database; the owner's keeper is held back (as an
overloaded event loop would hold it) until the other one has adopted the
conversation. The old owner's stream must not stall: it ends with a
retryable `unavailable` error, and the client that resumes on the new owner
gets the rest of the turn, once."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import AsyncIterator

import pytest

from cursor_byok.client.client import (
    CursorClient,
    End,
    Stream,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.cluster.processes import leases_on
from cursor_byok.llm.types import TextContent
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb
from tests.e2e import nodes
from tests.e2e.nodes import Node
from tests.e2e.test_restart import resume_request
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import PausingLLM, ScriptedLLM

LEASE_S = 0.4
READ_TURN = assistant(TextContent("Let me look."), tool_call("call_1", "a.txt"))
ANSWER = assistant(TextContent("The file says: hello world, and that is all."), timestamp=5)


def hold_keeper_back(server: Node) -> None:
    """Stop renewing, as a keeper starved by an overloaded loop does."""
    keeper = server.runner._keeper
    assert keeper is not None
    keeper.cancel()
    server.runner._keeper = None


async def adopted(server: Node, conversation_id: str) -> None:
    began = time.monotonic()
    while conversation_id not in server.runner.adopted:
        assert time.monotonic() - began < 10 * LEASE_S, "nobody adopted the conversation"
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def node(url: PostgresURL, llm: ScriptedLLM) -> AsyncIterator[Node]:
    async with nodes.node(url, llm, lease_s=LEASE_S) as server:
        yield server


def owned_elsewhere_said_in_one_line(caplog: pytest.LogCaptureFixture, conversation: str) -> None:
    """Another process owning the conversation is an expected event: no
    traceback is logged, and one line says so, naming the conversation."""
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info or r.exc_text]
    assert tracebacks == []
    assert "Traceback" not in caplog.text
    lines = [r.getMessage() for r in caplog.records if "another process" in r.getMessage()]
    assert lines and all("\n" not in line and conversation in line for line in lines)


def retryable_unavailable(end: object) -> bool:
    """Whether the stream ended with `unavailable` whose details say retry."""
    assert isinstance(end, End) and end.error is not None
    attached = end.error["details"]
    assert isinstance(attached, list) and len(attached) == 1
    value = base64.b64decode(str(attached[0]["value"]) + "==")
    details = errors_pb.ErrorDetails.FromString(value)
    return end.error["code"] == "unavailable" and details.details.is_retryable


async def answer_read(client: CursorClient, request_id: str, seqno: int, stream: Stream) -> None:
    item = await stream.until(lambda i: kind(i) == "exec")
    assert isinstance(item, pb.AgentServerMessage)
    request = item.exec_server_message
    content = pb.ReadSuccess(path="a.txt", content="hello world\n", total_lines=1)
    await client.append(
        request_id, seqno, exec_reply(request, read_result=pb.ReadResult(success=content))
    )
    await client.append(request_id, seqno + 1, stream_close(request.id))


async def resume_on(target: Node) -> tuple[CursorClient, Stream]:
    client = CursorClient(target.url)
    stream = await client.open("r-2")
    await client.append("r-2", 0, resume_request())
    return client, stream


async def test_a_late_keeper_finds_the_lease_lost_and_ends_its_stream_retryably(
    postgres_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    url = postgres_server.new_database()
    a_llm, b_llm = ScriptedLLM([stream_of(READ_TURN)]), ScriptedLLM([stream_of(ANSWER)])
    async with node(url, a_llm) as a, node(url, b_llm) as b:
        on_a = CursorClient(a.url)
        stream = await on_a.open("r-1")
        await on_a.append("r-1", 0, run_request("What is in a.txt?", model="claude"))
        await stream.until(lambda i: kind(i) == "exec")  # the turn waits for the client
        hold_keeper_back(a)
        await adopted(b, "conv-1")
        await a.runner.recover()  # the keeper runs again, late: the lease is gone
        end = await stream.until(lambda i: isinstance(i, End), within=10 * LEASE_S)
        on_b, resumed = await resume_on(b)
        await answer_read(on_b, "r-2", 1, resumed)
        done = await resumed.until(lambda i: isinstance(i, End))
        await on_a.close()
        await on_b.close()
        state = await b.service.runner.state_of("conv-1")
    assert retryable_unavailable(end)
    assert a.runner.lost == ["conv-1"]
    assert isinstance(done, End) and done.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    assert state is not None and state.status.value == "final"
    kinds = [type(m).__name__ for m in state.messages]
    assert kinds == ["UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage"]
    assert len(a_llm.requests) == 1 and len(b_llm.requests) == 1
    owned_elsewhere_said_in_one_line(caplog, "conv-1")


async def test_a_tool_result_that_reaches_the_old_owner_is_logged_as_one_line(
    postgres_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The client answers the exec on the process that lost the lease: the
    result is not applied there (the client resumes where the turn now
    runs), and that is said in one line, not with a traceback."""
    caplog.set_level(logging.INFO)
    url = postgres_server.new_database()
    a_llm, b_llm = ScriptedLLM([stream_of(READ_TURN)]), ScriptedLLM([stream_of(ANSWER)])
    async with node(url, a_llm) as a, node(url, b_llm) as b:
        on_a = CursorClient(a.url)
        stream = await on_a.open("r-1")
        await on_a.append("r-1", 0, run_request("What is in a.txt?", model="claude"))
        hold_keeper_back(a)
        await adopted(b, "conv-1")
        await answer_read(on_a, "r-1", 1, stream)  # to the old owner
        end = await stream.until(lambda i: isinstance(i, End), within=10 * LEASE_S)
        await on_a.close()
    assert retryable_unavailable(end)
    owned_elsewhere_said_in_one_line(caplog, "conv-1")
    refused = [r.getMessage() for r in caplog.records if "not applied" in r.getMessage()]
    assert any("ToolResult" in line for line in refused)


async def test_a_model_event_after_the_lease_is_gone_stops_the_turn_here(
    postgres_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    url = postgres_server.new_database()
    answer = stream_of(ANSWER, chunk=2)
    a_llm = PausingLLM([answer], pause_at=len(answer) // 2)
    b_llm = ScriptedLLM([answer])
    async with node(url, a_llm) as a, node(url, b_llm) as b:
        on_a = CursorClient(a.url)
        stream = await on_a.open("r-1")
        await on_a.append("r-1", 0, run_request("What is in a.txt?", model="claude"))
        await stream.until(lambda i: kind(i) == "text_delta")
        hold_keeper_back(a)  # and the model stream pauses: nothing renews the lease
        await adopted(b, "conv-1")
        a_llm.gate.set()  # the next event finds the lease gone
        end = await stream.until(lambda i: isinstance(i, End), within=10 * LEASE_S)
        on_b, resumed = await resume_on(b)
        done = await resumed.until(lambda i: isinstance(i, End))
        await on_a.close()
        await on_b.close()
        state = await b.service.runner.state_of("conv-1")
    assert retryable_unavailable(end)
    assert a.runner.lost == ["conv-1"]
    assert "turn_ended" not in [kind(i) for i in stream.received]
    assert isinstance(done, End) and done.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    assert a_llm.requests == b_llm.requests  # the same call, the same bytes
    assert state is not None and state.status.value == "final"
    assert [type(m).__name__ for m in state.messages] == ["UserMessage", "AssistantMessage"]
    owned_elsewhere_said_in_one_line(caplog, "conv-1")
    refused = [r.getMessage() for r in caplog.records if "not applied" in r.getMessage()]
    assert refused and all("model event" in line for line in refused)


async def test_a_lease_lost_between_the_owner_check_and_the_turn_ends_the_stream_retryably(
    postgres_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The run request finds the conversation ours; before its turn starts,
    the keeper gives the idle lease up and another process takes it. The
    turn's own claim is refused: nothing is run or stored here, and the
    stream ends at once with a retryable error instead of waiting for ever."""
    caplog.set_level(logging.INFO)
    url = postgres_server.new_database()
    async with node(url, ScriptedLLM([stream_of(ANSWER)])) as a:
        elsewhere = leases_on(a.store, "elsewhere", 60.0)

        async def taken_elsewhere(owned: bool) -> None:
            assert owned
            await nodes.released(a, "conv-1")
            assert elsewhere.acquire("conv-1")

        nodes.after_the_owner_check(a, taken_elsewhere)
        client = CursorClient(a.url)
        try:
            stream = await client.open("r-1")
            await client.append("r-1", 0, run_request("What is in a.txt?", model="claude"))
            end = await stream.until(lambda i: isinstance(i, End), within=5)
        finally:
            await client.close()
        assert retryable_unavailable(end)
        assert isinstance(end, End) and end.error is not None
        assert "changed hands" in str(end.error["message"])
        assert a.model_calls == 0 and a.store.load("conv-1") is None
        assert a.hub.counters.failed_appends == 0
        assert a.hub.sink.serving("conv-1") is None  # the stream no longer serves it
        assert a.runner.lost == []  # never worked on here: nothing to give up
    owned_elsewhere_said_in_one_line(caplog, "conv-1")
    refused = [r.getMessage() for r in caplog.records if "not applied" in r.getMessage()]
    assert refused and all("Start" in line for line in refused)


async def test_a_resume_where_the_lease_is_taken_anew_resumes_what_the_last_owner_left(
    postgres_server: PostgresServer,
) -> None:
    """a answered turn 1 and remembers it; b ran turn 2 and stopped (its
    keeper with it) while the client ran a tool. The client resumes on a,
    which takes the expired lease anew: the turn it resumes is b's, read
    from the database, not the finished one a remembers. The tool is asked
    again and the turn completes on a."""
    url = postgres_server.new_database()
    first = assistant(TextContent("Hello."), timestamp=3)
    a_llm = ScriptedLLM([stream_of(first), stream_of(ANSWER)])
    async with node(url, a_llm) as a, node(url, ScriptedLLM([stream_of(READ_TURN)])) as b:
        on_a = CursorClient(a.url)
        stream = await on_a.open("r-1")
        await on_a.append("r-1", 0, run_request("Hi", model="claude"))
        await stream.until(lambda i: isinstance(i, End))
        await nodes.released(a, "conv-1")
        on_b = CursorClient(b.url)
        asked = await on_b.open("r-2")
        second_turn = run_request("What is in a.txt?", model="claude", message_id="m2")
        await on_b.append("r-2", 0, second_turn)
        await asked.until(lambda i: kind(i) == "exec")
        hold_keeper_back(a)  # a takes nothing over by itself
        hold_keeper_back(b)  # b stops: its lease runs out
        probe = leases_on(a.store, "probe", LEASE_S)
        began = time.monotonic()
        while probe.unowned(["conv-1"]) != ["conv-1"]:
            assert time.monotonic() - began < 10 * LEASE_S, "b's lease never ran out"
            await asyncio.sleep(0.02)
        resumed = await on_a.open("r-3")
        await on_a.append("r-3", 0, resume_request())
        await answer_read(on_a, "r-3", 1, resumed)
        done = await resumed.until(lambda i: isinstance(i, End))
        await on_a.close()
        await on_b.close()
        state = await a.service.runner.state_of("conv-1")
    assert isinstance(done, End) and done.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    assert state is not None and state.status.value == "final"
    assert state.messages[-1] == ANSWER and len(state.messages) == 6
    assert len(a_llm.requests) == 2
