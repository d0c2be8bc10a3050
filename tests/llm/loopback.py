"""A real HTTP/1.1 server on 127.0.0.1 that replays recorded provider bodies.

It is the network edge of the adapter tests: adapters talk to it with their
real client over a real socket. Each request pops the next scripted `Reply`;
the request line, headers and body are kept for assertions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "llm"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture_bytes(name))


@dataclass
class Reply:
    """What the server answers. `cut_after` closes the socket after that many
    body bytes, mid chunked transfer: a connection lost mid-stream.
    `hang` keeps the connection open after the body without ending it."""

    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int = 512
    cut_after: int | None = None
    hang: bool = False


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class LoopbackServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.received: list[Received] = []
        self.closed_early = asyncio.Event()
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

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
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append(Received(method, path, headers, body))
        reply = self.replies.pop(0)
        reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests"}
        extra = "".join(f"{k}: {v}\r\n" for k, v in reply.headers.items())
        writer.write(
            (
                f"HTTP/1.1 {reply.status} {reason.get(reply.status, 'Error')}\r\n"
                f"content-type: {reply.content_type}\r\n"
                f"transfer-encoding: chunked\r\n{extra}connection: close\r\n\r\n"
            ).encode("latin-1")
        )
        limit = len(reply.body) if reply.cut_after is None else reply.cut_after
        data = reply.body[:limit]
        for start in range(0, len(data), reply.chunk_size):
            piece = data[start : start + reply.chunk_size]
            writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            await writer.drain()
        if reply.hang:
            await reader.read(1)  # returns at EOF, when the client hangs up
            self.closed_early.set()
            return
        if reply.cut_after is None:
            writer.write(b"0\r\n\r\n")
            await writer.drain()
