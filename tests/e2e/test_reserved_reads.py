"""What a client makes the server hold while it reads is in the memory
budget, over a real socket: an envelope still arriving on an HTTP/2 Run
stream is reserved at its declared length when its 5-byte prefix arrives,
one the budget cannot hold ends its stream with resource_exhausted, and
RunSSE and unary bodies are counted while they are read. However the
streams and requests end (reset, half-closed mid-envelope, connection
dropped), nothing stays reserved."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from cursor_byok.client.client import End
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.transport.connect.framing import HEADER_SIZE
from cursor_byok.transport.http.app import Service
from tests.e2e.test_memory_budget import really_held, running, until

MiB = 1024 * 1024
DECLARED = 24 * MiB


def prefix(length: int) -> bytes:
    """An envelope's 5 bytes: flags, then the payload's length."""
    return b"\x00" + length.to_bytes(4, "big")


async def begin_envelope(client: H2Client, length: int, sent: int) -> RunStream:
    """A Run stream that declares an envelope of `length` bytes and sends
    `sent` of them."""
    stream = await client.open("proto")
    await client.send_data(stream.stream_id, prefix(length) + b"\x5a" * sent)
    return stream


def nothing_reserved(service: Service) -> bool:
    budget = service.hub.budget
    return budget.in_flight == 0 and budget.used == really_held(service)


async def test_unfinished_run_envelopes_are_reserved_and_nothing_stays_after_the_streams_end(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as (url, service):
        budget = service.hub.budget
        first, second = await H2Client.connect(url), await H2Client.connect(url)
        try:
            streams = [await begin_envelope(first, DECLARED, 256 * 1024) for _ in range(4)]
            streams += [await begin_envelope(second, DECLARED, 256 * 1024) for _ in range(2)]
            await until(lambda: budget.in_flight == 6 * DECLARED)
            assert budget.used >= 6 * DECLARED
            assert await held_metric(url) == budget.used

            streams[0].reset()  # RST_STREAM
            await until(lambda: budget.in_flight == 5 * DECLARED)
            first.h2.end_stream(streams[1].stream_id)  # half-closed mid-envelope
            first.flush()
            end = await streams[1].until(lambda item: isinstance(item, End))
            assert isinstance(end, End) and end.error is not None
            assert end.error["code"] == "invalid_argument" and "truncated" in str(end.error)
            await until(lambda: budget.in_flight == 4 * DECLARED)
        finally:
            await second.close()  # two streams' connection dropped
            await until(lambda: budget.in_flight == 2 * DECLARED)
            await first.close()  # and the other two
        await until(lambda: nothing_reserved(service))


async def test_an_envelope_the_budget_cannot_hold_ends_its_stream_with_resource_exhausted(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, memory_budget_bytes=32 * MiB, request_memory_bytes=32 * MiB) as (
        url,
        service,
    ):
        budget = service.hub.budget
        client = await H2Client.connect(url)
        try:
            held = await begin_envelope(client, DECLARED, 1024)
            await until(lambda: budget.in_flight == DECLARED)
            refused = await begin_envelope(client, DECLARED, 1024)
            end = await refused.until(lambda item: isinstance(item, End))
            assert budget.in_flight == DECLARED  # the first is still arriving
            held.reset()
            await until(lambda: budget.in_flight == 0)
            fits = await begin_envelope(client, DECLARED, 1024)  # room again
            await until(lambda: budget.in_flight == DECLARED)
            fits.reset()
        finally:
            await client.close()
        await until(lambda: nothing_reserved(service))
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "resource_exhausted"
    assert "memory budget" in str(end.error["message"])
    assert refused.status == 200


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/agent.v1.AgentService/RunSSE", "application/connect+proto"),
        ("/aiserver.v1.NetworkService/IsConnected", "application/proto"),
    ],
)
async def test_a_body_being_read_is_counted_until_its_client_goes(
    tmp_path: Path, path: str, content_type: str
) -> None:
    async with running(tmp_path) as (url, service):
        budget = service.hub.budget
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        sent = 3 * MiB
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {4 * MiB}\r\n\r\n".encode()
            + prefix(4 * MiB - HEADER_SIZE)
            + b"\x5a" * (sent - HEADER_SIZE)
        )
        await writer.drain()
        await until(lambda: budget.in_flight == sent)
        writer.close()
        await until(lambda: nothing_reserved(service))
        reader.feed_eof()


async def held_metric(url: str) -> float:
    """What /metrics says the memory budget holds."""
    async with httpx2.AsyncClient(base_url=url, timeout=10) as http:
        text = (await http.get("/metrics")).text
    found = re.search(r"^cursor_byok_memory_held_bytes ([0-9.e+]+)$", text, re.M)
    assert found, text
    return float(found.group(1))


async def test_a_refused_stream_whose_client_sends_on_leaves_its_connection_serving(
    tmp_path: Path,
) -> None:
    """A refusal comes while the client is still sending the refused
    envelope: what it sends after must not end the connection's other
    streams."""
    async with running(tmp_path, memory_budget_bytes=32 * MiB, request_memory_bytes=32 * MiB) as (
        url,
        service,
    ):
        budget = service.hub.budget
        client = await H2Client.connect(url)
        try:
            arriving = await begin_envelope(client, DECLARED, 1024)
            await until(lambda: budget.in_flight == DECLARED)
            refused = await begin_envelope(client, DECLARED, 1024)
            end = await refused.until(lambda item: isinstance(item, End))
            assert isinstance(end, End) and end.error is not None
            assert end.error["code"] == "resource_exhausted"
            client.h2.send_data(refused.stream_id, b"\x5a" * 16 * 1024)  # the rest on its way
            client.flush()
            await client.send_data(arriving.stream_id, b"\x5a" * 1024 * 1024)
            arriving.reset()
            await until(lambda: budget.in_flight == 0)
            later = await begin_envelope(client, DECLARED, 1024)
            await until(lambda: budget.in_flight == DECLARED)
            assert not client.closed and not later.ended
            later.reset()
        finally:
            await client.close()
        await until(lambda: nothing_reserved(service))
