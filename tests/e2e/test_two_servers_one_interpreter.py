"""Two servers on one PostgreSQL database, standing for two processes behind
a load balancer but both running in this interpreter (each a real service on
its own socket, with its own store pool and model, so that what each did can
be looked at): a client reads its RunSSE stream from one and sends each
append to either, at random. The tool turn completes in every codec, and
history is the same as when one server does everything.
test_two_server_processes.py runs the second server as a process of its own."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import pytest

from cursor_byok.client.client import (
    CODECS,
    CursorClient,
    End,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.llm.types import Message, TextContent, ToolResultMessage, UserMessage
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.nodes import node
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM

READ_TURN = assistant(TextContent("Let me look."), tool_call("call_1", "a.txt"))
ANSWER = assistant(TextContent("The file says: hello world"), timestamp=5)


def tool_llm() -> ScriptedLLM:
    return ScriptedLLM([stream_of(READ_TURN, chunk=3), stream_of(ANSWER, chunk=5)])


async def tool_turn(reader: str, appenders: list[str], codec: str, seed: int) -> list[str]:
    """One read-a-file turn; each append goes to a random one of `appenders`
    (the first to the last of them, so at least one crosses). The kinds seen."""
    pick = random.Random(seed)
    clients = {url: CursorClient(url, codec) for url in {reader, *appenders}}
    sent = 0

    async def append(message: pb.AgentClientMessage) -> None:
        nonlocal sent
        url = appenders[-1] if sent == 0 else pick.choice(appenders)
        await clients[url].append("req-1", sent, message)
        sent += 1

    try:
        stream = await clients[reader].open("req-1")
        await append(run_request("What is in a.txt?"))
        exec_item = await stream.until(lambda item: kind(item) == "exec")
        assert isinstance(exec_item, pb.AgentServerMessage)
        request = exec_item.exec_server_message
        success = pb.ReadResult(
            success=pb.ReadSuccess(path="a.txt", content="hello world\n", total_lines=1)
        )
        await append(exec_reply(request, read_result=success))
        await append(stream_close(request.id))
        end = await stream.until(lambda item: isinstance(item, End))
        assert isinstance(end, End) and end.error is None
    finally:
        for client in clients.values():
            await client.close()
    return [kind(item) for item in stream.received]


def without_times(messages: Sequence[Message]) -> list[Message]:
    """The messages but for the clock times of the user's message and the tool
    result, taken when they arrive and so different in every run."""
    timed = (UserMessage, ToolResultMessage)
    return [replace(m, timestamp=0) if isinstance(m, timed) else m for m in messages]


@pytest.mark.parametrize("codec", CODECS)
async def test_appends_sent_to_either_server_complete_the_turn(
    postgres_server: PostgresServer, codec: str
) -> None:
    alone_db, shared_db = postgres_server.new_database(), postgres_server.new_database()
    async with node(alone_db, tool_llm()) as alone:
        alone_kinds = await tool_turn(alone.url, [alone.url], codec, seed=1)
        alone_history = alone.store.load("conv-1")
    async with node(shared_db, tool_llm()) as a, node(shared_db, tool_llm()) as b:
        kinds = await tool_turn(a.url, [a.url, b.url], codec, seed=1)
        shared_history = a.store.load("conv-1")
        # Read on its stream opening and again on its announcement, a stored
        # append may reach a's inbox twice; the turn and history show it applied once.
        assert b.hub.relayed_out >= 1 and a.hub.relayed_in >= b.hub.relayed_out
        assert a.hub.relayed_out == 0
        assert len(a.llm.requests) == 2 and b.llm.requests == []
    assert "turn_ended" in kinds
    strip = ("heartbeat",)
    assert [k for k in kinds if k not in strip] == [k for k in alone_kinds if k not in strip]
    assert alone_history is not None and shared_history is not None
    assert without_times(shared_history.state.messages) == without_times(
        alone_history.state.messages
    )
    assert shared_history.state.status == alone_history.state.status


async def test_an_append_after_its_stream_ended_is_taken_where_it_ended(
    postgres_server: PostgresServer,
) -> None:
    """The request's stream ended on a: an append that reaches a afterwards
    (a tool's stream close that lost the race with the turn's end) is taken
    there, as on one process, not stored for a host that will never come."""
    shared_db = postgres_server.new_database()
    async with node(shared_db, tool_llm()) as a, node(shared_db, tool_llm()) as b:
        await tool_turn(a.url, [a.url], "proto", seed=1)
        client = CursorClient(a.url)
        try:
            await client.append("req-1", 3, stream_close(99))
        finally:
            await client.close()
        session = a.hub.sessions.get("req-1")
        history = a.store.load("conv-1")
    assert a.hub.relayed_out == 0 and b.hub.relayed_in == 0
    assert session is not None and session.inbox.next_seqno == 4  # taken in order, here
    assert history is not None and len(history.state.messages) == 4
