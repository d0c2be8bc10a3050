"""Readers of what the server writes (Connect end-of-stream, error codes,
gRPC-Web trailers). The server only writes these; the tests read them back,
so the readers live with the tests."""

from __future__ import annotations

import base64
import binascii
import json
import urllib.parse
from collections.abc import Mapping

from google.protobuf.message import DecodeError

from cursor_byok.transport.connect.errors import (
    GRPC_STATUS,
    Code,
    EndStream,
    ErrorDetail,
    WireError,
)
from cursor_byok.transport.connect.framing import FramingError
from cursor_byok.transport.proto.aiserver.v1.error_details_pb2 import GrpcStatus

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


_CODE_FOR_GRPC_STATUS: Mapping[int, Code] = {n: c for c, n in GRPC_STATUS.items()}


_CODE_BY_NAME: Mapping[str, Code] = {code.value: code for code in Code}


def code_for_http_status(status: int) -> Code:
    """The code implied by an HTTP error status that came without a Connect body."""
    return _CODE_FOR_BARE_STATUS.get(status, Code.UNKNOWN)


def code_for_grpc_status(status: int) -> Code | None:
    """None for 0 (OK); UNKNOWN for numbers outside the gRPC table."""
    if status == 0:
        return None
    return _CODE_FOR_GRPC_STATUS.get(status, Code.UNKNOWN)


def error_from_json(obj: object) -> WireError:
    if not isinstance(obj, dict):
        raise FramingError("Connect error must be a JSON object")
    raw_code = obj.get("code")
    # An unrecognised code is still an error; Connect says treat it as unknown.
    code = _CODE_BY_NAME.get(raw_code, Code.UNKNOWN) if isinstance(raw_code, str) else Code.UNKNOWN
    message = obj.get("message", "")
    if not isinstance(message, str):
        raise FramingError("Connect error message must be a string")
    details = tuple(_detail_from_json(d) for d in obj.get("details") or ())
    return WireError(code, message, details)


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


def parse_end_stream(payload: bytes) -> EndStream:
    try:
        obj = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FramingError(f"end-of-stream message is not JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise FramingError("end-of-stream message must be a JSON object")
    error = error_from_json(obj["error"]) if obj.get("error") is not None else None
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict) or not all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in metadata.values()
    ):
        raise FramingError("end-of-stream metadata must map names to lists of strings")
    return EndStream(error, metadata)


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


def details_from_grpc_status(value: str) -> tuple[ErrorDetail, ...]:
    """The details of a `grpc-status-details-bin` trailer value."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        status = GrpcStatus.FromString(raw)
    except (binascii.Error, DecodeError) as exc:
        raise FramingError(f"grpc-status-details-bin does not decode: {exc}") from exc
    return tuple(ErrorDetail(d.type_url.rpartition("/")[2], d.value) for d in status.details)
