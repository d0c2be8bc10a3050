"""Reading a request body within limits of size, time and memory.

A client that sends half a body and then nothing would otherwise hold its
connection and a task forever; a body that is not whole within
`timeout_s` gets 408 and the connection is closed. Every chunk is reserved
in the caller's `Reservation` (the memory budget) before it is kept, and so
is every step of inflating a gzip body or message: what a request holds
while it is read and decoded is counted, and refused with
resource_exhausted when there is no room.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.connect.framing import (
    FramingError,
    inflate,
    only_message,
    unwrap_unary_body,
)
from cursor_byok.transport.connect.reservation import NoRoom, Reservation

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
    held: Reservation,
) -> bytes:
    """The whole body, decompressed; RequestError when it is too big, too
    slow, or the client went away. Room for each chunk, and for the
    inflated body, is taken in `held` (which the caller releases when it is
    done with the body); when there is none, the request is refused. One
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
                try:
                    held.take(len(chunk))
                except NoRoom as no_room:
                    refused = WireError(Code.RESOURCE_EXHAUSTED, str(no_room))
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
    del chunks
    if headers.get("content-encoding", "").lower() == "gzip":
        with refusals():
            body = inflate(body, max_bytes=max_bytes, held=held)
        held.give_back(size)  # the compressed body is gone
    return body


def unwrap(body: bytes, max_bytes: int, held: Reservation) -> bytes:
    """A unary body with or without its envelope (inflated with room in
    `held`), as a RequestError if broken or if there is no room."""
    with refusals():
        return unwrap_unary_body(body, max_message_bytes=max_bytes, held=held)


def one_message(body: bytes, max_bytes: int, held: Reservation) -> bytes:
    """The one message a RunSSE body carries (see `framing.only_message`),
    as a RequestError if there is not exactly one or no room to inflate it."""
    with refusals():
        return only_message(body, max_message_bytes=max_bytes, held=held)


@contextlib.contextmanager
def refusals() -> Iterator[None]:
    """Broken framing or gzip is invalid_argument; no room is resource_exhausted."""
    try:
        yield
    except FramingError as error:
        raise RequestError(WireError(Code.INVALID_ARGUMENT, str(error))) from error
    except NoRoom as no_room:
        raise RequestError(WireError(Code.RESOURCE_EXHAUSTED, str(no_room))) from None


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
