"""Reading and decoding one BidiAppend body.

An append may carry a whole tool result, so it has its own, larger size
limit; the bytes being read are charged to the memory budget while they
arrive, like the buffered appends they may become. What does not decode is
not an error to the client (the official client aborts the whole run on a
failed append): the caller counts it and answers 200.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cursor_byok.transport.connect.codec import CodecError, ContentType, decode_message
from cursor_byok.transport.connect.request_body import Receive, RequestError, read_body, unwrap
from cursor_byok.transport.dialect.ids import is_valid_id
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.sessions.memory_budget import MemoryBudget


@dataclass(frozen=True, slots=True)
class Append:
    request_id: str
    seqno: int
    payload: bytes


async def read_append_body(
    receive: Receive,
    headers: Mapping[str, str],
    budget: MemoryBudget,
    max_bytes: int,
    timeout_s: float,
) -> bytes:
    """The body, each chunk reserved in the budget while it is read (the
    reservation ends with the read: what is kept is charged by its keeper)."""
    held = 0

    def hold(size: int) -> bool:
        nonlocal held
        if not budget.reserve(size):
            return False
        held += size
        return True

    try:
        return await read_body(receive, headers, max_bytes, timeout_s, hold)
    finally:
        budget.unreserve(held)


def decode_append(body: bytes, content_type: ContentType, max_bytes: int) -> Append | str | None:
    """The append; why it is ignored (a string); None for no request id."""
    try:
        message = unwrap(body, max_bytes)
        request = decode_message(message, bidi_pb2.BidiAppendRequest, content_type.codec)
        payload = request.data_binary or bytes.fromhex(request.data)
    except (RequestError, CodecError, ValueError) as error:
        return f"it does not decode: {error}"
    request_id = request.request_id.request_id
    if not request_id:
        return None
    if not is_valid_id(request_id):
        return "its request id is malformed"
    return Append(request_id, request.append_seqno, payload)
