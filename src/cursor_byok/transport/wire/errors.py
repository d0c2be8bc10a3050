"""Connect error codes, their HTTP statuses, and the error shapes on the wire.

A streaming call that already answered 200 can only report failure in its last
envelope: Connect's end-of-stream JSON (`{}` or `{"error": {...}}`), or
gRPC-Web's trailers block. A unary call reports it as a non-200 status with a
JSON body. Cursor draws its error banner from an `aiserver.v1.ErrorDetails`
carried in `details` as `{"type": <full name>, "value": <base64 bytes>}`.
"""

from __future__ import annotations

import base64
import binascii
import json
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from google.protobuf.message import Message

from cursor_byok.transport.wire.codec import compact_json
from cursor_byok.transport.wire.framing import FramingError

M = TypeVar("M", bound=Message)


class Code(StrEnum):
    CANCELED = "canceled"
    UNKNOWN = "unknown"
    INVALID_ARGUMENT = "invalid_argument"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    PERMISSION_DENIED = "permission_denied"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    FAILED_PRECONDITION = "failed_precondition"
    ABORTED = "aborted"
    OUT_OF_RANGE = "out_of_range"
    UNIMPLEMENTED = "unimplemented"
    INTERNAL = "internal"
    UNAVAILABLE = "unavailable"
    DATA_LOSS = "data_loss"
    UNAUTHENTICATED = "unauthenticated"


# Connect spec: the HTTP status of a unary error response for each code.
HTTP_STATUS: Mapping[Code, int] = {
    Code.CANCELED: 499,
    Code.UNKNOWN: 500,
    Code.INVALID_ARGUMENT: 400,
    Code.DEADLINE_EXCEEDED: 504,
    Code.NOT_FOUND: 404,
    Code.ALREADY_EXISTS: 409,
    Code.PERMISSION_DENIED: 403,
    Code.RESOURCE_EXHAUSTED: 429,
    Code.FAILED_PRECONDITION: 400,
    Code.ABORTED: 409,
    Code.OUT_OF_RANGE: 400,
    Code.UNIMPLEMENTED: 501,
    Code.INTERNAL: 500,
    Code.UNAVAILABLE: 503,
    Code.DATA_LOSS: 500,
    Code.UNAUTHENTICATED: 401,
}

# Connect spec: the code to assume when a response has an error status but no
# Connect error body (e.g. a proxy answered).
_CODE_FOR_BARE_STATUS: Mapping[int, Code] = {
    400: Code.INTERNAL,
    401: Code.UNAUTHENTICATED,
    403: Code.PERMISSION_DENIED,
    404: Code.UNIMPLEMENTED,
    429: Code.UNAVAILABLE,
    502: Code.UNAVAILABLE,
    503: Code.UNAVAILABLE,
    504: Code.UNAVAILABLE,
}

# gRPC numeric status codes, used by gRPC-Web trailers (`grpc-status`).
GRPC_STATUS: Mapping[Code, int] = {
    Code.CANCELED: 1,
    Code.UNKNOWN: 2,
    Code.INVALID_ARGUMENT: 3,
    Code.DEADLINE_EXCEEDED: 4,
    Code.NOT_FOUND: 5,
    Code.ALREADY_EXISTS: 6,
    Code.PERMISSION_DENIED: 7,
    Code.RESOURCE_EXHAUSTED: 8,
    Code.FAILED_PRECONDITION: 9,
    Code.ABORTED: 10,
    Code.OUT_OF_RANGE: 11,
    Code.UNIMPLEMENTED: 12,
    Code.INTERNAL: 13,
    Code.UNAVAILABLE: 14,
    Code.DATA_LOSS: 15,
    Code.UNAUTHENTICATED: 16,
}
_CODE_FOR_GRPC_STATUS: Mapping[int, Code] = {n: c for c, n in GRPC_STATUS.items()}


_CODE_BY_NAME: Mapping[str, Code] = {code.value: code for code in Code}


def http_status_for(code: Code) -> int:
    return HTTP_STATUS[code]


def code_for_http_status(status: int) -> Code:
    """The code implied by an HTTP error status that came without a Connect body."""
    return _CODE_FOR_BARE_STATUS.get(status, Code.UNKNOWN)


def code_for_grpc_status(status: int) -> Code | None:
    """None for 0 (OK); UNKNOWN for numbers outside the gRPC table."""
    if status == 0:
        return None
    return _CODE_FOR_GRPC_STATUS.get(status, Code.UNKNOWN)


@dataclass(frozen=True, slots=True)
class ErrorDetail:
    """A protobuf message attached to an error, kept as its type name and bytes."""

    type_name: str
    value: bytes

    @classmethod
    def of(cls, message: Message) -> ErrorDetail:
        return cls(message.DESCRIPTOR.full_name, message.SerializeToString())

    def unpack(self, message_type: type[M]) -> M:
        expected = message_type.DESCRIPTOR.full_name
        if self.type_name != expected:
            raise ValueError(f"error detail is {self.type_name}, not {expected}")
        return message_type.FromString(self.value)


@dataclass(frozen=True, slots=True)
class WireError:
    """A Connect error as it travels: code, human message, typed details."""

    code: Code
    message: str = ""
    details: tuple[ErrorDetail, ...] = field(default=())

    def to_json_object(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"code": self.code.value}
        if self.message:
            obj["message"] = self.message
        if self.details:
            obj["details"] = [
                # Connect writes base64 without padding; readers accept both.
                {"type": d.type_name, "value": base64.b64encode(d.value).decode().rstrip("=")}
                for d in self.details
            ]
        return obj

    @classmethod
    def from_json_object(cls, obj: object) -> WireError:
        if not isinstance(obj, dict):
            raise FramingError("Connect error must be a JSON object")
        raw_code = obj.get("code")
        # An unrecognised code is still an error; Connect says treat it as unknown.
        code = (
            _CODE_BY_NAME.get(raw_code, Code.UNKNOWN) if isinstance(raw_code, str) else Code.UNKNOWN
        )
        message = obj.get("message", "")
        if not isinstance(message, str):
            raise FramingError("Connect error message must be a string")
        details = tuple(_detail_from_json(d) for d in obj.get("details") or ())
        return cls(code, message, details)


def _detail_from_json(obj: object) -> ErrorDetail:
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise FramingError("Connect error detail needs a string 'type'")
    value = obj.get("value", "")
    if not isinstance(value, str):
        raise FramingError("Connect error detail 'value' must be base64 text")
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except binascii.Error as exc:
        raise FramingError(f"Connect error detail 'value' is not base64: {exc}") from exc
    return ErrorDetail(obj["type"], raw)


@dataclass(frozen=True, slots=True)
class EndStream:
    """The Connect end-of-stream message: success or an error, plus trailers."""

    error: WireError | None = None
    metadata: Mapping[str, Sequence[str]] = field(default_factory=dict)


def end_stream_json(end: EndStream) -> bytes:
    """Payload of the end-of-stream envelope: `{}` on success."""
    obj: dict[str, Any] = {}
    if end.error is not None:
        obj["error"] = end.error.to_json_object()
    if end.metadata:
        obj["metadata"] = {k: list(v) for k, v in end.metadata.items()}
    return compact_json(obj)


def parse_end_stream(payload: bytes) -> EndStream:
    try:
        obj = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FramingError(f"end-of-stream message is not JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise FramingError("end-of-stream message must be a JSON object")
    error = WireError.from_json_object(obj["error"]) if obj.get("error") is not None else None
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict) or not all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in metadata.values()
    ):
        raise FramingError("end-of-stream metadata must map names to lists of strings")
    return EndStream(error, metadata)


def unary_error_body(error: WireError) -> tuple[int, bytes]:
    """HTTP status and JSON body of a failed Connect unary call."""
    return http_status_for(error.code), compact_json(error.to_json_object())


def grpc_web_trailers(error: WireError | None) -> bytes:
    """The trailers block that ends a gRPC-Web response (the 0x80 envelope payload)."""
    if error is None:
        return b"grpc-status: 0\r\ngrpc-message: \r\n"
    message = urllib.parse.quote(error.message, safe=" !\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~")
    lines = [f"grpc-status: {GRPC_STATUS[error.code]}", f"grpc-message: {message}"]
    return ("\r\n".join(lines) + "\r\n").encode()


def parse_grpc_web_trailers(block: bytes) -> dict[str, str]:
    """Header names lower-cased; `grpc-message` percent-decoded."""
    try:
        text = block.decode("ascii")
    except UnicodeDecodeError as exc:
        raise FramingError(f"gRPC-Web trailers are not ASCII: {exc}") from exc
    trailers: dict[str, str] = {}
    for line in text.split("\r\n"):
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise FramingError(f"malformed gRPC-Web trailer line {line!r}")
        trailers[name.strip().lower()] = value.strip()
    if "grpc-message" in trailers:
        trailers["grpc-message"] = urllib.parse.unquote(trailers["grpc-message"])
    return trailers
