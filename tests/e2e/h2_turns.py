"""Turns for the raw HTTP/2 client's tests: the real server on a real socket
with a scripted model, the scripts, and a plain turn that must complete."""

from __future__ import annotations

import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from cursor_byok.client.client import exec_reply, run_request
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.raw_h2 import RawH2
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM


@dataclass
class Running:
    service: Service
    store: SQLiteStore
    client: RawH2


@asynccontextmanager
async def running(tmp_path: Path, scripts: list[list[ResponseEvent]]) -> AsyncIterator[Running]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store, ScriptedLLM(scripts), retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.2
    )
    async with serving(service) as url:
        where = urllib.parse.urlsplit(url)
        assert where.hostname and where.port
        client = await RawH2.connect(where.hostname, where.port)
        try:
            yield Running(service, store, client)
        finally:
            await client.close()
    store.close()


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


def reading() -> list[ResponseEvent]:
    return stream_of(assistant(TextContent("Let me look."), tool_call("call_1", "a.txt")))


def read_reply(request: pb.ExecServerMessage, content: str) -> pb.AgentClientMessage:
    success = pb.ReadSuccess(path=request.read_args.path, content=content, total_lines=1)
    return exec_reply(request, read_result=pb.ReadResult(success=success))


async def a_turn(client: RawH2, conversation: str, expected: str) -> None:
    """A plain turn on a new stream of the connection completes."""
    stream = client.open()
    await client.send(stream, run_request("hello", conversation_id=conversation))
    end = await client.until_end(stream)
    assert end == {}, end
    assert stream.text() == expected
    assert client.goaway is None and not client.eof.is_set()
