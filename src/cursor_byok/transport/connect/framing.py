"""Connect / gRPC-Web envelopes: the 5-byte framing of every streamed message.

Both Cursor calls use it: RunSSE bodies in both directions, and BidiAppend
bodies under gRPC-Web (plain Connect unary bodies are bare; some clients
envelope them anyway, see `unwrap_unary_body`). An envelope is one flags byte,
a big-endian uint32 length and the payload. HTTP chunks split and merge
envelopes arbitrarily, so decoding is incremental.

Pure byte work: no I/O, no web framework. Every malformed input raises
`FramingError` with a message that says what was wrong.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import Final

FLAG_COMPRESSED: Final = 0x01
FLAG_END_STREAM: Final = 0x02  # Connect: JSON end-of-stream message, the last envelope
FLAG_TRAILERS: Final = 0x80  # gRPC-Web: HTTP/1-style trailers block, the last envelope
HEADER_SIZE: Final = 5

# Large tool results (file reads, search output) ride in single messages; 64 MiB
# matches the cap a working peer server uses and still stops a runaway stream.
DEFAULT_MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024

_HEADER = struct.Struct(">BI")
_KNOWN_FLAGS: Final = FLAG_COMPRESSED | FLAG_END_STREAM | FLAG_TRAILERS


class FramingError(ValueError):
    """The bytes are not a valid envelope stream (or body)."""


class MessageTooLargeError(FramingError):
    """A message exceeds the configured maximum size."""

    def __init__(self, size: int, limit: int, what: str = "message") -> None:
        super().__init__(f"{what} of {size} bytes exceeds the limit of {limit} bytes")
        self.size = size
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Envelope:
    """One decoded envelope; `payload` is already decompressed."""

    flags: int
    payload: bytes

    @property
    def is_end_stream(self) -> bool:
        return bool(self.flags & FLAG_END_STREAM)

    @property
    def is_trailers(self) -> bool:
        return bool(self.flags & FLAG_TRAILERS)

    @property
    def was_compressed(self) -> bool:
        return bool(self.flags & FLAG_COMPRESSED)


def gzip_compress(data: bytes) -> bytes:
    """Gzip with a fixed header (mtime 0) so equal inputs give equal bytes."""
    compressor = zlib.compressobj(wbits=31)
    return compressor.compress(data) + compressor.flush()


def gzip_decompress(data: bytes, *, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> bytes:
    """Inflate one gzip member, refusing output beyond `max_bytes` (no zip bombs)."""
    decompressor = zlib.decompressobj(wbits=31)
    try:
        out = decompressor.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise FramingError(f"payload is not valid gzip: {exc}") from exc
    if len(out) > max_bytes or decompressor.unconsumed_tail:
        raise MessageTooLargeError(len(out), max_bytes, "decompressed message")
    if not decompressor.eof:
        raise FramingError("payload is not valid gzip: the gzip stream is truncated")
    if decompressor.unused_data:
        raise FramingError("payload is not valid gzip: trailing bytes after the gzip stream")
    return out


def encode_envelope(
    payload: bytes,
    *,
    flags: int = 0,
    compress: bool = False,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> bytes:
    """Frame one payload. `compress` gzips it and sets the compressed flag."""
    if flags & ~_KNOWN_FLAGS or flags & FLAG_COMPRESSED:
        raise ValueError(f"invalid envelope flags 0x{flags:02x} (use compress= for gzip)")
    if len(payload) > max_message_bytes:
        raise MessageTooLargeError(len(payload), max_message_bytes)
    if compress:
        payload = gzip_compress(payload)
        flags |= FLAG_COMPRESSED
    return _HEADER.pack(flags, len(payload)) + payload


def encode_end_stream_envelope(json_payload: bytes) -> bytes:
    """Frame a Connect end-of-stream message (see `connect_errors.end_stream_json`)."""
    return encode_envelope(json_payload, flags=FLAG_END_STREAM)


def encode_trailers_envelope(trailers_block: bytes) -> bytes:
    """Frame a gRPC-Web trailers block (see `connect_errors.grpc_web_trailers`)."""
    return encode_envelope(trailers_block, flags=FLAG_TRAILERS)


class EnvelopeDecoder:
    """Incremental decoder: feed any slices of the body, get whole envelopes back.

    After an end-of-stream (or trailers) envelope nothing else may follow; the
    caller checks `finish()` when the body ends, which rejects a truncated tail.
    Compressed envelopes are inflated with gzip, the only encoding Cursor uses.
    """

    def __init__(
        self,
        *,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        allow_compressed: bool = True,
    ) -> None:
        self._buffer = bytearray()
        self._max = max_message_bytes
        self._allow_compressed = allow_compressed
        self._ended = False

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete envelope."""
        return len(self._buffer)

    @property
    def ended(self) -> bool:
        """True once an end-of-stream or trailers envelope was decoded."""
        return self._ended

    def feed(self, data: bytes) -> list[Envelope]:
        if data and self._ended:
            raise FramingError("data after the end-of-stream envelope")
        self._buffer += data
        envelopes: list[Envelope] = []
        while len(self._buffer) >= HEADER_SIZE:
            flags, length = _HEADER.unpack_from(self._buffer)
            self._check_header(flags, length)
            end = HEADER_SIZE + length
            if len(self._buffer) < end:
                break
            payload = bytes(self._buffer[HEADER_SIZE:end])
            del self._buffer[:end]
            if flags & FLAG_COMPRESSED:
                payload = gzip_decompress(payload, max_bytes=self._max)
            envelopes.append(Envelope(flags, payload))
            if flags & (FLAG_END_STREAM | FLAG_TRAILERS):
                self._ended = True
                if self._buffer:
                    raise FramingError("data after the end-of-stream envelope")
        return envelopes

    def finish(self) -> None:
        """The body ended: any partial envelope left over is an error."""
        if self._buffer:
            if len(self._buffer) < HEADER_SIZE:
                raise FramingError(
                    f"truncated envelope: {len(self._buffer)} of {HEADER_SIZE} header bytes"
                )
            _, length = _HEADER.unpack_from(self._buffer)
            got = len(self._buffer) - HEADER_SIZE
            raise FramingError(f"truncated envelope: {got} of {length} payload bytes")

    def _check_header(self, flags: int, length: int) -> None:
        if flags & ~_KNOWN_FLAGS:
            raise FramingError(f"unknown envelope flags 0x{flags:02x}")
        if flags & FLAG_END_STREAM and flags & FLAG_TRAILERS:
            raise FramingError(f"envelope flags 0x{flags:02x} mix Connect and gRPC-Web endings")
        if flags & FLAG_COMPRESSED and not self._allow_compressed:
            raise FramingError("compressed envelope but no compression was negotiated")
        if length > self._max:
            raise MessageTooLargeError(length, self._max)


def decode_envelopes(
    body: bytes, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
) -> list[Envelope]:
    """Decode a complete body (e.g. an enveloped unary request)."""
    decoder = EnvelopeDecoder(max_message_bytes=max_message_bytes)
    envelopes = decoder.feed(body)
    decoder.finish()
    return envelopes


def looks_enveloped(body: bytes) -> bool:
    """Whether a unary body is one data envelope rather than a bare message.

    Cursor's unary bodies are bare under Connect and enveloped under gRPC-Web,
    and some clients envelope Connect unary bodies too. A bare protobuf message
    can also start with bytes that look like a header, so the length must match
    the body exactly.
    """
    if len(body) < HEADER_SIZE:
        return False
    flags, length = _HEADER.unpack_from(body)
    return bool(flags & ~FLAG_COMPRESSED == 0) and length == len(body) - HEADER_SIZE


def unwrap_unary_body(body: bytes, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> bytes:
    """The message bytes of a unary request body, framed or bare (a framed
    one may be gzip-compressed per message)."""
    if len(body) > max_message_bytes + HEADER_SIZE:
        raise MessageTooLargeError(len(body), max_message_bytes)
    if looks_enveloped(body):
        (envelope,) = decode_envelopes(body, max_message_bytes=max_message_bytes)
        return envelope.payload
    if len(body) > max_message_bytes:
        raise MessageTooLargeError(len(body), max_message_bytes)
    return body
