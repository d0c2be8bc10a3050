"""Connect error codes, their HTTP statuses, and the error shapes on the wire.

A streaming call that already answered 200 can only report failure in its last
envelope: Connect's end-of-stream JSON (`{}` or `{"error": {...}}`), or
gRPC-Web's trailers block. A unary call reports it as a non-200 status with a
JSON body. Cursor draws its error banner from an `aiserver.v1.ErrorDetails`
carried in `details` as `{"type": <full name>, "value": <base64 bytes>}`.
"""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from google.protobuf.message import Message

from cursor_byok.transport.connect.codec import compact_json
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb
from cursor_byok.transport.proto.aiserver.v1.error_details_pb2 import GrpcStatus

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


def http_status_for(code: Code) -> int:
    return HTTP_STATUS[code]


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


def unary_error_body(error: WireError) -> tuple[int, bytes]:
    """HTTP status and JSON body of a failed Connect unary call."""
    return http_status_for(error.code), compact_json(error.to_json_object())


def grpc_web_trailers(error: WireError | None) -> bytes:
    """The trailers block that ends a gRPC-Web response (the 0x80 envelope payload)."""
    if error is None:
        return b"grpc-status: 0\r\ngrpc-message: \r\n"
    message = urllib.parse.quote(error.message, safe=" !\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~")
    lines = [f"grpc-status: {GRPC_STATUS[error.code]}", f"grpc-message: {message}"]
    if error.details:
        lines.append(f"grpc-status-details-bin: {_status_details(error)}")
    return ("\r\n".join(lines) + "\r\n").encode()


def _status_details(error: WireError) -> str:
    """The `grpc-status-details-bin` value: a google.rpc.Status with the
    details as `Any`, base64 without padding (gRPC's binary header form)."""
    status = GrpcStatus(code=GRPC_STATUS[error.code], message=error.message)
    for detail in error.details:
        status.details.add(type_url=f"type.googleapis.com/{detail.type_name}", value=detail.value)
    return base64.b64encode(status.SerializeToString()).decode().rstrip("=")


def retryable(message: str, title: str, detail: str) -> WireError:
    """An `unavailable` error whose details tell the client to retry: it
    reconnects and resumes the turn rather than showing it as failed."""
    details = errors_pb.ErrorDetails(
        error=errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE,
        details=errors_pb.CustomErrorDetails(title=title, detail=detail, is_retryable=True),
        is_expected=True,
    )
    return WireError(Code.UNAVAILABLE, message, (ErrorDetail.of(details),))
