"""Compressed request bodies over a real socket: a RunSSE body of many gzip
envelopes (each inflating to megabytes, the whole body gzipped again) is
refused at its second message, before that one is inflated, and the event
loop keeps answering meanwhile; on every path a body is inflated on (RunSSE,
a unary call, BidiAppend, a Run stream) the inflated bytes count against the
memory budget, so a message that inflates past it is refused with
resource_exhausted, and nothing stays reserved after."""

from __future__ import annotations

import asyncio
import gzip
import json
import time
from pathlib import Path

import httpx2
import pytest

from cursor_byok.client.client import End
from cursor_byok.client.run_client import H2Client
from cursor_byok.transport.connect.framing import encode_envelope
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from tests.e2e.test_memory_budget import really_held, running

MiB = 1024 * 1024
RUN_SSE = "/agent.v1.AgentService/RunSSE"
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
IS_CONNECTED = "/aiserver.v1.NetworkService/IsConnected"
STREAM_TYPE = {"content-type": "application/connect+proto"}


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def padded(message: bytes, size: int) -> bytes:
    """A valid protobuf message of `size` bytes or a few more: the message
    plus an unknown field (number 15) of zero bytes, which decoders skip."""
    filler = max(size - len(message) - 6, 0)
    return message + varint(15 << 3 | 2) + varint(filler) + b"\0" * filler


def request_id(value: str, size: int) -> bytes:
    return padded(bidi_pb2.BidiRequestId(request_id=value).SerializeToString(), size)


def gzip_bomb(envelopes: int, inflated: int) -> bytes:
    """`envelopes` gzip envelopes of a valid request id padded to `inflated`
    bytes each, the body gzipped again: a few KiB on the wire."""
    one = encode_envelope(request_id("bomb", inflated), compress=True)
    return gzip.compress(one * envelopes)


async def test_a_runsse_body_of_many_gzip_envelopes_is_refused_at_the_second(
    tmp_path: Path,
) -> None:
    body = gzip_bomb(200, 4 * MiB - 64)
    assert len(body) < 4096
    async with running(tmp_path) as (url, service):
        budget = service.hub.budget
        gaps: list[float] = []
        done = asyncio.Event()
        async with httpx2.AsyncClient(base_url=url, timeout=20) as http:

            async def poll_health() -> None:
                last = time.monotonic()
                while not done.is_set():
                    assert (await http.get("/healthz")).status_code == 200
                    now = time.monotonic()
                    gaps.append(now - last)
                    last = now
                    await asyncio.sleep(0.01)

            polling = asyncio.create_task(poll_health())
            await asyncio.sleep(0.1)
            try:
                headers = {**STREAM_TYPE, "content-encoding": "gzip"}
                async with http.stream("POST", RUN_SSE, content=body, headers=headers) as answer:
                    status = answer.status_code  # a stream that opened is not read
                    content = await answer.aread() if status != 200 else b""
            finally:
                done.set()
                await polling
    assert status == 400
    error = json.loads(content)
    assert error["code"] == "invalid_argument"
    assert "one message" in error["message"] and "a second" in error["message"]
    assert service.hub.sessions.get("bomb") is None
    assert budget.in_flight == 0 and budget.used == really_held(service)
    # A liveness bound, not a speed figure (bench/abuse.py measures): one
    # 4 MiB message is inflated per bomb, where every one of the 200 was.
    assert max(gaps) < 0.5, f"/healthz waited {max(gaps):.2f} s"


async def post_runsse(http: httpx2.AsyncClient, inflated: int) -> tuple[int, dict[str, object]]:
    envelope = encode_envelope(request_id("big", inflated), compress=True)
    async with http.stream("POST", RUN_SSE, content=envelope, headers=STREAM_TYPE) as answer:
        status = answer.status_code  # a stream that opened is not read
        content = await answer.aread() if status != 200 else b"{}"
    return status, json.loads(content)


async def post_unary(http: httpx2.AsyncClient, inflated: int) -> tuple[int, dict[str, object]]:
    answer = await http.post(
        IS_CONNECTED,
        content=gzip.compress(padded(b"", inflated)),
        headers={"content-type": "application/proto", "content-encoding": "gzip"},
    )
    return answer.status_code, answer.json()


async def post_append(http: httpx2.AsyncClient, inflated: int) -> tuple[int, dict[str, object]]:
    append = bidi_pb2.BidiAppendRequest(
        data_binary=b"\0" * inflated,
        request_id=bidi_pb2.BidiRequestId(request_id="big"),
        append_seqno=1,
    )
    envelope = encode_envelope(append.SerializeToString(), compress=True)
    answer = await http.post(
        BIDI_APPEND, content=envelope, headers={"content-type": "application/proto"}
    )
    return answer.status_code, answer.json()


async def run_message(url: str, inflated: int) -> tuple[int, dict[str, object]]:
    client = await H2Client.connect(url)
    try:
        stream = await client.open("proto")
        envelope = encode_envelope(padded(b"", inflated), compress=True)
        await client.send_data(stream.stream_id, envelope)
        end = await stream.until(lambda item: isinstance(item, End))
    finally:
        await client.close()
    assert isinstance(end, End) and end.error is not None, end
    return stream.status, end.error


PATHS = {"runsse": post_runsse, "unary": post_unary, "append": post_append}


@pytest.mark.parametrize("path", [*PATHS, "run"])
async def test_a_message_that_inflates_past_the_budget_is_refused(
    tmp_path: Path, path: str
) -> None:
    two = 2 * MiB
    async with running(
        tmp_path, max_append_bytes=8 * MiB, memory_budget_bytes=two, request_memory_bytes=two
    ) as (url, service):
        if path == "run":
            status, error = await run_message(url, 3 * MiB)
        else:
            async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
                status, error = await PATHS[path](http, 3 * MiB)
        budget = service.hub.budget
        assert budget.in_flight == 0 and budget.used == really_held(service)
    assert (status, error["code"]) == (200 if path == "run" else 429, "resource_exhausted")
    assert "memory budget" in json.dumps(error)
    assert budget.stats.refused >= 1
