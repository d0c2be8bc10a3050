"""A stand-in model provider for `cursor-byok demo`: a loopback HTTP server
that answers each request with the next recorded response body.

The demo's point is that the real code runs: the Anthropic adapter builds
the request and parses the stream exactly as it would against the real API.
So the stand-in sits at the network edge, speaks plain HTTP/1.1 on
127.0.0.1, and paces the events so the turn is seen streaming. Each reply may
carry an expectation about the request it answers (e.g. "the tool result is
in it"); a request that misses it gets a 400 in Anthropic's error format, so
the demo fails loudly instead of replaying a canned answer to the wrong
question.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Expectation = Callable[[Any], str | None]
"""Given the decoded request body, None if it is as expected, else why not."""


@dataclass(frozen=True, slots=True)
class Recorded:
    body: bytes
    expect: Expectation | None = None


class ReplayProvider:
    """Serves `replies` in order on a free loopback port."""

    def __init__(self, replies: list[Recorded], pace_s: float = 0.0) -> None:
        self.replies = list(replies)
        self.pace_s = pace_s
        self.requests: list[Any] = []
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> ReplayProvider:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            body = json.loads(await reader.readexactly(length) or b"null")
            self.requests.append(body)
            await self._reply(body, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    async def _reply(self, request: Any, writer: asyncio.StreamWriter) -> None:
        problem = "no recorded reply is left" if not self.replies else None
        reply = self.replies.pop(0) if self.replies else None
        if reply is not None and reply.expect is not None:
            problem = reply.expect(request)
        if problem is not None or reply is None:
            detail = {"type": "invalid_request_error", "message": f"demo: {problem}"}
            error = {"type": "error", "error": detail}
            payload = json.dumps(error).encode()
            writer.write(_head(400, "Bad Request", "application/json", len(payload)) + payload)
            await writer.drain()
            return
        writer.write(_head(200, "OK", "text/event-stream", None))
        for event in reply.body.split(b"\n\n"):
            if event.strip():
                piece = event + b"\n\n"
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                await writer.drain()
                await asyncio.sleep(self.pace_s)
        writer.write(b"0\r\n\r\n")
        await writer.drain()


def _head(status: int, reason: str, content_type: str, length: int | None) -> bytes:
    """A response head: a fixed length, or chunked (one chunk per SSE event)."""
    framing = "transfer-encoding: chunked" if length is None else f"content-length: {length}"
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\n"
        f"{framing}\r\nconnection: close\r\n\r\n"
    ).encode("latin-1")
