"""Connect / gRPC-Web envelopes: the 5-byte framing of every streamed message.

Both Cursor calls use it: RunSSE bodies in both directions, and BidiAppend
bodies under gRPC-Web (plain Connect unary bodies are bare; some clients
envelope them anyway, see `unwrap_unary_body`). An envelope is one flags byte,
a big-endian uint32 length and the payload. HTTP chunks split and merge
envelopes arbitrarily, so decoding is incremental.

Pure byte work: no I/O, no web framework. Every malformed input raises
`FramingError` with a message that says what was wrong.

Nothing is inflated until it is asked for (`Envelope.message`), and then in
steps, each step's room taken in a `Reservation` before it is inflated: a
body of many small gzip envelopes, each inflating to megabytes, costs what
its one message costs, and a message that would inflate past its limit or
past the memory budget is refused at that point, not after.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from dataclasses import dataclass
from typing import Final

from cursor_byok.transport.connect.reservation import Reservation

FLAG_COMPRESSED: Final = 0x01
FLAG_END_STREAM: Final = 0x02  # Connect: JSON end-of-stream message, the last envelope
FLAG_TRAILERS: Final = 0x80  # gRPC-Web: HTTP/1-style trailers block, the last envelope
HEADER_SIZE: Final = 5

# Large tool results (file reads, search output) ride in single messages; 64 MiB
# matches the cap a working peer server uses and still stops a runaway stream.
DEFAULT_MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024
FIRST_INFLATE_STEP: Final = 64 * 1024
LAST_INFLATE_STEP: Final = 1024 * 1024
"""Inflating takes room for 64 KiB first, then twice as much each step up
to 1 MiB: a small message reserves little, a big one in few steps."""
BIG_ENVELOPE: Final = 1024 * 1024
"""An envelope of this many bytes or more is written into a mapping of its
own as it arrives (see `EnvelopeDecoder._start_big`)."""

_HEADER = struct.Struct(">BI")
_KNOWN_FLAGS: Final = FLAG_COMPRESSED | FLAG_END_STREAM | FLAG_TRAILERS


class FramingError(ValueError):
    """The bytes are not a valid envelope stream (or body)."""


class MessageTooLargeError(FramingError):
    """A message exceeds the configured maximum size."""

    def __init__(
        self, size: int, limit: int, what: str = "message", *, cut_short: bool = False
    ) -> None:
        told = f"more than {limit}" if cut_short else str(size)  # cut short: size unknown
        super().__init__(f"{what} of {told} bytes exceeds the limit of {limit} bytes")
        self.size = size
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Envelope:
    """One envelope as it came: `payload` is still compressed when the flag
    says so; `message` inflates it."""

    flags: int
    payload: bytes

    def message(
        self, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, held: Reservation | None = None
    ) -> bytes:
        """The message, inflated if it was compressed (within `max_bytes`,
        each step's room taken in `held` first: NoRoom when there is none)."""
        if not self.flags & FLAG_COMPRESSED:
            return self.payload
        return inflate(self.payload, max_bytes=max_bytes, held=held)

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


def inflate(data: bytes, *, max_bytes: int, held: Reservation | None = None) -> bytes:
    """Inflate one gzip member in steps, taking room in `held` for each step
    before it is inflated (NoRoom when there is none) and giving back what a
    step did not use. MessageTooLargeError as soon as the output passes
    `max_bytes`: a bomb costs at most its limit, never its inflated size.
    On success `held` keeps the message's size; on failure it keeps nothing
    of this call."""
    held = held if held is not None else Reservation()
    inflater = zlib.decompressobj(wbits=31)
    pieces: list[bytes] = []
    size = taken = 0
    step = FIRST_INFLATE_STEP
    tail = data
    try:
        while not inflater.eof:
            room = min(step, max_bytes + 1 - size)
            held.take(room)
            taken += room
            try:
                piece = inflater.decompress(tail, room)
            except zlib.error as exc:
                raise FramingError(f"payload is not valid gzip: {exc}") from exc
            held.give_back(room - len(piece))
            taken -= room - len(piece)
            size += len(piece)
            if size > max_bytes:
                raise MessageTooLargeError(size, max_bytes, "decompressed message", cut_short=True)
            pieces.append(piece)
            tail = inflater.unconsumed_tail
            if not piece and not tail:
                break  # every byte read and nothing more comes out
            step = min(step * 2, LAST_INFLATE_STEP)
        if not inflater.eof:
            raise FramingError("payload is not valid gzip: the gzip stream is truncated")
        if inflater.unused_data:
            raise FramingError("payload is not valid gzip: trailing bytes after the gzip stream")
    except BaseException:
        held.give_back(taken)
        raise
    return b"".join(pieces)


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
    Envelopes come back as they were sent; `Envelope.message` inflates one.
    With `held`, an envelope's declared length is reserved as soon as its
    header arrives, before its payload is buffered (NoRoom when it does not
    fit); the caller gives it back with `handed_on` once it is done with the
    envelopes it got.
    """

    def __init__(
        self,
        *,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        allow_compressed: bool = True,
        held: Reservation | None = None,
    ) -> None:
        self._buffer = bytearray()
        self._max = max_message_bytes
        self._allow_compressed = allow_compressed
        self._ended = False
        self._held = held
        self._arriving = 0  # what is reserved for the envelope still arriving
        self._big: mmap.mmap | None = None  # a big envelope's payload so far
        self._flags = 0

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete envelope."""
        return len(self._buffer) + (0 if self._big is None else HEADER_SIZE + self._big.tell())

    @property
    def ended(self) -> bool:
        """True once an end-of-stream or trailers envelope was decoded."""
        return self._ended

    def feed(self, data: bytes) -> list[Envelope]:
        if data and self._ended:
            raise FramingError("data after the end-of-stream envelope")
        envelopes: list[Envelope] = []
        if self._big is not None:
            data = self._fill(data, envelopes)
            if self._big is not None:
                return envelopes
        self._buffer += data
        while len(self._buffer) >= HEADER_SIZE:
            flags, length = _HEADER.unpack_from(self._buffer)
            if not self._arriving:
                check_header(flags, length, self._max, self._allow_compressed)
                self._reserve(length)
            end = HEADER_SIZE + length
            if len(self._buffer) < end:
                if length >= BIG_ENVELOPE:
                    self._start_big(flags, length)
                break
            with memoryview(self._buffer) as view:  # one copy of the payload, not two
                payload = bytes(view[HEADER_SIZE:end])
            del self._buffer[:end]
            self._arrived(flags, payload, envelopes)
            if self._ended and self._buffer:
                raise FramingError("data after the end-of-stream envelope")
        return envelopes

    def close(self) -> None:
        """Let go of a big envelope still arriving (the stream is over)."""
        if self._big is not None:
            self._big.close()
            self._big = None

    def _arrived(self, flags: int, payload: bytes, envelopes: list[Envelope]) -> None:
        self._arriving = 0
        envelopes.append(Envelope(flags, payload))
        if flags & (FLAG_END_STREAM | FLAG_TRAILERS):
            self._ended = True

    def _start_big(self, flags: int, length: int) -> None:
        """A big envelope's payload goes into an anonymous mapping of its
        declared size as it arrives: a buffer grown a chunk at a time is
        copied to larger blocks again and again, and the blocks it leaves
        behind stay with the process; the mapping's pages are only there
        once written, and go back to the system when it is closed."""
        self._big = mmap.mmap(-1, length)
        with memoryview(self._buffer) as view:
            self._big.write(view[HEADER_SIZE:])
        self._flags = flags
        self._buffer.clear()

    def _fill(self, data: bytes, envelopes: list[Envelope]) -> bytes:
        """Write into the big envelope; what follows it once it is whole."""
        big = self._big
        assert big is not None
        missing = len(big) - big.tell()
        with memoryview(data) as view:
            big.write(view[:missing])
        if len(data) < missing:
            return b""
        payload = big[:]
        self.close()
        self._arrived(self._flags, payload, envelopes)
        rest = data[missing:]
        if self._ended and rest:
            raise FramingError("data after the end-of-stream envelope")
        return rest

    def handed_on(self) -> None:
        """The envelopes fed out so far are done with: give back what was
        reserved for them, and for what was inflated of them in the same
        reservation, keeping the room of the envelope still arriving."""
        if self._held is not None:
            self._held.keep(self._arriving)

    def finish(self) -> None:
        """The body ended: any partial envelope left over is an error."""
        if self._big is not None:
            got, length = self._big.tell(), len(self._big)
            raise FramingError(f"truncated envelope: {got} of {length} payload bytes")
        if self._buffer:
            if len(self._buffer) < HEADER_SIZE:
                raise FramingError(
                    f"truncated envelope: {len(self._buffer)} of {HEADER_SIZE} header bytes"
                )
            _, length = _HEADER.unpack_from(self._buffer)
            got = len(self._buffer) - HEADER_SIZE
            raise FramingError(f"truncated envelope: {got} of {length} payload bytes")

    def _reserve(self, length: int) -> None:
        """Room for a payload whose header just arrived (at least one byte,
        so an empty envelope still marks the header as seen)."""
        size = max(length, 1)
        if self._held is not None:
            self._held.take(size)
        self._arriving = size


def check_header(flags: int, length: int, max_bytes: int, allow_compressed: bool = True) -> None:
    if flags & ~_KNOWN_FLAGS:
        raise FramingError(f"unknown envelope flags 0x{flags:02x}")
    if flags & FLAG_END_STREAM and flags & FLAG_TRAILERS:
        raise FramingError(f"envelope flags 0x{flags:02x} mix Connect and gRPC-Web endings")
    if flags & FLAG_COMPRESSED and not allow_compressed:
        raise FramingError("compressed envelope but no compression was negotiated")
    if length > max_bytes:
        raise MessageTooLargeError(length, max_bytes)


def decode_envelopes(
    body: bytes, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
) -> list[Envelope]:
    """Decode a complete body (e.g. an enveloped unary request)."""
    decoder = EnvelopeDecoder(max_message_bytes=max_message_bytes)
    envelopes = decoder.feed(body)
    decoder.finish()
    return envelopes


def only_message(
    body: bytes,
    *,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    held: Reservation | None = None,
) -> bytes:
    """The one message of a streamed request body that takes one (a RunSSE
    request), inflated. Only headers are read until the message is known to
    be the only one (an end-of-stream envelope may follow it): a second is
    refused before anything is inflated."""
    found: tuple[int, int, int] | None = None
    offset = 0
    while offset < len(body):
        if len(body) - offset < HEADER_SIZE:
            left = len(body) - offset
            raise FramingError(f"truncated envelope: {left} of {HEADER_SIZE} header bytes")
        flags, length = _HEADER.unpack_from(body, offset)
        check_header(flags, length, max_message_bytes)
        start, offset = offset + HEADER_SIZE, offset + HEADER_SIZE + length
        if offset > len(body):
            raise FramingError(f"truncated envelope: {len(body) - start} of {length} payload bytes")
        if flags & (FLAG_END_STREAM | FLAG_TRAILERS):
            if offset < len(body):
                raise FramingError("data after the end-of-stream envelope")
            break
        if found is not None:
            raise FramingError(
                f"the request takes one message; the body carries a second at byte {start - 5}"
            )
        found = (flags, start, offset)
    if found is None:
        raise FramingError("the request carries no message")
    flags, start, end = found
    return Envelope(flags, body[start:end]).message(max_message_bytes, held)


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


def unwrap_unary_body(
    body: bytes,
    *,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    held: Reservation | None = None,
) -> bytes:
    """The message bytes of a unary request body, framed or bare (a framed
    one may be gzip-compressed per message, inflated with room in `held`)."""
    if len(body) > max_message_bytes + HEADER_SIZE:
        raise MessageTooLargeError(len(body), max_message_bytes)
    if looks_enveloped(body):
        flags, length = _HEADER.unpack_from(body)
        check_header(flags, length, max_message_bytes)
        return Envelope(flags, body[HEADER_SIZE:]).message(max_message_bytes, held)
    if len(body) > max_message_bytes:
        raise MessageTooLargeError(len(body), max_message_bytes)
    return body
