"""Slow, silent and hostile clients over a real socket: half-sent bodies,
idle keep-alive connections, rebinding Host names, forged ids, /metrics
without the token."""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
import trustme

from cursor_byok.client.client import CursorClient, End, run_request
from cursor_byok.config.guards import HostCheck
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.connect.framing import encode_envelope
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.http_server import TLSFiles
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from tests.fakes import ScriptedLLM

RUN_SSE = "/agent.v1.AgentService/RunSSE"


@asynccontextmanager
async def running(
    tmp_path: Path, keepalive_s: int = 5, **options: object
) -> AsyncIterator[tuple[str, Service, SQLiteStore]]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]), **options)  # type: ignore[arg-type]
    async with serving(service, keepalive_timeout_s=keepalive_s) as url:
        yield url, service, store
    store.close()


async def read_until_closed(reader: asyncio.StreamReader, within: float) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    async with asyncio.timeout(within):
        while chunk := await reader.read(65536):
            data += chunk
    return data


async def test_a_half_sent_body_gets_408_and_the_connection_is_closed(tmp_path: Path) -> None:
    async with running(tmp_path, body_timeout_s=0.3) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(
            b"POST /aiserver.v1.BidiService/BidiAppend HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/proto\r\nContent-Length: 1000\r\n\r\n" + b"x" * 10
        )
        await writer.drain()
        started = time.monotonic()
        reply = await read_until_closed(reader, within=5)
        waited = time.monotonic() - started
        writer.close()
    assert reply.startswith(b"HTTP/1.1 408 "), reply[:80]
    assert b"did not arrive within 0.3 s" in reply
    assert waited < 4  # closed by the body timeout, not left open


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        b"PRI * HTTP/2.0\r\n",  # the start of the HTTP/2 preface, then nothing
    ],
)
async def test_a_request_head_that_never_completes_is_closed(tmp_path: Path, sent: bytes) -> None:
    # A connection without a complete request head is idle: the idle limit closes it.
    async with running(tmp_path, keepalive_s=1, body_timeout_s=0.5) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(sent)  # nothing, or a head without its blank line
        await writer.drain()
        started = time.monotonic()
        reply = await read_until_closed(reader, within=5)
        waited = time.monotonic() - started
        writer.close()
    assert reply == b"" and 0.3 < waited < 3


async def test_a_long_stream_outlives_the_request_deadlines(tmp_path: Path) -> None:
    async with running(tmp_path, body_timeout_s=0.3, heartbeat_s=0.2) as (url, _s, _st):
        client = CursorClient(url)
        try:
            stream = await client.open("r-long")
            started = time.monotonic()
            while time.monotonic() - started < 1.2:  # four deadlines long
                item = await stream.next(within=2)
                assert not isinstance(item, End)
        finally:
            await client.close()


async def test_an_idle_keep_alive_connection_is_closed_after_the_configured_limit(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, keepalive_s=1) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        started = time.monotonic()
        # The response arrives at once; the close follows after the idle
        # limit (1 s here, 5 s by default), with nothing more sent.
        reply = await read_until_closed(reader, within=4)
        idle = time.monotonic() - started
        writer.close()
    assert reply.startswith(b"HTTP/1.1 200 ") and b"ok\n" in reply
    assert 0.5 < idle < 3


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("attacker.example", 421),
        ("localhost.attacker.example", 421),
        ("127.0.0.1.attacker.example", 421),
        ("localhost", 200),
        ("127.0.0.1", 200),
        ("[::1]", 200),
        ("cursor-byok.internal", 200),
    ],
)
async def test_a_loopback_server_answers_only_loopback_and_configured_host_names(
    tmp_path: Path, host: str, status: int
) -> None:
    check = HostCheck("127.0.0.1", extra_names=["cursor-byok.internal"])
    async with running(tmp_path, host_allowed=check.allows) as (url, _service, _store):
        port = urlsplit(url).port
        async with httpx2.AsyncClient(base_url=url) as http:
            for path in ("/healthz", "/metrics"):
                response = await http.get(path, headers={"host": f"{host}:{port}"})
                assert response.status_code == status, (path, response.text)
            if status == 421:
                assert response.json()["code"] == "permission_denied"


async def get(url: str, path: str, token: str | None = None) -> httpx2.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(base_url=url) as http:
        return await http.get(path, headers=headers)


async def test_metrics_need_the_access_token_unless_made_public(tmp_path: Path) -> None:
    async with running(tmp_path, access_token="t0ken") as (url, _service, _store):
        assert (await get(url, "/metrics")).status_code == 401
        assert (await get(url, "/metrics", "nope")).status_code == 401
        right = await get(url, "/metrics", "t0ken")
        assert right.status_code == 200 and b"cursor_byok_requests" in right.content
        assert (await get(url, "/healthz")).status_code == 200
    async with running(tmp_path, access_token="t0ken", metrics_public=True) as (url, _s, _st):
        assert (await get(url, "/metrics")).status_code == 200


FORGED = "r1\n2026-01-01 INFO cursor_byok: forged \x1b[31mline"


async def test_a_forged_request_id_is_refused_and_adds_no_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running(tmp_path) as (url, service, _store):
        client = CursorClient(url)
        try:
            body = encode_envelope(bidi_pb2.BidiRequestId(request_id=FORGED).SerializeToString())
            refused = await client.post(
                RUN_SSE, body, headers={"content-type": "application/connect+proto"}
            )
            assert refused.status == 400 and refused.json()["code"] == "invalid_argument"
            assert "request_id must be" in refused.json()["message"]
            # BidiAppend answers 200 whatever comes (the client aborts on
            # anything else), but the append is not taken.
            appended = await client.append_raw(FORGED, 0, run_request("hi").SerializeToString())
            assert appended.status == 200
        finally:
            await client.close()
        assert service.hub.sessions.get(FORGED) is None
        assert service.hub.counters.undecodable_appends == 1
    assert all("forged" not in record.getMessage() for record in caplog.records)


async def test_a_forged_conversation_id_ends_the_stream_and_stores_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running(tmp_path) as (url, _service, store):
        client = CursorClient(url)
        try:
            stream = await client.open("r-forged")
            await client.append("r-forged", 0, run_request("hi", conversation_id=FORGED))
            end = await stream.next()
        finally:
            await client.close()
        assert isinstance(end, End) and end.error is not None
        assert end.error["code"] == "invalid_argument"
        assert "conversation_id must be" in str(end.error["message"])
        assert list(store.conversations()) == []
    assert all("forged" not in record.getMessage() for record in caplog.records)


async def test_unary_replies_are_framed_by_length_on_a_kept_alive_connection(
    tmp_path: Path,
) -> None:
    """Two appends on one connection: each reply declares its length (no
    chunked framing), so a client reads it whole and the next one follows."""
    async with running(tmp_path) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        request = (
            b"POST /aiserver.v1.BidiService/BidiAppend HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/proto\r\nContent-Length: 0\r\n\r\n"
        )
        for _ in range(2):
            writer.write(request)
            await writer.drain()
            async with asyncio.timeout(5):
                head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 "), head
            assert b"\r\ncontent-length: 0\r\n" in head.lower()
            assert b"transfer-encoding" not in head.lower()
        writer.close()


async def test_replies_carry_a_date_and_do_not_name_the_server_stack(tmp_path: Path) -> None:
    """HTTP wants a `date` on every reply; a `server` header would only tell
    a prober which stack (and which of its bugs) sits behind the port."""
    async with (
        running(tmp_path) as (url, _service, _store),
        httpx2.AsyncClient(base_url=url) as http,
    ):
        unary = await http.post(
            "/aiserver.v1.BidiService/BidiAppend",
            content=b"",
            headers={"content-type": "application/proto"},
        )
        health = await http.get("/healthz")
    for reply in (unary, health):
        assert reply.status_code == 200
        assert "date" in reply.headers
        assert "server" not in reply.headers


async def test_a_second_request_head_trickled_on_a_kept_alive_connection_is_closed(
    tmp_path: Path,
) -> None:
    """One byte of a head now and then keeps no connection open: the head
    must be whole within the idle limit, the first request or a later one."""
    async with running(tmp_path, keepalive_s=1) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        async with asyncio.timeout(5):
            head = await reader.readuntil(b"\r\n\r\n")
            await reader.readexactly(3)  # "ok\n"
        assert head.startswith(b"HTTP/1.1 200 ")
        started = time.monotonic()
        closed = False
        for byte in b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n":
            try:
                writer.write(bytes([byte]))
                await writer.drain()
            except ConnectionError:
                closed = True
                break
            await asyncio.sleep(0.1)
            if reader.at_eof():
                closed = True
                break
        waited = time.monotonic() - started
        if not closed:
            closed = await read_until_closed(reader, within=3) == b""
        writer.close()
    assert closed and waited < 3


async def test_a_request_head_over_64_kib_gets_431(tmp_path: Path) -> None:
    async with running(tmp_path) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for _ in range(70):
            writer.write(b"x-filler: " + b"a" * 1014 + b"\r\n")
        await writer.drain()
        reply = await read_until_closed(reader, within=5)
        writer.close()
    assert reply.startswith(b"HTTP/1.1 431 "), reply[:80]


async def test_a_large_body_sent_with_its_head_is_not_taken_for_a_large_head(
    tmp_path: Path,
) -> None:
    """The head's cap counts the head only: a 200 KB body in the same write
    reaches the app (which answers an unknown path with 501, unimplemented)."""
    async with running(tmp_path) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        body = b"z" * 200_000
        writer.write(
            b"POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/proto\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        await writer.drain()
        async with asyncio.timeout(5):
            head = await reader.readuntil(b"\r\n\r\n")
        writer.close()
    assert head.startswith(b"HTTP/1.1 501 "), head[:80]


async def test_an_h2c_upgrade_offer_on_a_first_request_is_taken_without_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """curl --http2 offers `Upgrade: h2c` with its first request: the
    connection switches to HTTP/2 (101), as hypercorn alone did, and
    nothing is logged for it."""
    caplog.set_level(logging.WARNING)
    async with running(tmp_path) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(
            b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
            b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n"
        )
        await writer.drain()
        async with asyncio.timeout(5):
            head = await reader.readuntil(b"\r\n\r\n")
        writer.close()
    assert head.startswith(b"HTTP/1.1 101 "), head[:80]
    assert b"upgrade: h2c" in head.lower()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_a_head_over_64_kib_in_one_write_gets_431(tmp_path: Path) -> None:
    async with running(tmp_path) as (url, _service, _store):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(
            b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nx-filler: " + b"a" * 100_000 + b"\r\n\r\n"
        )
        await writer.drain()
        reply = await read_until_closed(reader, within=5)
        writer.close()
    assert reply.startswith(b"HTTP/1.1 431 "), reply[:80]


async def raw_reply(url: str, request: bytes) -> bytes:
    """What the server answers one request written as it is, up to its close."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(request)
    await writer.drain()
    try:
        return await read_until_closed(reader, within=5)
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("head", "said"),
    [
        # Which Host is meant? A proxy may read the first, this server the last.
        (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n", b"Host"),
        (b"GET /healthz HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\n", b"Host"),
        # The target names another host than Host does.
        (b"GET http://evil.example/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"authority"),
        (b"GET http://127.0.0.1:9/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"authority"),
        (b"GET http://127.0.0.1/healthz HTTP/1.1\r\n", b"authority"),
    ],
)
async def test_an_ambiguous_host_gets_400_and_never_reaches_the_app(
    tmp_path: Path, head: bytes, said: bytes
) -> None:
    check = HostCheck("127.0.0.1")
    async with running(tmp_path, host_allowed=check.allows) as (url, _service, _store):
        reply = await raw_reply(url, head + b"Connection: close\r\n\r\n")
        metrics = await get(url, "/metrics")
    assert reply.startswith(b"HTTP/1.1 400 "), reply[:80]
    assert said in reply and b"ok\n" not in reply
    assert 'path="other"' not in metrics.text  # the refused one never reached the app


async def test_an_absolute_target_naming_the_host_itself_is_served(tmp_path: Path) -> None:
    async with running(tmp_path) as (url, _service, _store):
        port = urlsplit(url).port
        reply = await raw_reply(
            url,
            f"GET http://127.0.0.1:{port}/healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Connection: close\r\n\r\n".encode(),
        )
    assert reply.startswith(b"HTTP/1.1 200 ") and b"ok\ndatabase: reachable\n" in reply


async def h2c_events(url: str, headers: list[tuple[str, str]]) -> list[object]:
    """One GET /healthz over h2c with these host headers, sent unchecked:
    the HTTP/2 events until the response ends or the connection does."""
    import h2.config  # noqa: PLC0415
    import h2.connection  # noqa: PLC0415
    import h2.events  # noqa: PLC0415

    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    config = h2.config.H2Configuration(client_side=True, validate_outbound_headers=False)
    connection = h2.connection.H2Connection(config)
    connection.initiate_connection()
    request = [(":method", "GET"), (":scheme", "http"), (":path", "/healthz"), *headers]
    connection.send_headers(1, request, end_stream=True)
    writer.write(connection.data_to_send())
    events: list[object] = []
    ends = (h2.events.StreamEnded, h2.events.StreamReset, h2.events.ConnectionTerminated)
    try:
        async with asyncio.timeout(5):
            while not any(isinstance(e, ends) for e in events):
                data = await reader.read(65536)
                if not data:
                    break
                events += connection.receive_data(data)
                writer.write(connection.data_to_send())
    finally:
        writer.close()
    return events


@pytest.mark.parametrize(
    ("headers", "answered"),
    [
        ([(":authority", "127.0.0.1"), ("host", "127.0.0.1")], True),
        ([(":authority", "127.0.0.1"), ("host", "evil.example")], False),
        ([(":authority", "evil.example"), ("host", "127.0.0.1")], False),
        ([("host", "127.0.0.1"), ("host", "evil.example")], False),
    ],
)
async def test_http2_refuses_an_authority_and_a_host_that_disagree(
    tmp_path: Path, headers: list[tuple[str, str]], answered: bool
) -> None:
    """h2c: `:authority` and `host` naming two hosts (or two `host`s) is a
    malformed request (RFC 9113 8.3.1): the connection ends with
    PROTOCOL_ERROR and nothing is answered."""
    import h2.errors  # noqa: PLC0415
    import h2.events  # noqa: PLC0415

    check = HostCheck("127.0.0.1")
    async with running(tmp_path, host_allowed=check.allows) as (url, _service, _store):
        events = await h2c_events(url, headers)
    responses = [e for e in events if isinstance(e, h2.events.ResponseReceived)]
    if answered:
        assert [dict(r.headers)[b":status"] for r in responses] == [b"200"]
        return
    assert responses == []
    [ended] = [e for e in events if isinstance(e, h2.events.ConnectionTerminated)]
    assert ended.error_code == h2.errors.ErrorCodes.PROTOCOL_ERROR


@pytest.mark.parametrize(
    "head",
    [
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n",
        b"GET https://evil.example/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    ],
)
async def test_under_tls_an_ambiguous_host_gets_400_too(tmp_path: Path, head: bytes) -> None:
    """With TLS, HTTP/1.1 is served by the other HTTP/1.1 stack (hypercorn's)."""
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.cert_chain_pems[0].write_to_path(cert)
    issued.private_key_pem.write_to_path(key)
    context = ssl.create_default_context()
    authority.configure_trust(context)
    context.set_alpn_protocols(["http/1.1"])
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]), host_allowed=HostCheck("127.0.0.1").allows)
    try:
        async with serving(service, tls=TLSFiles(cert, key)) as url:
            parts = urlsplit(url)
            reader, writer = await asyncio.open_connection(
                parts.hostname, parts.port, ssl=context, server_hostname="127.0.0.1"
            )
            writer.write(head + b"Connection: close\r\n\r\n")
            await writer.drain()
            reply = await read_until_closed(reader, within=5)
            writer.close()
    finally:
        store.close()
    assert reply.startswith(b"HTTP/1.1 400 "), reply[:200]
