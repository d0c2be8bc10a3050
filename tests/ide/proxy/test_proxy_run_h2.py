"""Cursor with HTTP/2 on, through a real mitmproxy: its `Run` stream (one
HTTP/2 stream each way at once: the client's messages up, the agent's down)
reaches cursor-byok full duplex, so a tool turn completes on it."""

from __future__ import annotations

import asyncio
import base64
import ssl
import urllib.parse
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cursor_byok.client.client import End, exec_reply, kind, kv_reply, run_request, stream_close
from cursor_byok.client.run_client import H2Client
from cursor_byok.ide.proxy.routes import Route
from cursor_byok.llm.types import TextContent
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM
from tests.ide.proxy.conftest import FakeCursor, RunningProxy

READ_TURN = assistant(TextContent("Let me look."), tool_call("call_1", "a.txt"))
ANSWER = assistant(TextContent("It says hello."))
AUTH = "cursor-byok:secret"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(READ_TURN, chunk=4), stream_of(ANSWER, chunk=4)])
    async with serving(build_service(store, llm, heartbeat_s=0.5)) as url:
        yield url
    store.close()


async def h2_through(proxy: RunningProxy, target: str) -> H2Client:
    """An HTTP/2 connection to `target` (https) through the proxy's CONNECT
    tunnel, TLS with ALPN h2 as Cursor opens it."""
    where, via = urllib.parse.urlsplit(target), urllib.parse.urlsplit(proxy.url)
    assert via.hostname and via.port and where.hostname and where.port
    reader, writer = await asyncio.open_connection(via.hostname, via.port)
    credentials = base64.b64encode(AUTH.encode()).decode()
    writer.write(
        f"CONNECT {where.netloc} HTTP/1.1\r\nHost: {where.netloc}\r\n"
        f"Proxy-Authorization: Basic {credentials}\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    context = proxy.client_tls()
    context.set_alpn_protocols(["h2"])
    await writer.start_tls(context, server_hostname=where.hostname)
    ssl_object: ssl.SSLObject = writer.get_extra_info("ssl_object")
    assert ssl_object.selected_alpn_protocol() == "h2"
    return H2Client.over(reader, writer, where.netloc)


async def test_a_tool_turn_on_run_over_http2_through_the_proxy(
    server: str,
    fake_cursor: FakeCursor,
    proxy_ca: Any,
    proxy_factory: Callable[..., RunningProxy],
) -> None:
    proxy = proxy_factory(server, proxy_ca, fake_cursor.ca_file, proxy_auth=AUTH)
    client = await h2_through(proxy, fake_cursor.url)
    try:
        stream = await client.open("proto")
        await stream.send(run_request("What is in a.txt?"))
        # The exec request comes down while the request stream is still open,
        # and its answer goes up the same stream: both directions at once.
        item = await stream.until(lambda i: kind(i) == "exec", within=20)
        assert isinstance(item, pb.AgentServerMessage)
        request = item.exec_server_message
        assert request.read_args.path == "a.txt"
        success = pb.ReadSuccess(path="a.txt", content="hello\n", total_lines=1)
        await stream.send(exec_reply(request, read_result=pb.ReadResult(success=success)))
        await stream.send(stream_close(request.id))
        while not isinstance(end := await stream.next(within=20), End):
            if isinstance(end, pb.AgentServerMessage) and end.HasField("kv_server_message"):
                await stream.send(kv_reply(end.kv_server_message))  # as Cursor answers
        stream.end_request()
    finally:
        await client.close()
    assert isinstance(end, End) and end.error is None, end
    assert stream.status == 200
    assert stream.text() == "Let me look.It says hello."
    assert fake_cursor.received == []  # nothing of the turn went to Cursor
    assert await proxy.settled(1) == [Route.LOCAL]
