"""kill -9 of the process that owns a turn, with two real `serve` processes on
one PostgreSQL database: the other takes the turn over once the lease has
expired, calls the model again with the same bytes, and a client that resumes
there gets the rest of the turn, once. A tool the client ran is never asked
again once its result is committed; one still out when the owner died may
have run, so it is not asked again: its result says it was cut off."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

import psycopg
import pytest

from cursor_byok.client.client import (
    CursorClient,
    End,
    Item,
    Stream,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.provider_turns import ModelUnderTest
from tests.e2e.test_restart import resume_request, start_serve
from tests.llm.loopback import LoopbackServer, Reply, recording

LEASE_S = 1.0


@dataclass(frozen=True)
class Recorded:
    """A provider's recorded tool call and text answer. The tool call is
    offered as the client's MCP tool `tool` and renamed, in the replayed bytes
    only, to the name the server offers that tool by (mcp_<server>_<tool>);
    every other byte is as recorded. The text answer can be cut before its
    end (`end_event`) to leave a model call hanging."""

    model: ModelUnderTest
    tool: pb.McpToolDefinition
    tool_fixture: str
    recorded_name: bytes
    tool_call_id: str
    text_fixture: str
    end_event: bytes

    @property
    def tool_use(self) -> bytes:
        offered = f"mcp_{self.tool.provider_identifier}_{self.tool.tool_name}".encode()
        name = b'"name":"%s"'
        return recording(self.tool_fixture).replace(name % self.recorded_name, name % offered)

    @property
    def text(self) -> bytes:
        return recording(self.text_fixture)

    @property
    def cut_text(self) -> bytes:
        return self.text[: self.text.index(self.end_event)]


ANTHROPIC = Recorded(
    ModelUnderTest("anthropic", "claude-haiku-4-5"),
    pb.McpToolDefinition(
        name="pelican",
        tool_name="name_generator",
        provider_identifier="pelican",
        input_schema_json='{"type": "object", "properties": {}}',
    ),
    "anthropic/tool-use-single.sse",
    b"pelican_name_generator",
    "toolu_01CzN6riCPqw4pVSuTd9Dwn7",
    "anthropic/text-usage.sse",
    b"event: message_delta",
)
OPENAI = Recorded(
    ModelUnderTest("openai-responses", "gpt-4.1"),
    pb.McpToolDefinition(
        name="weather",
        tool_name="current",
        provider_identifier="weather",
        input_schema_json='{"type": "object", "properties": {"location": {"type": "string"}}}',
    ),
    "openai-responses/function-call.sse",
    b"get_current_weather",
    "call_lGe2JKQEBSP15opZ3KfxtEUC",
    "openai-responses/text-usage.sse",
    b"event: response.completed",
)


async def owner_of(database: PostgresURL, conversation_id: str) -> str | None:
    def read() -> str | None:
        with psycopg.connect(database.url) as conn:
            row = conn.execute(
                "SELECT owner FROM conversation_leases WHERE conversation_id = %s",
                (conversation_id,),
            ).fetchone()
        return None if row is None else str(row[0])

    return await asyncio.to_thread(read)


@dataclass
class Pair:
    """Two `serve` processes on one database, a client of each, one provider."""

    provider: LoopbackServer
    database: PostgresURL
    a: subprocess.Popen[str]
    b: subprocess.Popen[str]
    on_a: CursorClient
    on_b: CursorClient

    async def kill_a(self) -> float:
        """kill -9 the owner (a); when it died."""
        owner = await owner_of(self.database, "conv-1")
        assert owner is not None and f":{self.a.pid}:" in owner
        os.kill(self.a.pid, signal.SIGKILL)
        return time.monotonic()

    async def until_b_owns(self, killed: float) -> float:
        """Seconds from the kill until b holds the conversation's lease."""
        while True:
            owner = await owner_of(self.database, "conv-1")
            if owner is not None and f":{self.b.pid}:" in owner:
                return time.monotonic() - killed
            assert time.monotonic() - killed < 10 * LEASE_S, "no process took the turn over"
            await asyncio.sleep(0.02)

    def history(self) -> tuple[list[str], int, str]:
        """Message kinds, model calls recorded, status, as committed."""
        store = PostgresStore(self.database)
        try:
            loaded = store.load("conv-1")
            calls = store.llm_calls("conv-1")
        finally:
            store.close()
        assert loaded is not None
        kinds = [type(m).__name__ for m in loaded.state.messages]
        return kinds, len(calls), loaded.state.status.value


@contextlib.asynccontextmanager
async def two_servers(
    tmp_path: Path, postgres_server: PostgresServer, replies: list[Reply], model: ModelUnderTest
) -> AsyncIterator[Pair]:
    provider = LoopbackServer()
    await provider.start()
    provider.replies = replies
    config = tmp_path / "config.toml"
    config.write_text(model.toml(provider.base_url) + f"[server]\nlease_s = {LEASE_S}\n")
    database = postgres_server.new_database()
    port_a, port_b = free_port(), free_port()
    a, b = start_serve(config, database, port_a), start_serve(config, database, port_b)
    on_a = CursorClient(f"http://127.0.0.1:{port_a}")
    on_b = CursorClient(f"http://127.0.0.1:{port_b}")
    try:
        yield Pair(provider, database, a, b, on_a, on_b)
    finally:
        await on_a.close()
        await on_b.close()
        for process in (a, b):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            process.communicate(timeout=30)
        await provider.stop()


def run_with(text: str, tool: pb.McpToolDefinition | None = None) -> pb.AgentClientMessage:
    """A run request for model "m" (a resume when `text` is empty) as a client
    with the MCP tool sends it: every run, resumes too."""
    message = resume_request() if not text else run_request(text)
    message.run_request.requested_model.model_id = "m"
    if tool is not None:
        message.run_request.mcp_tools.mcp_tools.append(tool)
    return message


def tool_requests(recorded: Recorded, *streams: Stream) -> list[pb.ExecServerMessage]:
    """The exec requests for the recorded tool call, across the streams."""
    return [
        i.exec_server_message
        for stream in streams
        for i in stream.received
        if is_tool_request(i)
        and i.exec_server_message.mcp_args.tool_call_id.partition("|")[0] == recorded.tool_call_id
    ]


def is_tool_request(item: Item) -> TypeGuard[pb.AgentServerMessage]:
    return isinstance(item, pb.AgentServerMessage) and item.exec_server_message.HasField("mcp_args")


async def answer(client: CursorClient, request_id: str, seqno: int, item: Item) -> None:
    """Run the tool as the client does: its result, then the exec's close."""
    assert isinstance(item, pb.AgentServerMessage)
    request = item.exec_server_message
    text = pb.McpTextContent(text="Percival")
    result = pb.McpResult(success=pb.McpSuccess(content=[pb.McpToolResultContentItem(text=text)]))
    await client.append(request_id, seqno, exec_reply(request, mcp_result=result))
    await client.append(request_id, seqno + 1, stream_close(request.id))


async def resume_on_b(pair: Pair, tool: pb.McpToolDefinition | None = None) -> Stream:
    resumed = await pair.on_b.open("r-2")
    await pair.on_b.append("r-2", 0, run_with("", tool))
    return resumed


async def test_kill_9_of_the_owner_mid_turn_the_other_finishes_it_once(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    recorded = ANTHROPIC
    replies = [Reply(recorded.cut_text, hang=True), Reply(recorded.text)]
    async with two_servers(tmp_path, postgres_server, replies, recorded.model) as pair:
        stream = await pair.on_a.open("r-1")
        await pair.on_b.append("r-1", 0, run_with("hello"))  # relayed to a
        await stream.until(lambda i: kind(i) == "text_delta", within=20)
        killed = await pair.kill_a()
        while len(pair.provider.received) < 2:  # b calls the model again once it took over
            assert time.monotonic() - killed < 10 * LEASE_S, "no process took the turn over"
            await asyncio.sleep(0.02)
        takeover_s = time.monotonic() - killed
        assert await pair.until_b_owns(killed) < 10 * LEASE_S

        resumed = await resume_on_b(pair)
        end = await resumed.until(lambda i: isinstance(i, End), within=30)
    assert LEASE_S * 0.5 < takeover_s <= 2 * LEASE_S
    assert isinstance(end, End) and end.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    received = pair.provider.received
    assert len(received) == 2
    assert received[0].body == received[1].body  # the same call, same bytes
    assert pair.history() == (["UserMessage", "AssistantMessage"], 1, "final")


@pytest.mark.parametrize("recorded", [ANTHROPIC, OPENAI], ids=["anthropic", "openai"])
async def test_kill_9_after_a_tool_result_was_committed_the_tool_is_not_asked_again(
    tmp_path: Path, postgres_server: PostgresServer, recorded: Recorded
) -> None:
    replies = [Reply(recorded.tool_use), Reply(recorded.cut_text, hang=True), Reply(recorded.text)]
    async with two_servers(tmp_path, postgres_server, replies, recorded.model) as pair:
        stream = await pair.on_a.open("r-1")
        await pair.on_b.append("r-1", 0, run_with("use the tool", recorded.tool))
        await answer(pair.on_a, "r-1", 1, await stream.until(is_tool_request, within=20))
        # The result is committed on a with the next model call, which hangs.
        await stream.until(lambda i: kind(i) == "text_delta", within=20)
        killed = await pair.kill_a()
        while len(pair.provider.received) < 3:
            assert time.monotonic() - killed < 10 * LEASE_S, "no process took the turn over"
            await asyncio.sleep(0.02)
        takeover_s = time.monotonic() - killed

        resumed = await resume_on_b(pair, recorded.tool)
        end = await resumed.until(lambda i: isinstance(i, End), within=30)
    assert LEASE_S * 0.5 < takeover_s <= 2 * LEASE_S
    assert isinstance(end, End) and end.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    assert len(tool_requests(recorded, stream, resumed)) == 1  # asked once in all
    received = pair.provider.received
    assert len(received) == 3
    assert received[1].body == received[2].body  # the second call again, same bytes
    assert b"Percival" in received[1].body
    kinds, calls, status = pair.history()
    assert kinds == ["UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage"]
    assert (calls, status) == (2, "final")


async def test_kill_9_while_a_tool_is_out_it_is_not_run_again_on_the_resumed_stream(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    """The MCP tool was asked of the client when its owner died: it may have
    run (an MCP tool may change anything), so it is not asked again; its
    result says it was cut off, and the model decides what to do."""
    recorded = ANTHROPIC
    replies = [Reply(recorded.tool_use), Reply(recorded.text)]
    async with two_servers(tmp_path, postgres_server, replies, recorded.model) as pair:
        stream = await pair.on_a.open("r-1")
        await pair.on_b.append("r-1", 0, run_with("use the tool", recorded.tool))
        await stream.until(is_tool_request, within=20)
        killed = await pair.kill_a()  # the client has not answered: no result anywhere
        takeover_s = await pair.until_b_owns(killed)

        resumed = await resume_on_b(pair, recorded.tool)
        end = await resumed.until(lambda i: isinstance(i, End), within=30)
    assert takeover_s <= 2 * LEASE_S
    assert isinstance(end, End) and end.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    [first] = tool_requests(recorded, stream, resumed)  # asked once, on A's stream
    assert first.mcp_args.name
    received = pair.provider.received
    assert len(received) == 2  # the tool call itself was not asked of the model again
    assert received[1].body.count(b"was not run again") == 1
    kinds, calls, status = pair.history()
    assert kinds == ["UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage"]
    assert (calls, status) == (2, "final")
