"""Reading and decoding one BidiAppend body.

An append may carry a whole tool result, so it has its own, larger size
limit; the bytes being read and inflated are reserved in the memory budget
while they arrive, like the buffered appends they may become. What does not decode is
not an error to the client (the official client aborts the whole run on a
failed append): the caller counts it and answers 200.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cursor_byok.transport.connect.codec import CodecError, ContentType, decode_message
from cursor_byok.transport.connect.errors import Code
from cursor_byok.transport.connect.request_body import Receive, RequestError, read_body, unwrap
from cursor_byok.transport.connect.reservation import Reservation
from cursor_byok.transport.dialect.ids import is_valid_id
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.sessions.memory_budget import MemoryBudget


@dataclass(frozen=True, slots=True)
class Append:
    request_id: str
    seqno: int
    payload: bytes


async def read_append(
    receive: Receive,
    headers: Mapping[str, str],
    content_type: ContentType,
    budget: MemoryBudget,
    max_bytes: int,
    timeout_s: float,
) -> Append | str | None:
    """Read and decode one append. Its bytes, as read and as inflated, are
    reserved in the budget until it is decoded; the reservation ends there:
    what is kept is charged by its keeper. RequestError when the body is too
    big, too slow, or there is no room for it."""
    with Reservation(budget) as held:
        body = await read_body(receive, headers, max_bytes, timeout_s, held)
        return decode_append(body, content_type, max_bytes, held)


def decode_append(
    body: bytes, content_type: ContentType, max_bytes: int, held: Reservation
) -> Append | str | None:
    """The append; why it is ignored (a string); None for no request id.
    RequestError only when there is no room to inflate it."""
    try:
        message = unwrap(body, max_bytes, held)
        request = decode_message(message, bidi_pb2.BidiAppendRequest, content_type.codec)
        payload = request.data_binary or bytes.fromhex(request.data)
    except RequestError as error:
        if error.error.code is Code.RESOURCE_EXHAUSTED:
            raise
        return f"it does not decode: {error}"
    except (CodecError, ValueError) as error:
        return f"it does not decode: {error}"
    request_id = request.request_id.request_id
    if not request_id:
        return None
    if not is_valid_id(request_id):
        return "its request id is malformed"
    return Append(request_id, request.append_seqno, payload)
