"""The client table through the real server: a run knows its client from
the headers it sends (on RunSSE + BidiAppend and on `Run` over HTTP/2), a
client that sends none is taken for the Nov-2025 CLI, and the switches of
its request context reach the tools the model is offered."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.clients import CARDS_2025_11, CARDS_NEWER
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.independent_cli import CODECS, OfficialCli
from tests.e2e.raw_h2 import RawH2
from tests.e2e.test_official_cli import answer
from tests.fakes import ScriptedLLM

IDE = {"x-cursor-client-type": "ide", "x-cursor-client-version": "3.14.7"}


@asynccontextmanager
async def server(tmp_path: Path, turns: int) -> AsyncIterator[tuple[str, Service, ScriptedLLM]]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([answer("Hi.") for _ in range(turns)])
    service = build_service(store, llm, retry=RetryPolicy(1, 0.001, 0.01), heartbeat_s=0.5)
    try:
        async with serving(service) as url:
            yield url, service, llm
    finally:
        store.close()


def offered(llm: ScriptedLLM, index: int) -> set[str]:
    request: dict[str, Any] = json.loads(llm.requests[index][1])
    return {tool["name"] for tool in request["tools"]}


def client_of(service: Service, conversation_id: str) -> tuple[str, frozenset[str]]:
    """The row of the table the conversation's run was given, and its cards."""
    [session] = [s for s in service.hub.sessions if s.conversation_id == conversation_id]
    return session.capabilities.client, session.capabilities.cards


@pytest.mark.parametrize("codec", CODECS)
async def test_a_run_over_http1_knows_its_client_from_the_headers(
    tmp_path: Path, codec: str
) -> None:
    async with server(tmp_path, 3) as (url, service, llm):
        async with OfficialCli(url, codec, tmp_path) as cli:
            runs = [await cli.start("conv-cli", "m", cli.user_action("hi")).finish()]
            cli.client_headers = IDE
            off = cli.user_action("hi")
            off.user_message_action.request_context.read_lints_enabled = False
            runs.append(await cli.start("conv-ide", "m", off).finish())
            cli.client_headers = {"x-cursor-client-type": "", "x-cursor-client-version": ""}
            runs.append(await cli.start("conv-none", "m", cli.user_action("hi")).finish())
        clients = [client_of(service, c) for c in ("conv-cli", "conv-ide", "conv-none")]
    assert all(run.end is not None and run.end.ok for run in runs)
    assert clients == [
        ("cli 2025.11.25", CARDS_2025_11),
        ("ide 3.14.7", CARDS_NEWER),
        ("unknown", CARDS_2025_11),
    ]
    assert {"read_lints", "TodoWrite"} <= offered(llm, 0)
    assert "read_lints" not in offered(llm, 1), "the IDE's request context turned lints off"
    assert "TodoWrite" in offered(llm, 1)


async def test_a_run_over_http2_knows_its_client_from_its_stream_headers(tmp_path: Path) -> None:
    async with server(tmp_path, 2) as (url, service, llm):
        where = urllib.parse.urlsplit(url)
        assert where.hostname and where.port
        client = await RawH2.connect(where.hostname, where.port)
        try:
            for number, headers in enumerate(({}, IDE)):
                action = pb.UserMessageAction(
                    user_message=pb.UserMessage(text="hi", message_id=f"m{number}"),
                    request_context=pb.RequestContext(read_lints_enabled=number == 0),
                )
                run = pb.AgentRunRequest(
                    conversation_id=f"conv-{number}",
                    action=pb.ConversationAction(user_message_action=action),
                    requested_model=pb.RequestedModel(model_id="m"),
                )
                stream = client.open(extra=list(headers.items()))
                await client.send(stream, pb.AgentClientMessage(run_request=run))
                end = await client.until_end(stream)
                assert end == {}, end
        finally:
            await client.close()
        clients = [client_of(service, f"conv-{n}")[0] for n in (0, 1)]
    assert clients == ["unknown", "ide 3.14.7"]
    assert "read_lints" in offered(llm, 0) and "read_lints" not in offered(llm, 1)
