"""No free connections, against the real server on a real socket: an HTTP/2
connection with no stream open is closed after the keep-alive time (as an
HTTP/1.1 one is), floods of cheap frames end their connection with GOAWAY
ENHANCE_YOUR_CALM before any token is looked at (a header block that
never ends, or outgrows the advertised size, with a protocol error), the
concurrent streams a client may open are what one client needs, and connections are capped in
total and per peer address, refused at accept time."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import h2.errors
import hyperframe.frame
import pytest
from h2.settings import SettingCodes

from cursor_byok.client.client import run_request
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http import h2_guard, http_server
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.connection_limits import ConnectionLimits
from tests.e2e.raw_h2 import RawH2, RawStream
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
TOKEN = "s3cret-token-for-tests"
KEEPALIVE_S = 1


@dataclass
class Served:
    service: Service
    host: str
    port: int
    llm: ScriptedLLM

    async def client(self, local: str | None = None) -> RawH2:
        return await RawH2.connect(self.host, self.port, local)


@asynccontextmanager
async def served(
    tmp_path: Path,
    scripts: list[list[ResponseEvent]] | None = None,
    token: str | None = None,
    limits: ConnectionLimits | None = None,
    keepalive_s: int = KEEPALIVE_S,
) -> AsyncIterator[Served]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM(scripts or [])
    service = build_service(
        store, llm, retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.2, access_token=token
    )
    async with serving(service, keepalive_timeout_s=keepalive_s, limits=limits) as url:
        where = urllib.parse.urlsplit(url)
        assert where.hostname and where.port
        yield Served(service, where.hostname, where.port, llm)
    store.close()


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Whether the server closes the connection within `seconds` (what it
    sends meanwhile, its SETTINGS and GOAWAY, is read and dropped)."""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


async def test_a_connection_that_sent_only_the_preface_is_closed_when_idle(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as server:
        connections = [await asyncio.open_connection(server.host, server.port) for _ in range(20)]
        for _reader, writer in connections:
            writer.write(PREFACE)
        closed = await asyncio.gather(
            *(closed_within(reader, KEEPALIVE_S + 3) for reader, _ in connections)
        )
        for _, writer in connections:
            writer.close()
    assert all(closed), f"{closed.count(False)} of {len(closed)} still open"


async def test_an_http2_connection_with_no_stream_is_closed_and_one_with_a_stream_is_not(
    tmp_path: Path,
) -> None:
    """The whole client preface (magic and SETTINGS) and nothing else: closed
    after the keep-alive time. A turn longer than that on another
    connection is not cut, and its connection is closed once it is idle."""
    slow = stream_of(assistant(TextContent("slow " * 20)), chunk=5)
    async with served(tmp_path, [slow]) as server:
        server.llm.delay = 0.15  # about 3 s in all: longer than the keep-alive time
        silent = await server.client()
        busy = await server.client()
        stream = busy.open()
        await busy.send(stream, run_request("take your time"))
        assert await silent.closed_within(KEEPALIVE_S + 3)
        assert await busy.until_end(stream) == {}
        assert stream.text() == "slow " * 20
        assert await busy.closed_within(KEEPALIVE_S + 3)
        await silent.close()
        await busy.close()


async def test_an_idle_connection_is_closed_with_a_goaway_naming_its_last_stream(
    tmp_path: Path,
) -> None:
    """Closed for idleness, a connection says so first (GOAWAY NO_ERROR, the
    last stream it served), as RFC 9113 section 6.8 asks of a server that
    closes: a request the client sent at that moment is known unprocessed,
    safe to send again, rather than lost to a bare close."""
    async with served(tmp_path, [answer("before the pause")]) as server:
        client = await server.client()
        stream = client.open()
        await client.send(stream, run_request("hello"))
        assert await client.until_end(stream) == {}
        assert await client.closed_within(KEEPALIVE_S + 3)
        assert client.goaway is not None, "closed without a GOAWAY"
        assert client.goaway.error_code == h2.errors.ErrorCodes.NO_ERROR
        assert client.goaway.last_stream_id == stream.stream_id
        await client.close()


async def test_rapid_reset_ends_the_connection_before_any_token_is_checked(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, token=TOKEN) as server:
        attacker = await server.client()
        for _ in range(h2_guard.FLOOD_BUDGET * 3):
            stream = attacker.open()  # no token
            attacker.h2.reset_stream(stream.stream_id, h2.errors.ErrorCodes.CANCEL)
            attacker.flush()
        assert await attacker.closed_within(5)
        assert attacker.goaway is not None
        assert attacker.goaway.error_code == h2.errors.ErrorCodes.ENHANCE_YOUR_CALM
        await attacker.close()
        # Another client, with the token, is served as ever.
        honest = await server.client()
        stream = honest.open(token=TOKEN, path="/agent.v1.AgentService/NameAgent")
        await honest.send(stream, b"", end=True)
        await asyncio.wait_for(_until(lambda: stream.closed), 5)
        assert stream.status != 0 and honest.goaway is None
        await honest.close()


FLOODS: dict[str, Callable[[int, int], hyperframe.frame.Frame]] = {
    "ping": lambda _sid, n: hyperframe.frame.PingFrame(0, opaque_data=n.to_bytes(8, "big")),
    "settings": lambda _sid, _n: hyperframe.frame.SettingsFrame(0, settings={4: 65535}),
    "priority": lambda sid, _n: hyperframe.frame.PriorityFrame(sid, depends_on=0),
    "empty-data": lambda sid, _n: hyperframe.frame.DataFrame(sid, data=b""),
}


@pytest.mark.parametrize("kind", sorted(FLOODS))
async def test_a_flood_of_cheap_frames_ends_the_connection(tmp_path: Path, kind: str) -> None:
    async with served(tmp_path) as server:
        attacker = await server.client()
        stream = attacker.open()  # open, its request not ended: DATA may come
        for n in range(h2_guard.FLOOD_BUDGET * 3):
            attacker.raw(FLOODS[kind](stream.stream_id, n))
        assert await attacker.closed_within(5)
        assert attacker.goaway is not None
        assert attacker.goaway.error_code == h2.errors.ErrorCodes.ENHANCE_YOUR_CALM
        await attacker.close()


async def test_opening_streams_over_the_limit_again_and_again_is_a_flood(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as server:
        client = await server.client()
        settings = client.h2.remote_settings
        await greeted(client)
        for _ in range(settings.max_concurrent_streams):
            client.open()
        settings.update({SettingCodes.MAX_CONCURRENT_STREAMS: 10_000})
        settings.acknowledge()
        for _ in range(h2_guard.FLOOD_BUDGET * 2):
            client.open()
        assert await client.closed_within(5)
        assert client.goaway is not None
        assert client.goaway.error_code == h2.errors.ErrorCodes.ENHANCE_YOUR_CALM
        await client.close()


async def test_a_few_resets_and_pings_are_a_client_at_work(tmp_path: Path) -> None:
    """Cancelling turns and pinging now and then is no flood."""
    async with served(tmp_path, [answer("still served")]) as server:
        client = await server.client()
        for n in range(20):
            stream = client.open()
            client.h2.reset_stream(stream.stream_id, h2.errors.ErrorCodes.CANCEL)
            client.raw(hyperframe.frame.PingFrame(0, opaque_data=n.to_bytes(8, "big")))
            client.flush()
        stream = client.open()
        await client.send(stream, run_request("hello"))
        assert await client.until_end(stream) == {}
        assert stream.text() == "still served" and client.goaway is None
        await client.close()


async def test_streams_over_the_advertised_limit_are_refused_one_by_one(tmp_path: Path) -> None:
    """MAX_CONCURRENT_STREAMS is what one client needs; a client that opens
    more anyway has each extra stream refused (REFUSED_STREAM), and the
    connection and its open streams go on."""
    async with served(tmp_path, [answer("in a freed slot")]) as server:
        client = await server.client()
        settings = client.h2.remote_settings
        await asyncio.wait_for(_until(lambda: settings.max_concurrent_streams < 2**31 - 1), 5)
        assert settings.max_concurrent_streams == http_server.MAX_CONCURRENT_STREAMS == 100
        held = [client.open() for _ in range(settings.max_concurrent_streams)]
        # The client ignores the limit it was given.
        settings.update({SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
        settings.acknowledge()
        over = [client.open() for _ in range(3)]
        await asyncio.wait_for(_until(lambda: all(s.closed for s in over)), 5)
        assert {s.reset_code for s in over} == {h2.errors.ErrorCodes.REFUSED_STREAM}
        assert not any(s.closed for s in held) and client.goaway is None
        # A slot freed, a turn is served on the same connection.
        client.h2.reset_stream(held[0].stream_id, h2.errors.ErrorCodes.CANCEL)
        stream = client.open()
        await client.send(stream, run_request("hello"))
        assert await client.until_end(stream) == {}
        assert stream.text() == "in a freed slot"
        await client.close()


def _ended(client: RawH2, streams: list[RawStream]) -> bool:
    return client.eof.is_set() or all(stream.closed for stream in streams)


async def _until(condition: Callable[[], bool]) -> None:
    """Poll `condition` (the callers bound the wait)."""
    for _ in range(100_000):
        if condition():
            return
        await asyncio.sleep(0.01)


async def greeted(client: RawH2) -> None:
    """Until the server's SETTINGS come: it took the connection."""
    await asyncio.wait_for(_until(lambda: client.greeted), 5)


async def refused(host: str, port: int, local: str) -> bool:
    """Whether a connection from `local` is closed at once, unread."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(local, 0))
    try:
        writer.write(PREFACE)
        return await closed_within(reader, 1)
    finally:
        writer.close()


async def test_one_address_over_its_cap_is_refused_and_another_with_a_token_is_served(
    tmp_path: Path,
) -> None:
    """127.0.0.1 and 127.0.0.2 are both loopback on Linux: two peers."""
    limits = ConnectionLimits(total=8, per_peer=3)
    scripts = [answer("served")]
    async with served(tmp_path, scripts, TOKEN, limits, keepalive_s=30) as server:
        held = [await server.client(local="127.0.0.2") for _ in range(3)]
        for client in held:
            await greeted(client)
        assert await refused(server.host, server.port, "127.0.0.2")
        assert not any(c.eof.is_set() for c in held)  # those it holds stay open
        honest = await server.client(local="127.0.0.1")
        stream = honest.open(token=TOKEN)
        await honest.send(stream, run_request("hello"))
        assert await honest.until_end(stream) == {}
        assert stream.text() == "served"
        for client in [*held, honest]:
            await client.close()


async def test_the_total_cap_refuses_everyone_until_a_place_is_free(tmp_path: Path) -> None:
    limits = ConnectionLimits(total=4, per_peer=3)
    async with served(tmp_path, limits=limits, keepalive_s=30) as server:
        held = [await server.client(local="127.0.0.2") for _ in range(3)]
        held.append(await server.client(local="127.0.0.3"))
        for client in held:
            await greeted(client)
        assert await refused(server.host, server.port, "127.0.0.1")
        await held.pop().close()
        await asyncio.sleep(0.2)  # the server closes its side at once, not after 30 s
        assert not await refused(server.host, server.port, "127.0.0.1")
        for client in held:
            await client.close()


async def test_closed_connections_give_their_place_back_whichever_stack_served_them(
    tmp_path: Path,
) -> None:
    """HTTP/1.1 requests, HTTP/2 connections and ones that said nothing,
    closed one after another, never add up to the per-address cap."""
    limits = ConnectionLimits(total=8, per_peer=2)
    async with served(tmp_path, limits=limits, keepalive_s=30) as server:
        for _ in range(4):
            reader, writer = await asyncio.open_connection(server.host, server.port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert (await reader.readline()).startswith(b"HTTP/1.1 ")
            writer.close()
            h2_client = await server.client()
            await greeted(h2_client)
            await h2_client.close()
            _, silent = await asyncio.open_connection(server.host, server.port)
            silent.close()
        await asyncio.sleep(0.1)
        both = [await server.client() for _ in range(2)]
        for client in both:
            await greeted(client)
            assert not client.eof.is_set()
        assert await refused(server.host, server.port, "127.0.0.1")
        for client in both:
            await client.close()


async def test_streams_whose_headers_carry_a_priority_are_no_flood(tmp_path: Path) -> None:
    """A priority inside HEADERS is part of opening a stream, not a PRIORITY
    frame: a client that sets one on every request is served for good."""
    async with served(tmp_path) as server:
        client = await server.client()
        for _ in range(5):  # 250 streams in all, more than the flood budget
            batch = [client.open(end_stream=True, priority_weight=200) for _ in range(50)]
            await asyncio.wait_for(_until(partial(_ended, client, batch)), 10)
            assert client.goaway is None and not client.eof.is_set()
        await client.close()


async def test_a_header_block_that_never_ends_ends_its_connection(tmp_path: Path) -> None:
    """HEADERS without END_HEADERS, then CONTINUATION frames without end (the
    2024 CONTINUATION flood): the server holds a bounded part of the block,
    then ends the connection, before any token is looked at; the next
    client is served."""
    async with served(tmp_path, [answer("still served")], token=TOKEN) as server:
        attacker = await server.client()
        await greeted(attacker)
        junk = b"\x00" * 16384  # the default SETTINGS_MAX_FRAME_SIZE
        stream_id = attacker.h2.get_next_available_stream_id()
        attacker.raw(hyperframe.frame.HeadersFrame(stream_id, data=junk))
        sent = 1
        while sent < 2000 and not attacker.eof.is_set():  # 32 MiB, were it all taken
            attacker.raw(hyperframe.frame.ContinuationFrame(stream_id, data=junk))
            sent += 1
            with contextlib.suppress(ConnectionError):
                await attacker.writer.drain()
        assert await attacker.closed_within(5)
        assert sent < 2000, "the server read 32 MiB of one header block"
        assert attacker.goaway is not None
        assert attacker.goaway.error_code == h2.errors.ErrorCodes.PROTOCOL_ERROR
        await attacker.close()
        honest = await server.client()
        stream = honest.open(token=TOKEN)
        await honest.send(stream, run_request("hello"))
        assert await honest.until_end(stream) == {}
        assert stream.text() == "still served"
        await honest.close()


async def test_a_header_list_over_the_advertised_size_ends_its_connection(
    tmp_path: Path,
) -> None:
    """A header block that does end, but decodes to more than the
    SETTINGS_MAX_HEADER_LIST_SIZE the server advertised: refused whole."""
    async with served(tmp_path, token=TOKEN) as server:
        client = await server.client()
        await greeted(client)
        advertised = client.h2.remote_settings.max_header_list_size
        assert advertised is not None and advertised <= 65536
        client.open(token=TOKEN, extra=[("x-filler", "y" * advertised)])
        assert await client.closed_within(5)
        assert client.goaway is not None
        assert client.goaway.error_code in {
            h2.errors.ErrorCodes.PROTOCOL_ERROR,
            h2.errors.ErrorCodes.ENHANCE_YOUR_CALM,
        }
        await client.close()
