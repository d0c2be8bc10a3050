"""`SSEResponseStream`: one provider call over HTTP, as a `ResponseStream`.

It owns the I/O the pure parsers must not do: send the request, check the
status, read chunks, feed them through `SSEParser` into the adapter's stream
parser, and hand the assembler's events out one by one. Every failure becomes
the stream's last event; cancellation closes the connection and ends the
stream with `aborted`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Protocol
from urllib.parse import urlsplit

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.events import ResponseEvent, StartEvent
from cursor_byok.llm.http import (
    HTTPClient,
    HTTPRequest,
    HTTPResponse,
    TransportError,
    UpstreamError,
    error_from_response,
)
from cursor_byok.llm.sse import SSEEvent, SSEParser

MAX_ERROR_BODY = 64 * 1024


class StreamParser(Protocol):
    """An adapter's state machine: SSE events in, assembler calls out."""

    assembler: Assembler

    def on_event(self, event: SSEEvent) -> None: ...

    def on_end(self) -> None:
        """The body ended; finish or fail unless already terminated."""
        ...


def feed_bytes(sse: SSEParser, parser: StreamParser, chunk: bytes) -> None:
    """Push one body chunk through both parsers (shared with the benchmark)."""
    for event in sse.feed(chunk):
        if parser.assembler.terminated:
            return
        parser.on_event(event)


class SSEResponseStream:
    """Implements `ResponseStream` for any SSE-speaking provider."""

    def __init__(self, client: HTTPClient, request: HTTPRequest, parser: StreamParser) -> None:
        self._client = client
        self._request = request
        self._parser = parser
        self._assembler = parser.assembler
        self._sse = SSEParser()
        self._pending: deque[ResponseEvent] = deque()
        self._response: HTTPResponse | None = None
        self._body: HTTPResponse | None = None
        """The response whose body is being read (None before and after)."""
        self._started = False
        self._closed = False

    async def recv(self) -> ResponseEvent:
        while not self._pending:
            if self._assembler.terminated:
                await self._release()
                raise StopAsyncIteration
            try:
                await self._advance()
            except asyncio.CancelledError:
                await self.aclose()
                raise
        return self._pending.popleft()

    def __aiter__(self) -> SSEResponseStream:
        return self

    async def __anext__(self) -> ResponseEvent:
        return await self.recv()

    async def aclose(self) -> None:
        """Abort: close the connection; the stream then ends with `aborted`."""
        if not self._assembler.terminated:
            self._assembler.fail(UpstreamError("the call was cancelled"), reason="aborted")
            self._drain()
        await self._release()

    async def _advance(self) -> None:
        if not self._started:
            self._started = True
            await self._open()
        elif self._body is not None:
            try:
                chunk = await self._body.read()
            except TransportError as exc:
                self._assembler.fail(self._transport_error(exc))
            else:
                if chunk:
                    feed_bytes(self._sse, self._parser, chunk)
                else:
                    self._body = None
                    for event in self._sse.flush():
                        if self._assembler.terminated:
                            break
                        self._parser.on_event(event)
                    self._parser.on_end()
        self._drain()

    async def _open(self) -> None:
        try:
            response = await self._client.send(self._request)
        except TransportError as exc:
            self._assembler.fail(self._transport_error(exc))
            return
        self._response = response
        if response.status >= 400:
            try:
                body = await self._read_limited(response)
            except TransportError:
                body = b""
            await self._release()
            self._assembler.fail(error_from_response(response.status, response.headers, body))
            return
        self._body = response
        self._pending.append(StartEvent())

    def _transport_error(self, exc: TransportError) -> UpstreamError:
        """A timeout says which provider went quiet and for how long; a bare
        "ReadTimeout" tells the user nothing."""
        provider = self._assembler.provider or urlsplit(self._request.url).hostname
        match exc.waited:
            case ("read", seconds):
                return UpstreamError(
                    f"{provider} sent no data for {seconds:g} s, so the call was given up "
                    "(the stall timeout, server.stall_timeout_s)",
                    retryable=True,
                )
            case ("connect", seconds):
                return UpstreamError(
                    f"could not connect to {provider} within {seconds:g} s", retryable=True
                )
        return exc.error

    @staticmethod
    async def _read_limited(response: HTTPResponse) -> bytes:
        parts: list[bytes] = []
        size = 0
        async for chunk in response.chunks():
            parts.append(chunk)
            size += len(chunk)
            if size >= MAX_ERROR_BODY:
                break
        return b"".join(parts)

    def _drain(self) -> None:
        out = self._assembler.out
        if out:
            self._pending.extend(out)
            out.clear()

    async def _release(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._body = None
        if self._response is not None:
            self._response.close()
