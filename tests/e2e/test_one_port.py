"""One port, two stacks, over a real socket: HTTP/1.1 answered while the
HTTP/2 side is still loading, and an HTTP/2 connection that comes before it
is loaded waiting for it rather than failing."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from hypercorn.config import Config

from cursor_byok.client.client import TRANSPORT_ERRORS, CursorClient, End, run_request
from cursor_byok.client.run_client import H2Client
from cursor_byok.llm import ready_order
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service
from cursor_byok.transport.http.http_server import free_port, hypercorn_config
from cursor_byok.transport.http.one_port import OnePort
from tests.e2e.test_run_http2 import answer
from tests.fakes import ScriptedLLM


async def test_http1_is_served_while_http2_loads_and_an_early_run_waits_for_it(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([answer("Hi")]))
    port = free_port()
    release = threading.Event()

    def slow_config() -> Config:
        # Runs on the loading thread: the HTTP/2 side is not ready until released.
        release.wait(10)
        return hypercorn_config("127.0.0.1", port)

    stop = asyncio.Event()
    one_port = OnePort(service.server, slow_config, idle_timeout_s=5, grace_s=2)
    serving = asyncio.create_task(one_port.serve(None, "127.0.0.1", port, stop.wait))
    try:
        url = f"http://127.0.0.1:{port}"
        probe = CursorClient(url)
        try:
            assert await health_status(probe) == 200  # HTTP/1.1, with HTTP/2 not loaded yet
        finally:
            await probe.close()

        client = await H2Client.connect(url)
        try:
            stream = await client.open("proto")
            await stream.send(run_request("hello"))
            await asyncio.sleep(0.2)
            assert not serving.done()
            release.set()
            end = await stream.until(lambda item: isinstance(item, End), within=10)
        finally:
            await client.close()
        assert isinstance(end, End) and end.error is None
        assert stream.text() == "Hi"
    finally:
        release.set()
        service.server.begin_shutdown()
        stop.set()
        await asyncio.wait_for(serving, 10)
        store.close()


async def health_status(probe: CursorClient) -> int:
    """/healthz's status once the port answers (it may still be starting)."""
    for _ in range(200):
        try:
            return (await probe.get("/healthz")).status
        except TRANSPORT_ERRORS:
            await asyncio.sleep(0.01)
    raise AssertionError("the port did not answer within 2 s")


async def test_shutdown_closes_a_connection_that_has_not_spoken_yet(tmp_path: Path) -> None:
    """A connection accepted but silent is closed at shutdown, not left to
    send a request to an app whose lifespan has ended."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]))
    port = free_port()
    stop = asyncio.Event()
    one_port = OnePort(
        service.server, lambda: hypercorn_config("127.0.0.1", port), idle_timeout_s=30, grace_s=2
    )
    serving = asyncio.create_task(one_port.serve(None, "127.0.0.1", port, stop.wait))
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # accepted, and sniffing
        stop.set()
        await asyncio.wait_for(serving, 5)
        async with asyncio.timeout(2):  # far inside the 30 s idle limit
            assert await reader.read() == b""
        writer.close()
    finally:
        stop.set()
        store.close()


async def test_a_client_connection_is_read_first_while_open_and_unmarked_once_closed(
    tmp_path: Path,
) -> None:
    """Its socket is marked from accept (`ready_order`) and unmarked as it
    closes, over HTTP/1.1 and HTTP/2 alike, so a reused number starts unmarked."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([answer("Hi")]))
    port = free_port()
    stop = asyncio.Event()
    one_port = OnePort(
        service.server, lambda: hypercorn_config("127.0.0.1", port), idle_timeout_s=5, grace_s=2
    )
    before = ready_order.marked()
    serving = asyncio.create_task(one_port.serve(None, "127.0.0.1", port, stop.wait))
    try:
        url = f"http://127.0.0.1:{port}"
        probe = CursorClient(url)
        try:
            assert await health_status(probe) == 200
            assert len(ready_order.marked() - before) == 1  # kept alive: still open
        finally:
            await probe.close()
        await until_unmarked(before)

        client = await H2Client.connect(url)
        try:
            stream = await client.open("proto")
            await stream.send(run_request("hello"))
            end = await stream.until(lambda item: isinstance(item, End), within=10)
            assert isinstance(end, End) and end.error is None
            assert len(ready_order.marked() - before) == 1
        finally:
            await client.close()
        await until_unmarked(before)
    finally:
        service.server.begin_shutdown()
        stop.set()
        await asyncio.wait_for(serving, 10)
        store.close()
    assert ready_order.marked() == before


async def until_unmarked(before: frozenset[int]) -> None:
    """The server has seen the close (within 5 s): no mark beyond `before`."""
    for _ in range(500):
        if ready_order.marked() == before:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still marked: {sorted(ready_order.marked() - before)}")
