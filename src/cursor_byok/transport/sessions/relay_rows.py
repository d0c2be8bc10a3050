"""A stream's items as rows of relayed output, and back (the protobuf side
of `cluster/`, which stores and reads the rows).

The host of a request stores what its session would have written to a
local stream: each `AgentServerMessage` as its protobuf bytes, and the end
of the stream as its Connect error (code, message, typed details) in JSON,
`{}` for success. The process whose client reads the stream encodes them
for that client's codec, so each codec works on the far side.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from google.protobuf.message import DecodeError

from cursor_byok.transport.connect.errors import Code, ErrorDetail, WireError
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.session import EndOfStream, QueueItem

OutputRow = tuple[int, str, bytes]
"""(sequence number, kind, payload), as `cluster.lease.Relay` stores it."""

MESSAGE = "message"
END = "end"


class BadRow(ValueError):
    """A stored row that is no stream item (a newer writer's kind, damaged bytes)."""


def encode_item(seq: int, item: QueueItem) -> OutputRow:
    if isinstance(item, EndOfStream):
        error = {} if item.error is None else item.error.to_json_object()
        return seq, END, json.dumps(error, separators=(",", ":")).encode()
    return seq, MESSAGE, item.SerializeToString()


def decode_item(kind: str, payload: bytes) -> QueueItem:
    """BadRow when the row cannot be read back."""
    if kind == MESSAGE:
        try:
            return pb.AgentServerMessage.FromString(payload)
        except DecodeError as error:
            raise BadRow(f"message does not decode: {error}") from error
    if kind == END:
        try:
            fields = json.loads(payload)
            return EndOfStream(None if not fields else _error(fields))
        except (ValueError, TypeError, KeyError, binascii.Error) as error:
            raise BadRow(f"end of stream does not decode: {error}") from error
    raise BadRow(f"unknown kind {kind!r}")


def _error(fields: dict[str, Any]) -> WireError:
    details = tuple(
        ErrorDetail(str(d["type"]), base64.b64decode(_padded(str(d["value"])), validate=True))
        for d in fields.get("details", ())
    )
    return WireError(Code(fields["code"]), str(fields.get("message", "")), details)


def _padded(value: str) -> str:
    return value + "=" * (-len(value) % 4)
