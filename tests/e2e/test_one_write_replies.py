"""Over HTTP/1.1 a reply of declared length leaves the server in one write,
head and body (a unary reply, a BidiAppend's, had cost two sends and two
wake-ups of its client); a streamed reply's head still goes out before its
body exists, and an app that fails between a held head and its body gets
uvicorn's 500, not that head. Real port, real sockets; the server's socket
writes are counted where asyncio makes them."""

from __future__ import annotations

import asyncio
import contextlib
from asyncio import selector_events
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from cursor_byok.transport.http.http_server import free_port, hypercorn_config
from cursor_byok.transport.http.one_port import OnePort

Message = dict[str, Any]


Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


async def app(scope: Message, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            event = await receive()
            kind = event["type"].rsplit(".", 1)[-1]
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    path = scope["path"]
    if path == "/unary":
        body = b"the whole reply"
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif path == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await asyncio.sleep(0.3)  # the head is out long before this
        await send({"type": "http.response.body", "body": b"late"})
    elif path == "/fail":
        headers = [(b"content-length", b"5")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        raise RuntimeError("failed between head and body")


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Every socket write the server makes, in order."""
    made: list[bytes] = []
    transport: Any = selector_events._SelectorSocketTransport  # type: ignore[attr-defined]
    write = transport.write

    def counted(self: Any, data: bytes) -> None:
        made.append(bytes(data))
        write(self, data)

    monkeypatch.setattr(transport, "write", counted)
    yield made


@contextlib.asynccontextmanager
async def serving() -> AsyncIterator[int]:
    """The port, served until the block ends."""
    port = free_port()
    stop = asyncio.Event()
    one_port = OnePort(app, lambda: hypercorn_config("127.0.0.1", port), 5, 2)
    task = asyncio.create_task(one_port.serve(None, "127.0.0.1", port, stop.wait))
    try:
        for _ in range(200):
            try:
                _, probe = await asyncio.open_connection("127.0.0.1", port)
                probe.close()
                break
            except OSError:
                await asyncio.sleep(0.01)
        yield port
    finally:
        stop.set()
        await asyncio.wait_for(task, 5)


async def request(port: int, path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    return reader, writer


async def test_a_reply_of_declared_length_is_one_write(writes: list[bytes]) -> None:
    async with serving() as port:
        writes.clear()
        reader, writer = await request(port, "/unary")
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"content-length: 15" in head
        assert await reader.readexactly(15) == b"the whole reply"
        ours = [w for w in writes if w.startswith(b"HTTP/1.1")]
        assert len(ours) == 1 and ours[0].endswith(b"\r\n\r\nthe whole reply")
        # The connection is kept alive and serves the next reply the same way.
        writer.write(b"GET /unary HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        await reader.readuntil(b"\r\n\r\n")
        assert await reader.readexactly(15) == b"the whole reply"
        assert len([w for w in writes if w.startswith(b"HTTP/1.1")]) == 2
        writer.close()


async def test_a_streamed_reply_sends_its_head_before_its_body_exists(writes: list[bytes]) -> None:
    async with serving() as port:
        reader, writer = await request(port, "/stream")
        async with asyncio.timeout(0.25):  # the body comes 0.3 s after the head
            head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head
        assert await reader.readuntil(b"late\r\n") == b"4\r\nlate\r\n"
        writer.close()


async def test_an_app_failing_after_a_held_head_gets_a_500(writes: list[bytes]) -> None:
    async with serving() as port:
        reader, writer = await request(port, "/fail")
        reply = await reader.read()  # uvicorn's 500 closes the connection
        assert reply.startswith(b"HTTP/1.1 500")
        assert reply.endswith(b"Internal Server Error")
        assert b"HTTP/1.1 200" not in reply
        writer.close()
