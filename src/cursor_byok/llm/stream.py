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
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol
from urllib.parse import urlsplit

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.events import (
    TERMINAL_EVENTS,
    ErrorEvent,
    ResponseEvent,
    StartEvent,
    next_joined,
)
from cursor_byok.llm.http import HTTPClient, HTTPRequest, HTTPResponse, TransportError
from cursor_byok.llm.sse import SSEEvent, SSEParser, SSETooLarge
from cursor_byok.llm.upstream_errors import UpstreamError, error_from_response

MAX_ERROR_BODY = 64 * 1024

_READER_EVENTS = (StartEvent, *TERMINAL_EVENTS)
"""Events `recv` returns even while the others are passed on (`pass_on`)."""


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

    def __init__(
        self,
        client: HTTPClient,
        request: HTTPRequest,
        parser: StreamParser,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self._client = client
        self._redact = redact
        """Cuts the key out of an error's text: some providers quote the key
        they rejected, and that text is logged, stored and shown."""
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
        self._take: Callable[[ResponseEvent], None] | None = None
        self._parked: asyncio.Future[None] | None = None
        """The reader's wait while events are passed on (`pass_on`)."""

    def pass_on(self, take: Callable[[ResponseEvent], None]) -> None:
        """While the reader waits in `recv` with nothing pending, hand the
        body's events to `take` in the loop step that read them off the
        socket, rather than wake the reader a step later for each: on a busy
        loop a step is every other stream's work. Only the events between
        the start and the end go this way; the start, the terminal event
        and any failure still come out of `recv`, after all those before."""
        self._take = take

    async def recv(self) -> ResponseEvent:
        pending = self._pending
        while not pending:
            if self._assembler.terminated:
                await self._release()
                raise StopAsyncIteration
            try:
                body = self._body
                if body is None:
                    await self._advance()
                elif self._take is not None and self._tap(body):
                    # Passing events on: take what is at hand, else wait
                    # until `_arrived` needs the reader; once the body is
                    # over, `read` below says how.
                    if chunk := body.take_nowait():
                        self._took(chunk)
                        self._drain()
                    elif not body.settled:
                        self._parked = asyncio.get_running_loop().create_future()
                        try:
                            await self._parked
                        finally:
                            self._parked = None
                    else:
                        self._take = None
                else:
                    # The body's read is awaited here, not in a helper: one
                    # coroutine less on the path of every delta.
                    try:
                        chunk = await body.read()
                    except TransportError as exc:
                        self._assembler.fail(self._transport_error(exc))
                    else:
                        self._took(chunk)
                    self._drain()
            except asyncio.CancelledError:
                await self.aclose()
                raise
        return pending.popleft()

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
        """Open the call (once), or note that its body has ended."""
        if not self._started:
            self._started = True
            await self._open()
        self._drain()

    def _tap(self, body: HTTPResponse) -> bool:
        """Whether the body's arrivals reach `_arrived`; if they cannot (the
        body is in hand already), the reader reads as without `pass_on`."""
        if body.on_arrival(self._arrived):
            return True
        self._take = None
        return False

    def _arrived(self) -> None:
        """More of the body, its end or a failure, in the step that read it."""
        parked, body, take = self._parked, self._body, self._take
        if parked is None or parked.done() or body is None or take is None:
            return  # the reader is busy: it reads what came
        pending = self._pending
        try:
            # Taken until none is at hand: a take can let aiohttp go on
            # with what it held back (a compressed body is inflated so far
            # at a time), and that comes in the take, not from the socket.
            while not pending and not parked.done() and (chunk := body.take_nowait()):
                self._took(chunk)
                self._drain()
                # (`take` may stop the reader: its wait is then cancelled,
                # and what is left is not passed on, as a stopped reader
                # would not pass it on). A block's deltas that came in one
                # read go on as one.
                while pending and not parked.done() and not isinstance(pending[0], _READER_EVENTS):
                    take(next_joined(pending))
        except Exception as error:  # noqa: BLE001 (a bug in the adapter or the taker: the reader raises it)
            if not parked.done():
                parked.set_exception(error)
            return
        if not parked.done() and (self._pending or body.settled or self._assembler.terminated):
            parked.set_result(None)

    def _took(self, chunk: bytes) -> None:
        try:
            if chunk:
                feed_bytes(self._sse, self._parser, chunk)
                return
            self._body = None
            for event in self._sse.flush():
                if self._assembler.terminated:
                    break
                self._parser.on_event(event)
        except SSETooLarge as error:
            # Not retried: the same request would most likely get the same reply.
            self._body = None
            if not self._assembler.terminated:
                provider = self._assembler.provider or urlsplit(self._request.url).hostname
                self._assembler.fail(UpstreamError(f"{provider} sent {error}; the call was ended"))
            return
        self._parser.on_end()

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
            redact = self._redact
            if redact is not None and self._assembler.terminated:
                out[:] = [_redacted(event, redact) for event in out]
            self._pending.extend(out)
            out.clear()

    async def _release(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._body = None
        self._take = None
        if self._response is not None:
            self._response.close()


def _redacted(event: ResponseEvent, redact: Callable[[str], str]) -> ResponseEvent:
    if not isinstance(event, ErrorEvent):
        return event
    text = event.message.error_message
    if not text or (cleaned := redact(text)) == text:
        return event
    return replace(event, message=replace(event.message, error_message=cleaned))
