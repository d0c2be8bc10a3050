"""More `Run` turns on one HTTP/2 connection than it may have streams open
at once, against the real server on a real socket (h2c), from a client that
never half-closes its request stream: each finished stream is closed by the
server (RST_STREAM NO_ERROR, RFC 9113 section 8.1), so its place among the
connection's streams comes back and the next turns are served."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cursor_byok.client.client import End, kv_reply, run_request
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.llm.types import TextContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http import http_server
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.http_server import MAX_CONCURRENT_STREAMS
from cursor_byok.transport.http.late_data import DROPPED
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

TURNS = MAX_CONCURRENT_STREAMS + 20


async def a_turn(stream: RunStream, n: int) -> End:
    """One turn to its end, the KV requests answered as Cursor answers them;
    the request stream is left open, as a client that never ends it would."""
    await stream.send(run_request(f"turn {n}", conversation_id=f"conv-{n}"))
    while not isinstance(item := await stream.next(), End):
        if isinstance(item, pb.AgentServerMessage) and item.HasField("kv_server_message"):
            await stream.send(kv_reply(item.kv_server_message))
    return item


async def room_for_a_stream(client: H2Client) -> None:
    """Once the server's reset of a finished stream has come, the client no
    longer counts it among its open ones (on a busy machine, a moment after
    the turn's last message)."""
    for _ in range(500):
        if client.h2.open_outbound_streams < MAX_CONCURRENT_STREAMS:
            return
        await asyncio.sleep(0.01)


async def test_turns_past_the_stream_limit_on_one_connection(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    scripts = [stream_of(assistant(TextContent(f"answer {n}")), chunk=4) for n in range(TURNS + 1)]
    service = build_service(
        store, ScriptedLLM(scripts), retry=RetryPolicy(1, 0.001, 0.01), heartbeat_s=0.5
    )
    texts: list[str] = []
    async with serving(service) as url:
        client = await H2Client.connect(url)
        try:
            for n in range(TURNS):
                await room_for_a_stream(client)
                stream = await client.open("proto")
                end = await a_turn(stream, n)
                assert end.error is None, (n, end.error)
                texts.append(stream.text())
            # DATA the client still sends on a stream the server has reset
            # is dropped and counted; the connection goes on serving.
            dropped = DROPPED.frames
            assert client.h2.streams.get(1) is None or client.h2.streams[1].closed
            client.writer.write(b"\x00\x00\x05\x00\x00\x00\x00\x00\x01" + b"\0" * 5)
            await room_for_a_stream(client)
            last = await client.open("proto")
            assert (await a_turn(last, TURNS)).error is None
            assert DROPPED.frames == dropped + 1
            assert not client.closed
        finally:
            await client.close()
    store.close()
    assert texts == [f"answer {n}" for n in range(TURNS)]


async def test_past_the_connections_last_request_the_client_opens_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's GOAWAY after a connection's last request: that turn
    completes on it, the client marks the connection closed, a stream it
    opens there all the same ends as unavailable (never taken), and the
    next turn is served on a new connection."""
    monkeypatch.setattr(http_server, "MAX_REQUESTS_PER_CONNECTION", 2)
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    scripts = [stream_of(assistant(TextContent(f"answer {n}")), chunk=4) for n in range(3)]
    service = build_service(
        store, ScriptedLLM(scripts), retry=RetryPolicy(1, 0.001, 0.01), heartbeat_s=0.5
    )
    async with serving(service) as url:
        first = await H2Client.connect(url)
        second: H2Client | None = None
        try:
            for n in range(2):
                stream = await first.open("proto")
                assert (await a_turn(stream, n)).error is None
                assert stream.text() == f"answer {n}"
            assert first.closed
            refused = await first.open("proto")
            end = await asyncio.wait_for(refused.next(), 5)
            assert isinstance(end, End) and end.error is not None
            assert end.error["code"] == "unavailable", end.error
            second = await H2Client.connect(url)
            stream = await second.open("proto")
            assert (await a_turn(stream, 2)).error is None
            assert stream.text() == "answer 2"
        finally:
            await first.close()
            if second is not None:
                await second.close()
    store.close()
