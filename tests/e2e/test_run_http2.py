"""`AgentService/Run` over HTTP/2 against the real server on a real socket:
h2c with prior knowledge and TLS (ALPN h2, a certificate made here), in
Connect proto and Connect JSON: a tool turn, a plain turn and a second one,
a cancel, a resume after a reset, and a client that stops reading."""

from __future__ import annotations

import asyncio
import base64
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from cursor_byok.client.client import (
    End,
    Item,
    cancel,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import AssistantMessage, TextContent, UserMessage
from cursor_byok.loop.state import Status
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.http_server import TLSFiles
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from cursor_byok.transport.sessions.session import Session
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM

MODES = [("h2c", "proto"), ("h2c", "json"), ("tls", "proto"), ("tls", "json")]


@dataclass
class Running:
    service: Service
    store: SQLiteStore
    llm: ScriptedLLM
    client: H2Client
    codec: str

    async def open(self, paused: bool = False) -> RunStream:
        return await self.client.open(self.codec, paused=paused)


@asynccontextmanager
async def running(
    tmp_path: Path, scripts: list[list[ResponseEvent]], mode: tuple[str, str], delay: float = 0.0
) -> AsyncIterator[Running]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM(scripts, delay)
    service = build_service(
        store, llm, retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.2, grace_s=30
    )
    tls, context = None, None
    if mode[0] == "tls":
        authority = trustme.CA()
        issued = authority.issue_cert("127.0.0.1")
        cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
        issued.cert_chain_pems[0].write_to_path(cert)
        issued.private_key_pem.write_to_path(key)
        tls = TLSFiles(cert, key)
        context = ssl.create_default_context()
        authority.configure_trust(context)
    async with serving(service, tls=tls) as url:
        client = await H2Client.connect(url, context)
        try:
            yield Running(service, store, llm, client, mode[1])
        finally:
            await client.close()
    store.close()


def is_end(item: Item) -> bool:
    return isinstance(item, End)


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


def read_reply(request: pb.ExecServerMessage, content: str) -> pb.AgentClientMessage:
    success = pb.ReadSuccess(path=request.read_args.path, content=content, total_lines=1)
    return exec_reply(request, read_result=pb.ReadResult(success=success))


def resume(conversation_id: str = "conv-1") -> pb.AgentClientMessage:
    message = run_request("", conversation_id)
    message.run_request.action.resume_action.SetInParent()
    return message


@pytest.mark.parametrize("mode", MODES, ids=["-".join(m) for m in MODES])
async def test_a_tool_turn_over_run(tmp_path: Path, mode: tuple[str, str]) -> None:
    reading = stream_of(assistant(TextContent("Let me look."), tool_call("call_1", "a.txt")))
    async with running(tmp_path, [reading, answer("It says hello")], mode) as run:
        stream = await run.open()
        await stream.send(run_request("What is in a.txt?"))
        item = await stream.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        request = item.exec_server_message
        assert request.read_args.path == "a.txt"
        await stream.send(read_reply(request, "hello\n"))
        await stream.send(stream_close(request.id))
        end = await stream.until(is_end)
        history = run.store.load("conv-1")
    assert isinstance(end, End) and end.error is None
    assert stream.status == 200
    media = {"proto": "application/connect+proto", "json": "application/connect+json"}
    assert stream.content_type == media[mode[1]]
    # Blobs for the checkpoints (kv_server_message) come just before each one.
    kinds = [k for k in map(kind, stream.received) if k not in ("heartbeat", "kv_server_message")]
    started = kinds.index("tool_call_started")
    expected = ["tool_call_started", "checkpoint", "exec", "checkpoint"]
    assert kinds[started : started + 4] == expected
    assert kinds[-3:] == ["checkpoint", "turn_ended", "end"]
    assert stream.text() == "Let me look.It says hello"
    assert b"hello" in run.llm.requests[1][1]
    assert history is not None and len(history.state.messages) == 4


@pytest.mark.parametrize("mode", MODES, ids=["-".join(m) for m in MODES])
async def test_a_plain_turn_then_a_second_in_the_same_conversation(
    tmp_path: Path, mode: tuple[str, str]
) -> None:
    async with running(tmp_path, [answer("Hi there"), answer("Again")], mode) as run:
        first = await run.open()
        await first.send(run_request("hello", message_id="m1"))
        end = await first.until(is_end)
        assert isinstance(end, End) and end.error is None
        second = await run.open()
        await second.send(run_request("once more", message_id="m2"))
        end = await second.until(is_end)
        assert isinstance(end, End) and end.error is None
        history = run.store.load("conv-1")
    assert first.text() == "Hi there" and second.text() == "Again"
    assert history is not None
    users = [m.content for m in history.state.messages if isinstance(m, UserMessage)]
    assert users == ["hello", "once more"]
    assert len(history.state.messages) == 4


@pytest.mark.parametrize("mode", MODES, ids=["-".join(m) for m in MODES])
async def test_a_cancel_on_the_request_stream_ends_the_turn(
    tmp_path: Path, mode: tuple[str, str]
) -> None:
    async with running(tmp_path, [answer("word " * 300)], mode, delay=0.01) as run:
        stream = await run.open()
        await stream.send(run_request("go"))
        await stream.until(lambda i: kind(i) == "text_delta")
        await stream.send(cancel("user pressed stop"))
        end = await stream.until(is_end)
        await asyncio.sleep(0.05)
        history = run.store.load("conv-1")
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "canceled"
    assert run.llm.streams[0].closed
    assert history is not None
    _, kept = history.state.messages  # what streamed before the stop is kept, marked
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert kept.text and ("word " * 300).startswith(kept.text)


@pytest.mark.parametrize("mode", MODES, ids=["-".join(m) for m in MODES])
async def test_a_reset_is_not_a_cancel_and_a_resume_picks_the_turn_up(
    tmp_path: Path, mode: tuple[str, str]
) -> None:
    reading = stream_of(assistant(tool_call("call_1", "a.txt")))
    async with running(tmp_path, [reading, answer("done")], mode) as run:
        old = await run.open()
        await old.send(run_request("read a.txt"))
        await old.until(lambda i: kind(i) == "exec")
        old.reset()  # RST_STREAM: the client lost the stream, not the turn
        await asyncio.sleep(0.3)
        state = await run.service.runner.state_of("conv-1")
        assert state is not None and state.status is Status.WAITING_CLIENT
        new = await run.open()
        await new.send(resume())
        item = await new.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        request = item.exec_server_message
        assert request.read_args.path == "a.txt"  # asked again on the new stream
        await new.send(read_reply(request, "x"))
        end = await new.until(is_end)
        history = run.store.load("conv-1")
    assert isinstance(end, End) and end.error is None
    assert new.text() == "done"
    assert history is not None and len(history.state.messages) == 4


async def test_a_client_that_stops_reading_gets_a_retryable_error_and_memory_stays_bounded(
    tmp_path: Path,
) -> None:
    long = stream_of(assistant(TextContent("x" * 40_000)), chunk=4)
    async with running(tmp_path, [long], ("h2c", "proto")) as run:
        limit = 64
        run.service.server.run.outbox_limit = limit
        stream = await run.open(paused=True)
        await stream.send(run_request("talk a lot"))
        seen: set[Session] = set(run.service.hub.sessions)
        status = None
        for _ in range(1000):  # the stream fails; the turn goes on into history
            seen.update(run.service.hub.sessions)
            state = await run.service.runner.state_of("conv-1")
            status = state.status if state is not None else None
            if status is Status.FINAL:
                break
            await asyncio.sleep(0.01)
        run.client.unpause(stream)
        end = await stream.until(is_end, within=10)
        history = run.store.load("conv-1")
    peak = max(session.outbox.most for session in seen)  # the most any outbox held
    assert status is Status.FINAL
    assert 0 < peak <= limit + 1  # the bound, plus the end-of-stream marker
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "unavailable"
    details = end.error["details"]
    assert isinstance(details, list) and details[0]["type"] == "aiserver.v1.ErrorDetails"
    value = base64.b64decode(details[0]["value"] + "==")
    assert error_details_pb2.ErrorDetails.FromString(value).details.is_retryable
    assert history is not None and len(history.state.messages) == 2
