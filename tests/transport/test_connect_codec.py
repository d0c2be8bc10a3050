"""Protobuf binary and Connect JSON codecs, and what a content type implies."""

from __future__ import annotations

import json

import pytest

from cursor_byok.transport.connect.codec import (
    Codec,
    CodecError,
    ContentType,
    decode_message,
    encode_message,
    parse_content_type,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2


def _append() -> bidi_pb2.BidiAppendRequest:
    return bidi_pb2.BidiAppendRequest(
        data="3a00", request_id=bidi_pb2.BidiRequestId(request_id="r-1"), append_seqno=3
    )


def test_connect_json_writes_camel_case_and_int64_as_string() -> None:
    encoded = encode_message(_append(), Codec.JSON)
    assert json.loads(encoded) == {
        "data": "3a00",
        "requestId": {"requestId": "r-1"},
        "appendSeqno": "3",
    }


@pytest.mark.parametrize("codec", list(Codec))
def test_both_codecs_round_trip(codec: Codec) -> None:
    message = _append()
    assert decode_message(encode_message(message, codec), bidi_pb2.BidiAppendRequest, codec) == (
        message
    )


def test_json_reader_ignores_unknown_names_and_accepts_proto_names() -> None:
    text = b'{"request_id":{"request_id":"r-1"},"append_seqno":"3","data":"3a00","extra":1}'
    assert decode_message(text, bidi_pb2.BidiAppendRequest, Codec.JSON) == _append()


def test_json_bytes_fields_are_base64() -> None:
    blob = agent_pb2.SetBlobArgs(blob_id=b"\x01\x02", blob_data=b"{}")
    assert json.loads(encode_message(blob, Codec.JSON)) == {"blobId": "AQI=", "blobData": "e30="}


@pytest.mark.parametrize(
    ("data", "codec", "message"),
    [
        (b"\xff\xff\xff", Codec.PROTO, "not a valid aiserver.v1.BidiAppendRequest protobuf"),
        (b"{not json", Codec.JSON, "not a valid aiserver.v1.BidiAppendRequest JSON"),
        (b'{"appendSeqno":"x"}', Codec.JSON, "JSON"),
        (b"\xff", Codec.JSON, "JSON"),
    ],
)
def test_undecodable_payloads_raise_codec_error(data: bytes, codec: Codec, message: str) -> None:
    with pytest.raises(CodecError, match=message):
        decode_message(data, bidi_pb2.BidiAppendRequest, codec)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("application/connect+proto", ContentType(Codec.PROTO, grpc_web=False, streaming=True)),
        ("application/connect+json", ContentType(Codec.JSON, grpc_web=False, streaming=True)),
        ("application/proto", ContentType(Codec.PROTO, grpc_web=False, streaming=False)),
        (
            "Application/JSON; charset=utf-8",
            ContentType(Codec.JSON, grpc_web=False, streaming=False),
        ),
        ("application/grpc-web+proto", ContentType(Codec.PROTO, grpc_web=True, streaming=True)),
        ("application/grpc-web", ContentType(Codec.PROTO, grpc_web=True, streaming=True)),
        ("text/plain", None),
        (None, None),
    ],
)
def test_content_types_select_codec_and_protocol(
    header: str | None, expected: ContentType | None
) -> None:
    assert parse_content_type(header) == expected
