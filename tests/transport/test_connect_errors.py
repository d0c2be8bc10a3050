"""Connect errors on the wire: end-of-stream JSON, details, statuses, trailers."""

from __future__ import annotations

import base64
import json

import pytest

from cursor_byok.transport.connect.errors import (
    GRPC_STATUS,
    HTTP_STATUS,
    Code,
    EndStream,
    ErrorDetail,
    WireError,
    end_stream_json,
    grpc_web_trailers,
    http_status_for,
    unary_error_body,
)
from cursor_byok.transport.connect.framing import (
    EnvelopeDecoder,
    FramingError,
    encode_end_stream_envelope,
)
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from tests.transport.connect_parsers import (
    code_for_grpc_status,
    code_for_http_status,
    parse_end_stream,
    parse_grpc_web_trailers,
)


def _banner() -> error_details_pb2.ErrorDetails:
    return error_details_pb2.ErrorDetails(
        error=error_details_pb2.ErrorDetails.ERROR_PROVIDER_ERROR,
        details=error_details_pb2.CustomErrorDetails(
            title="Provider error", detail="upstream 529", is_retryable=True, show_request_id=True
        ),
        is_expected=True,
    )


def test_success_end_of_stream_is_an_empty_object() -> None:
    assert end_stream_json(EndStream()) == b"{}"
    assert parse_end_stream(b"{}") == EndStream()


def test_error_end_of_stream_carries_cursor_error_details_as_base64() -> None:
    error = WireError(Code.UNAVAILABLE, "provider failed", (ErrorDetail.of(_banner()),))
    payload = end_stream_json(EndStream(error))

    obj = json.loads(payload)
    assert obj["error"]["code"] == "unavailable"
    assert obj["error"]["message"] == "provider failed"
    (detail,) = obj["error"]["details"]
    assert detail["type"] == "aiserver.v1.ErrorDetails"
    padded = detail["value"] + "=" * (-len(detail["value"]) % 4)
    assert error_details_pb2.ErrorDetails.FromString(base64.b64decode(padded)) == _banner()


def test_error_end_of_stream_round_trips_through_an_envelope_split_anywhere() -> None:
    error = WireError(Code.INVALID_ARGUMENT, "bad model", (ErrorDetail.of(_banner()),))
    frame = encode_end_stream_envelope(end_stream_json(EndStream(error, {"x-trace": ["1"]})))
    decoder = EnvelopeDecoder()

    envelopes = decoder.feed(frame[:3]) + decoder.feed(frame[3:])
    decoder.finish()
    (end,) = envelopes
    parsed = parse_end_stream(end.payload)

    assert end.is_end_stream
    assert parsed.error == error
    assert parsed.metadata == {"x-trace": ["1"]}
    assert parsed.error.details[0].unpack(error_details_pb2.ErrorDetails) == _banner()


def test_padded_base64_details_are_accepted_too() -> None:
    raw = _banner().SerializeToString()
    text = json.dumps(
        {
            "error": {
                "code": "internal",
                "details": [
                    {"type": "aiserver.v1.ErrorDetails", "value": base64.b64encode(raw).decode()}
                ],
            }
        }
    )
    parsed = parse_end_stream(text.encode())
    assert parsed.error is not None
    assert parsed.error.details[0].value == raw


def test_unpacking_a_detail_as_the_wrong_type_fails() -> None:
    detail = ErrorDetail.of(_banner())
    with pytest.raises(ValueError, match=r"is aiserver\.v1\.ErrorDetails"):
        detail.unpack(error_details_pb2.CustomErrorDetails)


def test_an_unknown_code_reads_as_unknown() -> None:
    parsed = parse_end_stream(b'{"error":{"code":"teapot","message":"m"}}')
    assert parsed.error == WireError(Code.UNKNOWN, "m")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{", "not JSON"),
        (b"[]", "JSON object"),
        (b'{"error":"x"}', "must be a JSON object"),
        (b'{"error":{"code":"internal","details":[{"type":"t","value":"%%%"}]}}', "not base64"),
        (b'{"error":{"code":"internal","details":[{"value":""}]}}', "string 'type'"),
        (b'{"metadata":{"a":"b"}}', "lists of strings"),
    ],
)
def test_malformed_end_of_stream_is_a_clear_error(payload: bytes, message: str) -> None:
    with pytest.raises(FramingError, match=message):
        parse_end_stream(payload)


def test_every_code_has_the_connect_http_status() -> None:
    assert set(HTTP_STATUS) == set(Code)
    assert http_status_for(Code.CANCELED) == 499
    assert http_status_for(Code.INVALID_ARGUMENT) == 400
    assert http_status_for(Code.UNAVAILABLE) == 503
    assert http_status_for(Code.UNAUTHENTICATED) == 401
    assert http_status_for(Code.RESOURCE_EXHAUSTED) == 429


def test_bare_http_statuses_map_to_codes() -> None:
    assert code_for_http_status(401) == Code.UNAUTHENTICATED
    assert code_for_http_status(404) == Code.UNIMPLEMENTED
    assert code_for_http_status(503) == Code.UNAVAILABLE
    assert code_for_http_status(418) == Code.UNKNOWN


def test_unary_error_response_has_status_and_json_body() -> None:
    status, body = unary_error_body(WireError(Code.NOT_FOUND, "no such session"))
    assert status == 404
    assert json.loads(body) == {"code": "not_found", "message": "no such session"}


def test_grpc_web_trailers_round_trip() -> None:
    assert GRPC_STATUS[Code.UNAVAILABLE] == 14
    assert sorted(GRPC_STATUS.values()) == list(range(1, 17))

    ok = parse_grpc_web_trailers(grpc_web_trailers(None))
    assert ok["grpc-status"] == "0"
    assert code_for_grpc_status(int(ok["grpc-status"])) is None

    failed = parse_grpc_web_trailers(grpc_web_trailers(WireError(Code.INTERNAL, "50% ✗\nboom")))
    assert code_for_grpc_status(int(failed["grpc-status"])) == Code.INTERNAL
    assert failed["grpc-message"] == "50% ✗\nboom"


def test_malformed_grpc_web_trailers_are_a_clear_error() -> None:
    with pytest.raises(FramingError, match="malformed gRPC-Web trailer"):
        parse_grpc_web_trailers(b"grpc-status 0\r\n")
