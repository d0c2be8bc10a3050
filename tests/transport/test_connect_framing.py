"""Envelope framing: split anywhere, compression, size limits, malformed input."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cursor_byok.transport.connect.framing import (
    FLAG_COMPRESSED,
    FLAG_END_STREAM,
    FLAG_TRAILERS,
    LAST_INFLATE_STEP,
    Envelope,
    EnvelopeDecoder,
    FramingError,
    MessageTooLargeError,
    decode_envelopes,
    encode_end_stream_envelope,
    encode_envelope,
    gzip_compress,
    looks_enveloped,
    only_message,
    unwrap_unary_body,
)
from cursor_byok.transport.connect.reservation import NoRoom, Reservation
from cursor_byok.transport.proto.agent.v1 import agent_pb2

MiB = 1024 * 1024
PAYLOADS = [b"", b"\x0a\x02\x6a\x00", b"x" * 300, bytes(range(256)) * 5]


def _stream(compress: bool = False) -> bytes:
    body = b"".join(encode_envelope(p, compress=compress) for p in PAYLOADS)
    return body + encode_end_stream_envelope(b"{}")


def test_a_documented_runsse_frame_has_the_documented_bytes() -> None:
    heartbeat = bytes.fromhex("0a026a00")  # reference.md §1.9
    assert encode_envelope(heartbeat).hex() == "00000000040a026a00"
    assert encode_end_stream_envelope(b"{}").hex() == "02000000027b7d"


@given(cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12))
def test_a_stream_split_at_any_points_decodes_to_the_same_envelopes(cuts: list[int]) -> None:
    body = _stream()
    points = sorted({c % (len(body) + 1) for c in cuts})
    decoder = EnvelopeDecoder()
    got: list[Envelope] = []
    start = 0
    for point in [*points, len(body)]:
        got += decoder.feed(body[start:point])
        start = point
    decoder.finish()

    assert [e.payload for e in got] == [*PAYLOADS, b"{}"]
    assert [e.is_end_stream for e in got] == [False] * len(PAYLOADS) + [True]


def test_byte_by_byte_feeding_holds_back_partial_envelopes() -> None:
    body = encode_envelope(b"hello")
    decoder = EnvelopeDecoder()
    for i in range(len(body) - 1):
        assert decoder.feed(body[i : i + 1]) == []
    assert decoder.buffered == len(body) - 1
    assert decoder.feed(body[-1:]) == [Envelope(0, b"hello")]
    assert decoder.buffered == 0


def test_compressed_envelopes_are_inflated_when_their_message_is_asked_for() -> None:
    envelopes = decode_envelopes(_stream(compress=True))

    assert [e.message() for e in envelopes] == [*PAYLOADS, b"{}"]
    assert all(e.was_compressed for e in envelopes[:-1])
    assert envelopes[0].payload == gzip_compress(PAYLOADS[0])  # as sent until then
    assert encode_envelope(b"a" * 1000, compress=True)[0] == FLAG_COMPRESSED


def test_compressed_envelope_is_refused_when_compression_was_not_negotiated() -> None:
    decoder = EnvelopeDecoder(allow_compressed=False)
    with pytest.raises(FramingError, match="no compression was negotiated"):
        decoder.feed(encode_envelope(b"abc", compress=True))


def test_bad_gzip_in_a_compressed_envelope_is_a_clear_error() -> None:
    body = bytes([FLAG_COMPRESSED, 0, 0, 0, 4]) + b"nope"
    (envelope,) = decode_envelopes(body)
    with pytest.raises(FramingError, match="not valid gzip"):
        envelope.message()


def test_truncated_gzip_is_a_clear_error() -> None:
    gz = gzip_compress(b"payload" * 50)[:-6]
    body = bytes([FLAG_COMPRESSED]) + len(gz).to_bytes(4, "big") + gz
    (envelope,) = decode_envelopes(body)
    with pytest.raises(FramingError, match="truncated"):
        envelope.message()


def test_an_oversized_message_is_rejected_from_its_header_alone() -> None:
    decoder = EnvelopeDecoder(max_message_bytes=1024)
    header = bytes([0]) + (1025).to_bytes(4, "big")
    with pytest.raises(MessageTooLargeError, match="1025 bytes exceeds the limit of 1024"):
        decoder.feed(header)


def test_an_oversized_message_is_not_encoded() -> None:
    with pytest.raises(MessageTooLargeError):
        encode_envelope(b"x" * 11, max_message_bytes=10)


def test_a_gzip_bomb_is_rejected_by_its_inflated_size() -> None:
    bomb = gzip_compress(b"\0" * 100_000)
    body = bytes([FLAG_COMPRESSED]) + len(bomb).to_bytes(4, "big") + bomb
    (envelope,) = decode_envelopes(body, max_message_bytes=10_000)
    with pytest.raises(MessageTooLargeError, match="decompressed message of more than 10000"):
        envelope.message(10_000)


@pytest.mark.parametrize("flags", [0x04, 0x10, 0x40, FLAG_END_STREAM | FLAG_TRAILERS])
def test_unknown_or_contradictory_flags_are_rejected(flags: int) -> None:
    with pytest.raises(FramingError, match="flags"):
        decode_envelopes(bytes([flags, 0, 0, 0, 0]))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"\x00\x00", "2 of 5 header bytes"),
        (b"\x00\x00\x00\x00\x05abc", "3 of 5 payload bytes"),
    ],
)
def test_a_truncated_stream_is_reported_at_finish(body: bytes, message: str) -> None:
    decoder = EnvelopeDecoder()
    assert decoder.feed(body) == []
    with pytest.raises(FramingError, match=message):
        decoder.finish()


def test_nothing_may_follow_the_end_of_stream_envelope() -> None:
    body = encode_end_stream_envelope(b"{}") + encode_envelope(b"late")
    with pytest.raises(FramingError, match="after the end-of-stream"):
        decode_envelopes(body)

    decoder = EnvelopeDecoder()
    decoder.feed(encode_end_stream_envelope(b"{}"))
    assert decoder.ended
    with pytest.raises(FramingError, match="after the end-of-stream"):
        decoder.feed(b"\x00")


def test_grpc_web_trailers_envelope_ends_the_stream() -> None:
    body = encode_envelope(b"m") + encode_envelope(b"grpc-status: 0\r\n", flags=FLAG_TRAILERS)
    envelopes = decode_envelopes(body)
    assert envelopes[-1].is_trailers
    assert envelopes[-1].payload == b"grpc-status: 0\r\n"


def test_unary_body_is_accepted_bare_or_enveloped_and_compressed_or_not() -> None:
    append = agent_pb2.AgentClientMessage(client_heartbeat={}).SerializeToString()
    framed = encode_envelope(append)

    assert unwrap_unary_body(append) == append
    assert unwrap_unary_body(framed) == append
    assert unwrap_unary_body(encode_envelope(append, compress=True)) == append


def test_a_bare_message_that_starts_like_a_header_is_not_mistaken_for_one() -> None:
    # A length that does not match the body exactly means "bare message".
    bare = b"\x00\x00\x00\x00\x09abc"
    assert not looks_enveloped(bare)
    assert unwrap_unary_body(bare) == bare


def test_unary_body_errors_are_clear() -> None:
    with pytest.raises(FramingError, match="not valid gzip"):
        unwrap_unary_body(b"\x01\x00\x00\x00\x08not gzip")  # a compressed envelope
    with pytest.raises(MessageTooLargeError):
        unwrap_unary_body(b"x" * 100, max_message_bytes=10)


def test_gzip_output_is_deterministic_and_standard() -> None:
    assert gzip_compress(b"abc") == gzip_compress(b"abc")
    assert zlib.decompress(gzip_compress(b"abc"), wbits=31) == b"abc"


@dataclass
class Room:
    """A room of `size` bytes that remembers the most it ever held."""

    size: int
    used: int = 0
    peak: int = 0

    def reserve(self, size: int) -> bool:
        if self.used + size > self.size:
            return False
        self.used += size
        self.peak = max(self.peak, self.used)
        return True

    def unreserve(self, size: int) -> None:
        self.used -= size


def compressed(payload: bytes) -> Envelope:
    return Envelope(FLAG_COMPRESSED, gzip_compress(payload))


def test_inflating_holds_the_message_in_the_reservation_and_no_more() -> None:
    room = Room(64 * MiB)
    held = Reservation(room)
    message = bytes(range(256)) * 20_000  # 5 MB, several steps
    assert compressed(message).message(8 * MiB, held) == message
    assert held.held == room.used == len(message)
    assert room.peak <= len(message) + LAST_INFLATE_STEP
    held.release()
    assert room.used == 0


def test_a_bomb_is_refused_at_its_limit_having_held_no_more_than_the_limit() -> None:
    room = Room(1024 * MiB)
    held = Reservation(room)
    bomb = compressed(b"\0" * 256 * MiB)
    assert len(bomb.payload) < 300_000
    with pytest.raises(MessageTooLargeError, match="of more than 4194304 bytes"):
        bomb.message(4 * MiB, held)
    assert room.peak <= 4 * MiB + 1 and room.used == 0 and held.held == 0


def test_inflating_past_the_room_is_refused_and_keeps_nothing() -> None:
    room = Room(2 * MiB)
    held = Reservation(room)
    held.take(1000)  # what the request already holds stays held
    with pytest.raises(NoRoom, match="memory budget"):
        compressed(b"\0" * 3 * MiB).message(8 * MiB, held)
    assert room.used == held.held == 1000


def test_a_decoder_reserves_an_envelope_when_its_header_arrives() -> None:
    room = Room(10_000)
    held = Reservation(room)
    decoder = EnvelopeDecoder(held=held)
    body = encode_envelope(b"x" * 6000)
    assert decoder.feed(body[:5]) == []
    assert room.used == 6000  # before a byte of the payload
    (envelope,) = decoder.feed(body[5:] + encode_envelope(b"y" * 3000)[:5])
    assert envelope.payload == b"x" * 6000
    assert room.used == 9000  # the one handed out and the next one arriving
    decoder.handed_on()
    assert room.used == 3000
    with pytest.raises(NoRoom):
        EnvelopeDecoder(held=Reservation(Room(100))).feed(body[:5])


def test_a_body_of_one_message_gives_it_and_a_second_is_refused_before_inflating() -> None:
    first = encode_envelope(b"the message", compress=True)
    bomb = encode_envelope(b"\0" * 64 * MiB, compress=True)
    assert only_message(first + encode_end_stream_envelope(b"{}")) == b"the message"
    room = Room(1024 * MiB)
    with pytest.raises(FramingError, match="takes one message; the body carries a second"):
        only_message(first + bomb * 100, held=Reservation(room))
    assert room.peak == 0
    with pytest.raises(FramingError, match="carries no message"):
        only_message(encode_end_stream_envelope(b"{}"))
    with pytest.raises(FramingError, match="truncated envelope"):
        only_message(first[:-1])


@given(cuts=st.lists(st.integers(min_value=0, max_value=3 * MiB), max_size=20))
def test_a_big_envelope_split_anywhere_decodes_whole(cuts: list[int]) -> None:
    big = bytes(range(256)) * (3 * MiB // 256)
    body = encode_envelope(b"before") + encode_envelope(big) + encode_envelope(b"after")
    body += encode_end_stream_envelope(b"{}")
    decoder = EnvelopeDecoder()
    got: list[Envelope] = []
    start = 0
    for point in [*sorted({c % (len(body) + 1) for c in cuts}), len(body)]:
        got += decoder.feed(body[start:point])
        start = point
    decoder.finish()
    assert [e.payload for e in got] == [b"before", big, b"after", b"{}"]
    assert decoder.buffered == 0 and decoder.ended


def test_a_big_envelope_cut_short_is_reported_at_finish() -> None:
    body = encode_envelope(b"x" * 2 * MiB)
    decoder = EnvelopeDecoder()
    assert decoder.feed(body[:100]) == [] and decoder.feed(body[100:-10]) == []
    assert decoder.buffered == len(body) - 10
    with pytest.raises(FramingError, match=f"truncated envelope: {2 * MiB - 10} of {2 * MiB}"):
        decoder.finish()
    ended = EnvelopeDecoder()
    ended.feed(encode_end_stream_envelope(b"{" + b" " * 2 * MiB + b"}")[:1000])
    with pytest.raises(FramingError, match="after the end-of-stream"):
        ended.feed(b" " * (2 * MiB + 2 - 995) + b"\x00")
