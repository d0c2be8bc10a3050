"""Reading a request body within limits of size and time.

A client that sends half a body and then nothing would otherwise hold its
connection and a task forever; a body that is not whole within
`timeout_s` gets 408 and the connection is closed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.connect.framing import FramingError, gzip_decompress, unwrap_unary_body

Receive = Callable[[], Awaitable[dict[str, Any]]]


class RequestError(Exception):
    """A request the server refuses with a Connect error. `close` ends the
    connection after the reply (the rest of the request was never read)."""

    def __init__(self, error: WireError, status: int | None = None, close: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.status = status
        self.close = close


async def read_body(
    receive: Receive,
    headers: Mapping[str, str],
    max_bytes: int,
    timeout_s: float,
    hold: Callable[[int], bool] = lambda _size: True,
) -> bytes:
    """The whole body, decompressed; RequestError when it is too big, too
    slow, or the client went away. `hold` is asked for room for each chunk
    (the memory budget); when it says no, the request is refused. One
    deadline covers the whole body: one timer per request, not per chunk."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    chunks: list[bytes] = []
    size = 0
    refused: WireError | None = None
    try:
        async with asyncio.timeout_at(deadline):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise RequestError(WireError(Code.CANCELED, "the client went away"))
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > max_bytes:
                    limit = f"request body exceeds the limit of {max_bytes} bytes"
                    refused = WireError(Code.RESOURCE_EXHAUSTED, limit)
                    break
                if not hold(len(chunk)):
                    full = "the server's memory budget is in use; retry later"
                    refused = WireError(Code.RESOURCE_EXHAUSTED, full)
                    break
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        slow = f"the request body did not arrive within {timeout_s:g} s"
        raise RequestError(WireError(Code.DEADLINE_EXCEEDED, slow), 408, close=True) from None
    if refused is not None:
        await _drain(receive, message, deadline)
        raise RequestError(refused, close=True)
    body = b"".join(chunks)
    if headers.get("content-encoding", "").lower() == "gzip":
        try:
            body = gzip_decompress(body, max_bytes=max_bytes)
        except FramingError as error:
            raise RequestError(WireError(Code.INVALID_ARGUMENT, str(error))) from error
    return body


def unwrap(body: bytes, max_bytes: int) -> bytes:
    """A unary body with or without its envelope, as a RequestError if broken."""
    try:
        return unwrap_unary_body(body, max_message_bytes=max_bytes)
    except FramingError as error:
        raise RequestError(WireError(Code.INVALID_ARGUMENT, str(error))) from error


async def _drain(receive: Receive, last: dict[str, Any], deadline: float) -> None:
    """Read and drop the rest of a refused body (until the body deadline), so
    an HTTP/1.1 client that writes its whole body before it reads the answer
    sees the refusal instead of blocking on a server that stopped reading."""
    loop = asyncio.get_running_loop()
    message = last
    while message["type"] == "http.request" and message.get("more_body", False):
        try:
            message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.0))
        except TimeoutError:
            return
