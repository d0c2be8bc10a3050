"""A stand-in model provider: a loopback HTTP server that answers each
request with the next recorded response body.

The point is that the real code runs: an adapter builds the request and
parses the stream exactly as it would against the real API. So the stand-in
sits at the network edge and speaks plain HTTP/1.1 on 127.0.0.1. `cursor-byok
demo` plays its recorded turn through it (paced, so the turn is seen
streaming) and the tests replay recorded provider traffic through it, cut
short or left hanging where they need a broken connection.

A reply may carry an expectation about the request it answers (e.g. "the
tool result is in it"); a request that misses it, or that finds no reply
left, gets a 400 in Anthropic's error format, so a replay fails loudly
instead of answering the wrong question.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Expectation = Callable[[Any], str | None]
"""Given the decoded request body, None if it is as expected, else why not."""

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests"}


@dataclass
class Reply:
    """What the server answers. The body goes out chunked: in pieces of
    `chunk_size` bytes, or one piece per SSE event when it is None. `cut_after`
    closes the socket after that many body bytes (a connection lost
    mid-stream); `hang` keeps the connection open after the body."""

    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int | None = 512
    cut_after: int | None = None
    hang: bool = False
    expect: Expectation | None = None


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ReplayProvider:
    """Serves `replies` in order on a free loopback port; keeps what it received."""

    def __init__(self, replies: list[Reply] | None = None, pace_s: float = 0.0) -> None:
        self.replies = list(replies or [])
        self.pace_s = pace_s
        self.received: list[Received] = []
        self.closed_early = asyncio.Event()
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[Any]:
        """The decoded JSON bodies received, in order (None for an empty body)."""
        return [json.loads(r.body or b"null") for r in self.received]

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def __aenter__(self) -> ReplayProvider:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.closed_early.set()
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if colon:
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append(Received(method, path, headers, body))
        reply = self.replies.pop(0) if self.replies else None
        problem = "no recorded reply is left" if reply is None else _missed(reply, body)
        if reply is None or problem is not None:
            detail = {"type": "invalid_request_error", "message": f"demo: {problem}"}
            payload = json.dumps({"type": "error", "error": detail}).encode()
            writer.write(_head(400, "application/json", {}, len(payload)) + payload)
            await writer.drain()
            return
        writer.write(_head(reply.status, reply.content_type, reply.headers, None))
        limit = len(reply.body) if reply.cut_after is None else reply.cut_after
        for piece in _pieces(reply.body[:limit], reply.chunk_size):
            writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            await writer.drain()
            if self.pace_s:
                await asyncio.sleep(self.pace_s)
        if reply.hang:
            await reader.read(1)  # returns at EOF, when the client hangs up
            self.closed_early.set()
            return
        if reply.cut_after is None:
            writer.write(b"0\r\n\r\n")
            await writer.drain()


def _missed(reply: Reply, body: bytes) -> str | None:
    if reply.expect is None:
        return None
    try:
        request = json.loads(body or b"null")
    except ValueError:
        return "the request body is not JSON"
    return reply.expect(request)


def _pieces(data: bytes, size: int | None) -> list[bytes]:
    if size is None:
        return [event + b"\n\n" for event in data.split(b"\n\n") if event.strip()]
    return [data[start : start + size] for start in range(0, len(data), size)]


def _head(status: int, content_type: str, extra: dict[str, str], length: int | None) -> bytes:
    """A response head: a fixed length, or chunked."""
    framing = "transfer-encoding: chunked" if length is None else f"content-length: {length}"
    lines = "".join(f"{name}: {value}\r\n" for name, value in extra.items())
    return (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\ncontent-type: {content_type}\r\n"
        f"{framing}\r\n{lines}connection: close\r\n\r\n"
    ).encode("latin-1")
