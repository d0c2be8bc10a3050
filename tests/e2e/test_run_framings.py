"""Run in the other framings (gRPC with trailers, gRPC-Web), a malformed
request stream, and `server.http2 = false`: Run refused, HTTP/1.1 only."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx2
import trustme

from cursor_byok.client.client import End, run_request
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.config.guards import HostCheck
from cursor_byok.llm.types import TextContent
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.connect.framing import encode_envelope
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.http_server import TLSFiles
from cursor_byok.transport.proto.aiserver.v1 import server_config_pb2
from tests.e2e.test_run_http2 import answer, is_end, running
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM


async def test_a_grpc_run_ends_with_grpc_status_trailers(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("Hi")], ("h2c", "grpc")) as run:
        stream = await run.open()
        await stream.send(run_request("hello"))
        end = await stream.until(is_end)
    assert stream.content_type == "application/grpc+proto"
    assert isinstance(end, End) and end.error is None  # trailers carried grpc-status 0
    assert stream.text() == "Hi"


async def test_a_grpc_web_run_ends_with_a_trailers_envelope(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("Hi")], ("h2c", "grpc-web")) as run:
        stream = await run.open()
        await stream.send(run_request("hello"))
        end = await stream.until(is_end)
    assert stream.content_type == "application/grpc-web+proto"
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "Hi"


async def test_a_malformed_request_stream_ends_with_invalid_argument(tmp_path: Path) -> None:
    async with running(tmp_path, [], ("h2c", "proto")) as run:
        stream = await run.open()
        # Flags 0x40 are no envelope flags: the stream is not Connect framing.
        await run.client.send_data(stream.stream_id, b"\x40\x00\x00\x00\x01x")
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "invalid_argument"
    assert "malformed" in str(end.error["message"])


async def test_a_run_message_that_does_not_decode_is_skipped(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("Hi")], ("h2c", "json")) as run:
        stream = await run.open()
        await run.client.send_data(stream.stream_id, b"\x00\x00\x00\x00\x05nope!")
        await stream.send(run_request("hello"))
        end = await stream.until(is_end)
        skipped = run.service.hub.counters.undecodable_appends
    assert isinstance(end, End) and end.error is None
    assert skipped == 1 and stream.text() == "Hi"


async def test_with_http2_off_run_is_refused_and_clients_are_told(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(assistant(TextContent("Hi")))])
    service = build_service(store, llm, http2=False)
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.cert_chain_pems[0].write_to_path(cert)
    issued.private_key_pem.write_to_path(key)
    context = ssl.create_default_context()
    authority.configure_trust(context)
    async with serving(service, tls=TLSFiles(cert, key)) as url:
        async with httpx2.AsyncClient(base_url=url, verify=context) as http:
            config = await http.post(
                "/aiserver.v1.ServerConfigService/GetServerConfig",
                content=b"",
                headers={"content-type": "application/proto", "host": "127.0.0.1"},
            )
        try:
            await H2Client.connect(url, context)
            chose_h2 = True
        except ConnectionError as refused:
            chose_h2 = False
            assert "not h2" in str(refused)
    store.close()
    answer_ = server_config_pb2.GetServerConfigResponse.FromString(config.content)
    assert answer_.http2_config == server_config_pb2.HTTP2_CONFIG_FORCE_ALL_DISABLED
    assert not chose_h2  # ALPN offers only http/1.1


async def one_run(
    url: str, framing: str = "proto", authority: str | None = None
) -> tuple[RunStream, End]:
    """One `Run` over h2c: the stream and how it ended."""
    client = await H2Client.connect(url)
    if authority is not None:
        client.authority = authority
    try:
        stream = await client.open(framing)
        await stream.send(run_request("hello"))
        end = await stream.until(is_end)
    finally:
        await client.close()
    assert isinstance(end, End)
    return stream, end


async def test_with_http2_off_a_run_over_h2c_is_unimplemented(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]), http2=False)
    async with serving(service) as url:
        _, end = await one_run(url)
    store.close()
    assert end.error is not None
    assert end.error["http_status"] == 501 and end.error["code"] == "unimplemented"
    assert "server.http2" in str(end.error["message"])
    assert service.hub.counters.undecodable_appends == 0 and len(service.hub.sessions) == 0


async def test_a_run_naming_a_foreign_host_is_refused_on_loopback(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    check = HostCheck("127.0.0.1")
    service = build_service(store, ScriptedLLM([]), host_allowed=check.allows)
    async with serving(service) as url:
        # A rebound DNS name, as a web page sends it.
        _, end = await one_run(url, authority="attacker.example")
    store.close()
    assert end.error is not None
    assert end.error["http_status"] == 421
    assert len(service.hub.sessions) == 0


async def test_a_grpc_run_refused_before_its_stream_gets_a_trailers_only_answer(
    tmp_path: Path,
) -> None:
    """gRPC clients read the status from the headers of a refused call; a
    Connect JSON error body would look to them like a broken stream."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]), http2=False)
    ends: dict[str, End] = {}
    async with serving(service) as url:
        for framing in ("grpc", "grpc-web"):
            stream, ends[framing] = await one_run(url, framing)
            assert stream.status == 200 and stream.content_type.startswith("application/grpc")
    store.close()
    for end in ends.values():
        assert end.error is not None
        trailers = end.error["trailers"]
        assert isinstance(trailers, dict)
        assert trailers["grpc-status"] == "12"  # UNIMPLEMENTED
        assert "server.http2" in trailers["grpc-message"]


async def test_a_grpc_run_over_http1_is_refused_in_its_headers(tmp_path: Path) -> None:
    """gRPC ends a stream with trailers, which an HTTP/1.1 reply cannot carry:
    the call is refused at once, with its status in the headers, as gRPC
    clients read a trailers-only answer."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([answer("Hi")]))
    async with serving(service) as url, httpx2.AsyncClient(base_url=url) as http:
        reply = await http.post(
            "/agent.v1.AgentService/Run",
            content=encode_envelope(run_request("hello").SerializeToString()),
            headers={"content-type": "application/grpc", "te": "trailers"},
        )
    store.close()
    assert reply.http_version == "HTTP/1.1"
    assert reply.status_code == 200 and reply.content == b""
    assert reply.headers["grpc-status"] == "12"
    assert "HTTP/2" in reply.headers["grpc-message"]
    assert len(service.hub.sessions) == 0
