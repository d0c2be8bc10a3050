"""A whole agent turn over a real socket, in each codec: RunSSE + BidiAppend,
a tool run in a temporary folder, the model called again, turn_ended."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

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
from cursor_byok.llm.types import TextContent, ThinkingContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM

READ_TURN = assistant(
    ThinkingContent("The user wants a.txt.", "sig"),
    TextContent("Let me look."),
    tool_call("call_1", "a.txt"),
)
ANSWER = assistant(TextContent("The file says: hello world"), timestamp=5)


@dataclass
class Running:
    url: str
    service: Service
    store: SQLiteStore
    llm: ScriptedLLM


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[Running]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(READ_TURN, chunk=3), stream_of(ANSWER, chunk=5)])
    service = build_service(store, llm, retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.5)
    async with serving(service) as url:
        yield Running(url, service, store, llm)
    store.close()


@pytest.mark.parametrize("codec", CODECS)
async def test_a_tool_using_turn_end_to_end(running: Running, codec: str, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "a.txt").write_text("hello world\n")
    client = CursorClient(running.url, codec)
    try:
        stream = await client.open("req-1")
        await client.append("req-1", 0, run_request("What is in a.txt?"))
        exec_item = await stream.until(lambda item: kind(item) == "exec")
        assert isinstance(exec_item, pb.AgentServerMessage)
        request = exec_item.exec_server_message
        assert request.WhichOneof("message") == "read_args"
        assert request.read_args.path == "a.txt"
        assert request.read_args.tool_call_id == "call_1"
        # The client runs the tool in its workspace and answers.
        content = (workspace / request.read_args.path).read_text()
        success = pb.ReadResult(
            success=pb.ReadSuccess(path="a.txt", content=content, total_lines=1)
        )
        await client.append("req-1", 1, exec_reply(request, read_result=success))
        await client.append("req-1", 2, stream_close(request.id))
        end = await stream.until(lambda item: isinstance(item, End))
        assert isinstance(end, End) and end.error is None
    finally:
        await client.close()

    # Blobs for the checkpoints (kv_server_message) come just before each one.
    skipped = ("heartbeat", "kv_server_message")
    kinds = [kind(item) for item in stream.received if kind(item) not in skipped]
    # Order of a turn: thinking, text, the tool card, checkpoint, exec, checkpoint naming the
    # pending call, completion, answer, end.
    assert kinds.index("thinking_delta") < kinds.index("thinking_completed")
    assert kinds.index("thinking_completed") < kinds.index("text_delta")
    started = kinds.index("tool_call_started")
    expected = ["tool_call_started", "checkpoint", "exec", "checkpoint"]
    assert kinds[started : started + 4] == expected
    assert kinds.index("tool_call_completed") > started
    assert kinds[-3:] == ["checkpoint", "turn_ended", "end"]
    texts = stream.text()
    assert texts == "Let me look.The file says: hello world"
    completed = next(i for i in stream.received if kind(i) == "tool_call_completed")
    assert isinstance(completed, pb.AgentServerMessage)
    card = completed.interaction_update.tool_call_completed.tool_call.read_tool_call
    assert card.result.success.content == "hello world\n"
    turn = next(i for i in stream.received if kind(i) == "turn_ended")
    assert isinstance(turn, pb.AgentServerMessage)
    assert turn.interaction_update.turn_ended.input_tokens == 20  # two calls of 10
    # The model saw the tool's output on its second call, and history is whole.
    assert len(running.llm.requests) == 2
    assert b"hello world" in running.llm.requests[1][1]
    loaded = running.store.load("conv-1")
    assert loaded is not None
    assert [type(m).__name__ for m in loaded.state.messages] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "AssistantMessage",
    ]
    if codec == "proto":
        assert stream.content_type.startswith("text/event-stream")


async def test_appends_after_the_end_and_junk_appends_still_get_200(running: Running) -> None:
    client = CursorClient(running.url)
    try:
        junk = await client.append_raw("warm-up", 0, bytes.fromhex("0a03666f6f"))
        assert junk.status == 200
        heartbeat = await client.append_raw("warm-up", 1, bytes.fromhex("3a00"))
        assert heartbeat.status == 200
        not_even_a_request = await client.post(
            "/aiserver.v1.BidiService/BidiAppend",
            body=b"\xff\xfe garbage",
            headers={"content-type": "application/proto"},
        )
        assert not_even_a_request.status == 200
        assert running.service.hub.counters.undecodable_appends >= 2
    finally:
        await client.close()


async def test_unknown_paths_and_wrong_content_types_get_connect_errors(running: Running) -> None:
    client = CursorClient(running.url)
    try:
        missing = await client.post(
            "/aiserver.v1.Nope/Nothing", body=b"", headers={"content-type": "application/proto"}
        )
        assert missing.status == 501 and missing.json()["code"] == "unimplemented"
        wrong = await client.post(
            "/aiserver.v1.BidiService/BidiAppend",
            body=b"{}",
            headers={"content-type": "text/plain"},
        )
        assert wrong.status == 415
        huge = await client.post(  # appends have their own limit (test_memory_budget)
            "/aiserver.v1.NetworkService/IsConnected",
            body=b"x" * (4 * 1024 * 1024 + 1),
            headers={"content-type": "application/proto"},
        )
        assert huge.json()["code"] == "resource_exhausted"
        assert "exceeds the limit" in huge.json()["message"]
        health = await client.get("/healthz")
        assert health.status == 200
    finally:
        await client.close()


async def test_heartbeats_flow_while_the_model_is_silent(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(ANSWER)], delay=0.4)
    service = build_service(store, llm, heartbeat_s=0.1)
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            stream = await client.open("req-h")
            await client.append("req-h", 0, run_request("hi"))
            await stream.until(lambda item: isinstance(item, End), within=20)
        finally:
            await client.close()
    store.close()
    assert sum(1 for item in stream.received if kind(item) == "heartbeat") >= 2
    await asyncio.sleep(0)
