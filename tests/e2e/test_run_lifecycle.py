"""Run streams as RunSSE streams behave: heartbeats while the model is
silent, ErrorDetails when the model fails, gzip-compressed request messages,
a retryable end on shutdown, and a turn canceled when no stream comes back
within the grace period."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from cursor_byok.client.client import End, exec_reply, kind, run_request
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent
from cursor_byok.loop.state import Status
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.base import CommitRequest, StagedBatch
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.connect.framing import FLAG_COMPRESSED, encode_envelope
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from cursor_byok.transport.sessions.hub import SessionHub
from tests.e2e.test_run_http2 import answer, is_end, read_reply, running
from tests.factories import assistant, error_event, stream_of, tool_call
from tests.fakes import ScriptedLLM


async def test_heartbeats_flow_on_run_while_the_model_is_silent(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("Hi")], ("h2c", "proto"), delay=0.15) as run:
        stream = await run.open()
        await stream.send(run_request("hello"))
        end = await stream.until(is_end, within=20)
    assert isinstance(end, End) and end.error is None
    assert sum(1 for item in stream.received if kind(item) == "heartbeat") >= 2


async def test_a_model_failure_ends_run_with_error_details(tmp_path: Path) -> None:
    failing: list[ResponseEvent] = [error_event("upstream exploded")]
    async with running(tmp_path, [failing, failing, failing], ("h2c", "json")) as run:
        stream = await run.open()
        await stream.send(run_request("hello"))
        end = await stream.until(is_end, within=20)
    assert isinstance(end, End) and end.error is not None
    details = end.error["details"]
    assert isinstance(details, list) and details[0]["type"] == "aiserver.v1.ErrorDetails"
    parsed = error_details_pb2.ErrorDetails.FromString(base64.b64decode(details[0]["value"] + "=="))
    assert "upstream exploded" in parsed.details.detail


async def test_a_gzip_compressed_request_message_is_read(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("Hi")], ("h2c", "proto")) as run:
        stream = await run.open()
        envelope = encode_envelope(run_request("hello").SerializeToString(), compress=True)
        assert envelope[0] == FLAG_COMPRESSED
        await run.client.send_data(stream.stream_id, envelope)
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "Hi"


async def test_shutdown_ends_an_open_run_with_a_retryable_error(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("word " * 400)], ("h2c", "proto"), delay=0.02) as run:
        stream = await run.open()
        await stream.send(run_request("go"))
        await stream.until(lambda item: kind(item) == "text_delta")
        run.service.server.begin_shutdown()
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "unavailable"


async def test_a_run_reset_and_never_resumed_is_canceled_after_the_grace(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(assistant(TextContent("Let me look."), tool_call("c1")))])
    service = build_service(store, llm, retry=RetryPolicy(2, 0.001, 0.01), grace_s=0.3)
    async with serving(service) as url:
        client = await H2Client.connect(url)
        try:
            stream = await client.open("proto")
            await stream.send(run_request("read"))
            await stream.until(lambda item: kind(item) == "exec")
            stream.reset()
            status = None
            for _ in range(300):
                state = await service.runner.state_of("conv-1")
                status = state.status if state is not None else None
                if status is Status.CANCELED:
                    break
                await asyncio.sleep(0.01)
        finally:
            await client.close()
    store.close()
    assert status is Status.CANCELED


async def test_a_tool_result_larger_than_a_unary_body_rides_one_run_message(
    tmp_path: Path,
) -> None:
    reading = stream_of(assistant(tool_call("call_1", "big.txt")))
    async with running(tmp_path, [reading, answer("read it")], ("h2c", "proto")) as run:
        stream = await run.open()
        await stream.send(run_request("read big.txt"))
        item = await stream.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        content = "x" * (5 * 1024 * 1024)  # over the 4 MiB unary body limit
        await stream.send(read_reply(item.exec_server_message, content))
        end = await stream.until(is_end, within=30)
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "read it"
    assert b"x" * 10_000 in run.llm.requests[1][1]  # the tool's result, as the tool caps it


class FullDisk:
    """The real store, whose commits that plan a model call fail as a full
    disk makes them fail."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        if any(not request.flush for request in requests):
            raise sqlite3.OperationalError("database or disk is full")
        return self.store.stage_batch_now(requests)


@contextlib.asynccontextmanager
async def full_disk_stream(tmp_path: Path) -> AsyncIterator[tuple[RunStream, SessionHub]]:
    """A `Run` stream on the real server over h2c, whose store cannot
    commit a turn's start (a full disk)."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(assistant(TextContent("never sent")))])
    service = build_service(FullDisk(store), llm, retry=RetryPolicy(2, 0.001, 0.01))  # type: ignore[arg-type]
    try:
        async with serving(service) as url:
            client = await H2Client.connect(url)
            try:
                yield await client.open("proto"), service.hub
            finally:
                await client.close()
        assert store.load(run_request("hello").run_request.conversation_id) is None
    finally:
        store.close()


def ended_as_failed_start(end: object) -> None:
    assert isinstance(end, End) and end.error is not None  # not a stream left hanging
    assert end.error["code"] == "internal"
    message = str(end.error["message"])
    assert "could not start" in message and "disk is full" in message


async def test_a_run_that_cannot_start_ends_its_stream_with_why(tmp_path: Path) -> None:
    async with full_disk_stream(tmp_path) as (stream, hub):
        await stream.send(run_request("hello"))
        end = await stream.until(is_end, within=10)
    ended_as_failed_start(end)
    assert hub.counters.failed_appends == 1


async def test_a_run_that_cannot_start_after_its_context_came_ends_its_stream_with_why(
    tmp_path: Path,
) -> None:
    """The run waited for the client's request context, as a print-mode
    client's does; once the context came, the turn could not start."""
    async with full_disk_stream(tmp_path) as (stream, _):
        opening = run_request("hello")
        opening.run_request.action.user_message_action.ClearField("request_context")
        await stream.send(opening)
        asked = await stream.until(lambda item: kind(item) == "exec", within=10)
        assert isinstance(asked, pb.AgentServerMessage)
        request = asked.exec_server_message
        assert request.HasField("request_context_args")
        context = pb.RequestContextSuccess(request_context=pb.RequestContext())
        result = pb.RequestContextResult(success=context)
        await stream.send(exec_reply(request, request_context_result=result))
        end = await stream.until(is_end, within=10)
    ended_as_failed_start(end)
