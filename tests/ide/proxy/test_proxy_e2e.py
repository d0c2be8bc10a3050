"""Through a real mitmproxy: Cursor's agent paths reach cursor-byok, streamed;
every other path reaches Cursor's service unchanged."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cursor_byok.client.client import (
    CursorClient,
    End,
    HTTPReply,
    StreamingReply,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.ide.proxy.routes import Route
from cursor_byok.llm.events import ResponseEvent, ResponseStream, TextDelta
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages, TextContent
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM, ScriptedStream
from tests.ide.proxy.conftest import FAKE_BODY, FakeCursor, RunningProxy

READ_TURN = assistant(TextContent("Let me look."), tool_call("call_1", "a.txt"))
ANSWER = assistant(TextContent("The file says: hello world, and that is all."), timestamp=5)


@dataclass
class GatedStream:
    """Holds the model's stream open after its first text delta until the
    test has seen that delta arrive through the proxy."""

    inner: ScriptedStream
    gate: asyncio.Event
    seen_text: bool = False

    async def recv(self) -> ResponseEvent:
        if self.seen_text and not self.gate.is_set():
            await asyncio.wait_for(self.gate.wait(), 10)
        event = await self.inner.recv()
        self.seen_text = self.seen_text or isinstance(event, TextDelta)
        return event

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class GatedLLM(ScriptedLLM):
    gate: asyncio.Event | None = None

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        stream = await super().call(model, ctx, request)
        assert isinstance(stream, ScriptedStream) and self.gate is not None
        # Only the answer, the second call, is held.
        return GatedStream(stream, self.gate) if len(self.streams) == 2 else stream


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, GatedLLM]]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = GatedLLM(
        [stream_of(READ_TURN, chunk=4), stream_of(ANSWER, chunk=4)], gate=asyncio.Event()
    )
    service = build_service(store, llm, heartbeat_s=0.5)
    async with serving(service) as url:
        yield url, llm
    store.close()


def answer_text(item: pb.AgentServerMessage | End) -> bool:
    return (
        kind(item) == "text_delta"
        and isinstance(item, pb.AgentServerMessage)
        and (item.interaction_update.text_delta.text.startswith("The "))
    )


def proxied(
    proxy: RunningProxy, base_url: str, http2: bool = False, **headers: str
) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        base_url=base_url,
        proxy=proxy.url,
        verify=proxy.client_tls(),
        timeout=30.0,
        headers=headers,
        trust_env=False,
        http1=not http2,
        http2=http2,
    )


class Http2Client(CursorClient):
    """The built-in client's calls over HTTP/2 (httpx2's), as Cursor's app
    speaks to its service: the proxy relays streams sharing one connection too."""

    def __init__(self, proxy: RunningProxy, base_url: str, token: str) -> None:
        super().__init__(base_url, token=token)
        self.h2 = proxied(proxy, base_url, http2=True, authorization=f"Bearer {token}")

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: Mapping[str, str] | None = None
    ) -> HTTPReply:
        got = await self.h2.request(method, path, content=body, headers=dict(headers or {}))
        return HTTPReply(got.status_code, dict(got.headers), got.content)

    @contextlib.asynccontextmanager
    async def post_streaming(
        self, path: str, body: bytes, headers: Mapping[str, str]
    ) -> AsyncIterator[StreamingReply]:
        async with self.h2.stream("POST", path, content=body, headers=dict(headers)) as got:
            yield StreamingReply(got.status_code, dict(got.headers), got.aiter_bytes())

    async def close(self) -> None:
        await self.h2.aclose()
        await super().close()


@pytest.mark.parametrize("http2", [False, True], ids=["client-http1.1", "client-http2"])
async def test_a_tool_turn_streams_through_the_proxy(
    server: tuple[str, GatedLLM],
    fake_cursor: FakeCursor,
    proxy_ca: Any,
    proxy_factory: Callable[..., RunningProxy],
    caplog: pytest.LogCaptureFixture,
    http2: bool,
) -> None:
    caplog.set_level(logging.INFO, logger="cursor_byok.ide.proxy")
    url, llm = server
    proxy = proxy_factory(url, proxy_ca, fake_cursor.ca_file)
    client = (
        Http2Client(proxy, fake_cursor.url, "cursor-session")
        if http2
        else CursorClient(
            fake_cursor.url, token="cursor-session", proxy=proxy.url, tls=proxy.client_tls()
        )
    )
    try:
        stream = await client.open("req-1")
        await client.append("req-1", 0, run_request("What is in a.txt?"))
        exec_item = await stream.until(lambda item: kind(item) == "exec")
        assert isinstance(exec_item, pb.AgentServerMessage)
        request = exec_item.exec_server_message
        assert request.read_args.path == "a.txt"
        result = pb.ReadResult(success=pb.ReadSuccess(path="a.txt", content="hello world\n"))
        await client.append("req-1", 1, exec_reply(request, read_result=result))
        await client.append("req-1", 2, stream_close(request.id))
        # The second model call is held open after its first text delta: the
        # delta must reach the client before the model's stream can end.
        first = await stream.until(answer_text)
        assert isinstance(first, pb.AgentServerMessage)
        assert llm.streams[1].position < len(llm.streams[1].events)
        assert llm.gate is not None
        llm.gate.set()
        end = await stream.until(lambda item: isinstance(item, End))
        assert isinstance(end, End) and end.error is None
    finally:
        await client.close()
    texts = "".join(
        i.interaction_update.text_delta.text
        for i in stream.received
        if isinstance(i, pb.AgentServerMessage) and kind(i) == "text_delta"
    )
    assert texts == "Let me look." + ANSWER.text
    assert fake_cursor.received == []  # nothing of the turn went to Cursor
    assert await proxy.settled(4) == [Route.LOCAL] * 4  # RunSSE and three appends
    lines = [r.getMessage() for r in caplog.records if r.name == "cursor_byok.ide.proxy"]
    assert sum("path=/aiserver.v1.BidiService/BidiAppend status=200" in x for x in lines) == 3
    [run_sse] = [x for x in lines if "/agent.v1.AgentService/RunSSE" in x]
    assert run_sse.startswith("proxy_flow route=cursor-byok method=POST host=localhost ")
    assert "status=200 duration_ms=" in run_sse
    async with proxied(proxy, fake_cursor.url, http2) as check:
        models = await check.post(
            "/agent.v1.AgentService/GetUsableModels",
            content=b"{}",
            headers={"content-type": "application/json"},
        )
    assert models.status_code == 200
    assert models.http_version == ("HTTP/2" if http2 else "HTTP/1.1")


async def test_other_paths_reach_cursor_unchanged(
    fake_cursor: FakeCursor,
    proxy_ca: Any,
    proxy_factory: Callable[..., RunningProxy],
) -> None:
    proxy = proxy_factory("http://127.0.0.1:9", proxy_ca, fake_cursor.ca_file)
    body = bytes(range(256)) * 40
    async with proxied(proxy, fake_cursor.url) as client:
        response = await client.post(
            "/aiserver.v1.DashboardService/GetTeams?x=1",
            content=body,
            headers={
                "authorization": "Bearer cursor-session",
                "x-cursor-checksum": "abc",
                "content-type": "application/proto",
                "X-Mixed-Case": "Kept",
            },
        )
    assert response.status_code == 201
    assert response.content == FAKE_BODY
    assert response.headers["x-cursor-fake"] == "yes"
    [seen] = fake_cursor.received
    assert (seen.method, seen.path) == ("POST", "/aiserver.v1.DashboardService/GetTeams")
    assert seen.body == body
    sent = [(k.decode().lower(), v.decode()) for k, v in response.request.headers.raw]
    assert [(k.lower(), v) for k, v in seen.headers] == sent
    assert await proxy.settled(1) == [Route.CURSOR]


@pytest.mark.parametrize(("proxy_token", "status"), [("server-secret", 200), (None, 401)])
async def test_the_cursor_session_token_never_reaches_the_server(
    tmp_path: Path,
    fake_cursor: FakeCursor,
    proxy_ca: Any,
    proxy_factory: Callable[..., RunningProxy],
    proxy_token: str | None,
    status: int,
) -> None:
    """The server gets its own access token from the proxy, or none: never
    the user's Cursor session token, which is only for Cursor."""
    store = SQLiteStore(tmp_path / "db.sqlite3")
    service = build_service(store, ScriptedLLM([]), access_token="server-secret")
    async with serving(service) as url:
        proxy = proxy_factory(url, proxy_ca, fake_cursor.ca_file, token=proxy_token)
        async with proxied(proxy, fake_cursor.url, authorization="Bearer server-secret") as c:
            # Even a Cursor token equal to the server's is dropped, not passed on.
            response = await c.post(
                "/agent.v1.AgentService/GetUsableModels",
                content=b"{}",
                headers={"content-type": "application/json"},
            )
    store.close()
    assert response.status_code == status
    assert fake_cursor.received == []


async def test_the_proxy_serves_only_clients_with_its_credentials(
    tmp_path: Path,
    fake_cursor: FakeCursor,
    proxy_ca: Any,
    proxy_factory: Callable[..., RunningProxy],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every local account can reach the proxy's port, and the proxy adds
    the server's token to what it routes there: without the password `ide
    setup` gives Cursor, a client gets neither a tunnel nor a plain request
    through."""
    caplog.set_level(logging.INFO, logger="cursor_byok.ide.proxy")
    store = SQLiteStore(tmp_path / "db.sqlite3")
    service = build_service(store, ScriptedLLM([]), access_token="server-secret")
    path = "/agent.v1.AgentService/GetUsableModels"
    async with serving(service) as url:
        proxy = proxy_factory(
            url, proxy_ca, fake_cursor.ca_file, token="server-secret", proxy_auth="cursor-byok:pw"
        )
        async with proxied(proxy, fake_cursor.url) as stranger:
            with pytest.raises(httpx2.ProxyError, match="407"):
                await stranger.post(
                    path, content=b"{}", headers={"content-type": "application/json"}
                )
        plain = fake_cursor.url.replace("https://", "http://")  # an absolute-form request
        async with httpx2.AsyncClient(proxy=proxy.url, trust_env=False) as stranger:
            refused = await stranger.post(f"{plain}{path}", content=b"{}")
        wrong = proxy.url.replace("http://", "http://cursor-byok:guess@")
        async with httpx2.AsyncClient(proxy=wrong, trust_env=False) as stranger:
            guessed = await stranger.post(f"{plain}{path}", content=b"{}")
        proxy.url = proxy.url.replace("http://", "http://cursor-byok:pw@")
        async with proxied(proxy, fake_cursor.url) as cursor:
            answered = await cursor.post(
                path, content=b"{}", headers={"content-type": "application/json"}
            )
    store.close()
    assert refused.status_code == guessed.status_code == 407
    assert answered.status_code == 200
    assert fake_cursor.received == []
    counted = [
        line
        for line in service.metrics.render({}).decode().splitlines()
        if line.startswith("cursor_byok_requests_total{")
    ]
    assert counted == [f'cursor_byok_requests_total{{path="{path}",status="200"}} 1.0']
    lines = [r.getMessage() for r in caplog.records if r.name == "cursor_byok.ide.proxy"]
    assert any("refused a client without its credentials (1 so far)" in x for x in lines)
