"""Message codecs of the Connect protocol: protobuf binary and Connect JSON.

The content type of a request picks the codec and whether the call speaks
Connect or gRPC-Web; responses mirror it. Connect JSON is protobuf's canonical
JSON mapping: lowerCamelCase names, 64-bit integers as strings
(`"appendSeqno":"3"`), bytes as base64. Readers also accept the proto field
names (`append_seqno`) and ignore unknown names, as tolerant peers do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from operator import methodcaller
from typing import TypeVar

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

M = TypeVar("M", bound=Message)


class Codec(Enum):
    PROTO = "proto"
    JSON = "json"


class CodecError(ValueError):
    """A payload does not decode as the expected message."""


@dataclass(frozen=True, slots=True)
class ContentType:
    """What a request's content type says about the call."""

    codec: Codec
    grpc_web: bool  # gRPC-Web: enveloped unary bodies, trailers instead of end-of-stream
    streaming: bool  # Connect streaming (enveloped) rather than Connect unary (bare)


_CONTENT_TYPES: dict[str, ContentType] = {
    "application/proto": ContentType(Codec.PROTO, grpc_web=False, streaming=False),
    "application/json": ContentType(Codec.JSON, grpc_web=False, streaming=False),
    "application/connect+proto": ContentType(Codec.PROTO, grpc_web=False, streaming=True),
    "application/connect+json": ContentType(Codec.JSON, grpc_web=False, streaming=True),
    "application/grpc-web": ContentType(Codec.PROTO, grpc_web=True, streaming=True),
    "application/grpc-web+proto": ContentType(Codec.PROTO, grpc_web=True, streaming=True),
    "application/grpc-web+json": ContentType(Codec.JSON, grpc_web=True, streaming=True),
}


def parse_content_type(header: str | None) -> ContentType | None:
    """None when the content type is not one of the Connect / gRPC-Web ones."""
    if not header:
        return None
    media_type = header.split(";", 1)[0].strip().lower()
    return _CONTENT_TYPES.get(media_type)


def encode_message(message: Message, codec: Codec) -> bytes:
    if codec is Codec.PROTO:
        return message.SerializeToString()
    return compact_json(json_format.MessageToDict(message))


def message_encoder(codec: Codec) -> Callable[[Message], bytes]:
    """`encode_message` with the codec chosen once, for a stream that encodes
    every message alike: for protobuf, the message's own serializer, with no
    Python call of ours per message."""
    if codec is Codec.PROTO:
        return _serialize
    return _encode_json


_serialize: Callable[[Message], bytes] = methodcaller("SerializeToString")


def _encode_json(message: Message) -> bytes:
    return encode_message(message, Codec.JSON)


def compact_json(obj: object) -> bytes:
    """The JSON bytes of every Connect body: no whitespace, UTF-8."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def decode_message(data: bytes, message_type: type[M], codec: Codec) -> M:
    if codec is Codec.PROTO:
        try:
            return message_type.FromString(data)
        except DecodeError as exc:
            name = message_type.DESCRIPTOR.full_name
            raise CodecError(f"not a valid {name} protobuf message: {exc}") from exc
    try:
        text = data.decode("utf-8")
        return json_format.Parse(text, message_type(), ignore_unknown_fields=True)
    except (UnicodeDecodeError, json_format.ParseError) as exc:
        name = message_type.DESCRIPTOR.full_name
        raise CodecError(f"not a valid {name} JSON message: {exc}") from exc
