"""A stream's deltas handed on in the loop step that read them (`pass_on`).

The real adapters against a replay provider on a real socket: what is
passed on plus what `recv` returns is exactly what `recv` alone returns,
in order; the deltas are handed on by the socket's read callback, not by a
woken reader; the start, the end and failures still come out of `recv`;
the deltas of one block that came in one read are handed on as one; and
the connection goes back to aiohttp's protocol when the body ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace

import aiohttp
import pytest
import trustme

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    PassesOn,
    ResponseEvent,
    ResponseStream,
    StartEvent,
    TextDelta,
)
from cursor_byok.llm.http import HTTPClient, HTTPRequest, HTTPResponse
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.providers.openai_responses import OpenAIResponsesLLM
from cursor_byok.llm.types import RequestMessages, TextContent
from tests.factories import user
from tests.llm.adapters import Adapter
from tests.llm.loopback import LoopbackServer, Reply, recording
from tests.llm.streams import check_grammar, collect

REQUEST = RequestMessages("Be brief.", (user("hi"),))
PACE_S = 0.003
"""Between two SSE events: the reader has parked before the next arrives."""

RECORDED = [
    pytest.param(
        lambda url: AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", url), "sk-ant"),
        "anthropic/text-usage.sse",
        id="anthropic",
    ),
    pytest.param(
        lambda url: OpenAIResponsesLLM(ModelSpec("openai", "gpt-4o", url + "/v1"), "sk-test"),
        "openai-responses/text-usage.sse",
        id="openai-responses",
    ),
]


def after_the_delta(body: bytes) -> int:
    """Where the recorded Anthropic answer's one text delta has been sent."""
    return body.index(b"event: content_block_stop")


@dataclass
class Taken:
    """What `take` got, and whether a task was running when it did: none is
    while a transport's read callback runs."""

    events: list[ResponseEvent] = field(default_factory=list)
    in_task: list[bool] = field(default_factory=list)
    delta: asyncio.Event = field(default_factory=asyncio.Event)

    def __call__(self, event: ResponseEvent) -> None:
        self.events.append(event)
        self.in_task.append(asyncio.current_task() is not None)
        if isinstance(event, TextDelta):
            self.delta.set()


def untimed(events: list[ResponseEvent]) -> list[ResponseEvent]:
    """The events with the final message's clock reading left out (two
    calls are compared)."""
    return [
        replace(e, message=replace(e.message, timestamp=0))
        if isinstance(e, DoneEvent | ErrorEvent)
        else e
        for e in events
    ]


async def call_passing_on(llm: Adapter, within: float = 5.0) -> tuple[list[ResponseEvent], Taken]:
    """One call of `llm` read to its end while passing on, and what was
    taken; the adapter is closed after."""
    taken = Taken()
    try:
        stream = await llm.call(CallContext("c1", "s1"), REQUEST)
        return await asyncio.wait_for(read_passing_on(stream, taken), within), taken
    finally:
        await llm.aclose()


async def read_passing_on(stream: ResponseStream, taken: Taken) -> list[ResponseEvent]:
    """Every event in the order the reader sees them: those passed on
    between two `recv`s come before what the second returns."""
    assert isinstance(stream, PassesOn)
    stream.pass_on(taken)
    seen: list[ResponseEvent] = []
    passed = 0
    while True:
        try:
            event = await stream.recv()
        except StopAsyncIteration:
            seen.extend(taken.events[passed:])
            return seen
        seen.extend(taken.events[passed:])
        passed = len(taken.events)
        seen.append(event)


@pytest.mark.parametrize(("make", "name"), RECORDED)
async def test_what_is_passed_on_and_what_recv_returns_are_the_stream_in_order(
    make: Callable[[str], Adapter], name: str
) -> None:
    body = recording(name)
    async with LoopbackServer([Reply(body, chunk_size=None)], pace_s=PACE_S) as plain:
        llm = make(plain.base_url)
        try:
            expected = await collect(await llm.call(CallContext("c1", "s1"), REQUEST))
        finally:
            await llm.aclose()
    async with LoopbackServer([Reply(body, chunk_size=None)], pace_s=PACE_S) as passing:
        seen, taken = await call_passing_on(make(passing.base_url))
    assert untimed(seen) == untimed(expected)
    check_grammar(seen)
    # The deltas went the direct way, and only they did.
    assert any(isinstance(event, TextDelta) for event in taken.events)
    assert not any(isinstance(e, StartEvent | DoneEvent | ErrorEvent) for e in taken.events)
    # Handed on by the socket's read callback, not by a woken reader task.
    assert taken.in_task and not any(taken.in_task)


def joined(events: list[ResponseEvent]) -> list[ResponseEvent]:
    """The events with each run of one block's deltas made one."""
    out: list[ResponseEvent] = []
    for event in events:
        last = out[-1] if out else None
        if (
            isinstance(event, TextDelta)
            and isinstance(last, TextDelta)
            and last.content_index == event.content_index
        ):
            out[-1] = TextDelta(event.content_index, last.delta + event.delta)
        else:
            out.append(event)
    return out


async def test_the_deltas_of_one_read_are_passed_on_as_one() -> None:
    """On a busy loop one read holds several deltas: they cost one trip
    downstream, and say the same."""
    body = recording("openai-responses/text-usage.sse")

    def make(url: str) -> OpenAIResponsesLLM:
        return OpenAIResponsesLLM(ModelSpec("openai", "gpt-4o", url + "/v1"), "sk-test")

    async with LoopbackServer([Reply(body, chunk_size=None)]) as plain:
        llm = make(plain.base_url)
        try:
            expected = await collect(await llm.call(CallContext("c1", "s1"), REQUEST))
        finally:
            await llm.aclose()
    # Pieces of 1 KiB: most hold several of the recording's deltas.
    async with LoopbackServer([Reply(body, chunk_size=1024)], pace_s=PACE_S) as paced:
        seen, taken = await call_passing_on(make(paced.base_url))
    check_grammar(seen)
    assert untimed(joined(seen)) == untimed(joined(expected))
    deltas = [e for e in taken.events if isinstance(e, TextDelta)]
    assert 0 < len(deltas) < sum(isinstance(e, TextDelta) for e in expected)


async def test_a_body_cut_short_ends_through_recv_after_what_was_passed_on() -> None:
    body = recording("anthropic/text-usage.sse")
    reply = Reply(body, chunk_size=None, cut_after=after_the_delta(body))
    async with LoopbackServer([reply], pace_s=PACE_S) as server:
        llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", server.base_url), "sk")
        seen, taken = await call_passing_on(llm)
    assert any(isinstance(event, TextDelta) for event in taken.events)
    end = seen[-1]
    assert isinstance(end, ErrorEvent) and end.retryable
    assert end not in taken.events


async def test_a_stalled_body_still_ends_at_the_stall_timeout_while_the_reader_is_parked() -> None:
    body = recording("anthropic/text-usage.sse")
    reply = Reply(body, chunk_size=None, cut_after=after_the_delta(body), hang=True)
    async with LoopbackServer([reply], pace_s=PACE_S) as server:
        client = HTTPClient(read_timeout=0.3)
        llm = AnthropicLLM(
            ModelSpec("anthropic", "claude-sonnet-4", server.base_url), "sk", client=client
        )
        seen, taken = await call_passing_on(llm)
    assert any(isinstance(event, TextDelta) for event in taken.events)
    end = seen[-1]
    assert isinstance(end, ErrorEvent)
    assert "sent no data for 0.3 s" in (end.message.error_message or "")


async def test_a_failing_taker_fails_the_read_and_the_stream_is_closed_after() -> None:
    body = recording("anthropic/text-usage.sse")
    async with LoopbackServer([Reply(body, chunk_size=None)], pace_s=PACE_S) as server:
        llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", server.base_url), "sk")

        def take(event: ResponseEvent) -> None:
            raise RuntimeError("the taker broke")

        try:
            stream = await llm.call(CallContext("c1", "s1"), REQUEST)
            assert isinstance(stream, PassesOn)
            stream.pass_on(take)
            assert isinstance(await stream.recv(), StartEvent)
            with pytest.raises(RuntimeError, match="the taker broke"):
                while True:
                    await stream.recv()
            await stream.aclose()
        finally:
            await llm.aclose()


async def test_a_reader_cancelled_while_parked_ends_with_what_streamed() -> None:
    body = recording("anthropic/text-usage.sse")
    reply = Reply(body, chunk_size=None, cut_after=after_the_delta(body), hang=True)
    async with LoopbackServer([reply], pace_s=PACE_S) as server:
        llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", server.base_url), "sk")
        taken = Taken()
        try:
            stream = await llm.call(CallContext("c1", "s1"), REQUEST)
            reading = asyncio.create_task(read_passing_on(stream, taken))
            await asyncio.wait_for(taken.delta.wait(), 5)
            reading.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reading
            last = await stream.recv()
            await asyncio.wait_for(server.closed_early.wait(), 2)
        finally:
            await llm.aclose()
    assert isinstance(last, ErrorEvent) and last.reason == "aborted"
    text = "".join(e.delta for e in taken.events if isinstance(e, TextDelta))
    [kept] = last.message.content
    assert text and isinstance(kept, TextContent) and kept.text.startswith(text)


# -- a kept-alive connection, used again once the body is over ------------------------


async def read_request(reader: asyncio.StreamReader) -> None:
    """One request, head and body (its length given), read and dropped."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    await reader.readexactly(length)


@contextlib.asynccontextmanager
async def keep_alive_server(bodies: list[bytes]) -> AsyncIterator[tuple[str, list[int]]]:
    """Answers requests on one connection in turn, each with the next body
    (chunked, one SSE event a chunk, paced); yields its URL and the number of
    connections it took."""
    connections: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while bodies:
                await read_request(reader)
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"transfer-encoding: chunked\r\n\r\n"
                )
                events = [e + b"\n\n" for e in bodies.pop(0).split(b"\n\n") if e.strip()]
                for piece in events:
                    await asyncio.sleep(PACE_S)
                    writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                # (the body's end goes with its last event: the client is
                # done reading it when it has read that event)
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", connections
    finally:
        server.close()


async def test_the_connection_goes_back_to_aiohttp_when_the_body_ends() -> None:
    body = recording("anthropic/text-usage.sse")
    async with keep_alive_server([body, body]) as (url, connections):
        llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", url), "sk")
        first = Taken()
        try:
            passed = await read_passing_on(await llm.call(CallContext("c1", "s1"), REQUEST), first)
            taken_then = len(first.events)
            read = await collect(await llm.call(CallContext("c2", "s1"), REQUEST))
        finally:
            await llm.aclose()
    assert connections == [1]  # the second call went on the same connection
    assert len(first.events) == taken_then  # the first stream's taker heard nothing of it
    assert untimed(passed) == untimed(read)
    check_grammar(read)


async def test_a_body_already_in_hand_is_read_as_without_pass_on() -> None:
    """A body that came whole with its head leaves nothing to tap: the
    reader reads it, and nothing is passed on."""
    body = recording("anthropic/text-usage.sse")
    async with LoopbackServer([Reply(body, chunk_size=len(body))]) as server:
        client = HTTPClient()
        try:
            response = await client.send(HTTPRequest(server.base_url + "/v1/messages", {}, b"{}"))
            await asyncio.sleep(0.05)  # the whole body is read meanwhile
            assert not response.on_arrival(lambda: None)
            chunks = [chunk async for chunk in response.chunks()]
            response.close()
        finally:
            await client.aclose()
    assert b"".join(chunks) == body


async def test_arrivals_are_heard_over_tls_as_over_plain_tcp() -> None:
    """Providers are reached over TLS: the tap sits on the TLS transport,
    whose own `set_protocol` puts it between the decrypted bytes and aiohttp."""
    authority = trustme.CA()
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_tls)
    client_tls = ssl.create_default_context()
    authority.configure_trust(client_tls)
    pieces = [b"data: %d\n\n" % n for n in range(5)]

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for piece in pieces:
            await asyncio.sleep(PACE_S)
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=server_tls)
    port = server.sockets[0].getsockname()[1]
    taken: list[tuple[bytes, bool]] = []
    try:
        async with aiohttp.ClientSession() as session:
            raw = await session.get(f"https://127.0.0.1:{port}/", ssl=client_tls)
            response = HTTPResponse(raw, 5.0)
            ended = asyncio.Event()

            def arrived() -> None:
                if chunk := response.take_nowait():
                    taken.append((chunk, asyncio.current_task() is not None))
                if response.settled:
                    ended.set()

            assert response.on_arrival(arrived)
            await asyncio.wait_for(ended.wait(), 5)
            response.close()
    finally:
        server.close()
    assert b"".join(chunk for chunk, _ in taken) == b"".join(pieces)
    assert not any(in_task for _, in_task in taken)


async def test_a_compressed_body_read_in_one_piece_is_passed_on_whole() -> None:
    """aiohttp inflates a compressed body only so far at a time: what a read
    of the stream lets it inflate next is fed in that same read, not by the
    socket. All of it is passed on, and the stream ends, with nothing more
    arriving from the socket."""
    recorded = recording("anthropic/text-usage.sse")
    events = recorded.split(b"\n\n")
    delta = next(e for e in events if b"text_delta" in e)
    many = delta.replace(b'"Hello"', b'"' + b"word " * 200 + b'"')
    at = events.index(delta)
    body = b"\n\n".join([*events[:at], *[many] * 2000, *events[at + 1 :]])
    packed = gzip.compress(body)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"content-encoding: gzip\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        await asyncio.sleep(PACE_S * 3)  # the reader has parked
        writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(packed), packed))
        await writer.drain()
        await reader.read(1)  # held open: nothing more comes from the socket
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", url), "sk")
    try:
        seen, taken = await call_passing_on(llm, within=10)
    finally:
        server.close()
    check_grammar(seen)
    assert isinstance(seen[-1], DoneEvent)
    text = "".join(e.delta for e in seen if isinstance(e, TextDelta))
    assert text == ("word " * 200) * 2000
    # All of it went the direct way (joined: one read held many deltas).
    assert "".join(e.delta for e in taken.events if isinstance(e, TextDelta)) == text
