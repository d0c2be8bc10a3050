"""Stream items as relayed output rows and back; announcements as notices
and back. A row or notice that does not read back is refused plainly."""

from __future__ import annotations

import pytest

from cursor_byok.cluster.lease import Notice, NoticeKind
from cursor_byok.cluster.postgres_relay import decode_notice, encode_notice
from cursor_byok.cluster.relay_host import unavailable
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.relay_rows import END, MESSAGE, BadRow, decode_item, encode_item
from cursor_byok.transport.sessions.session import EndOfStream


def test_a_message_round_trips_as_its_protobuf_bytes() -> None:
    message = pb.AgentServerMessage(
        interaction_update=pb.InteractionUpdate(text_delta=pb.TextDeltaUpdate(text="hé"))
    )
    seq, kind, payload = encode_item(7, message)
    assert (seq, kind, payload) == (7, MESSAGE, message.SerializeToString())
    assert decode_item(kind, payload) == message


def test_an_end_round_trips_with_its_error_and_details() -> None:
    error = unavailable("the conversation moved")
    _, kind, payload = encode_item(0, EndOfStream(error))
    assert kind == END
    assert decode_item(kind, payload) == EndOfStream(error)
    _, kind, payload = encode_item(1, EndOfStream())
    assert payload == b"{}" and decode_item(kind, payload) == EndOfStream()


@pytest.mark.parametrize(
    ("kind", "payload", "why"),
    [
        (MESSAGE, b"\xff\xff\xff", "does not decode"),
        (END, b"not json", "end of stream does not decode"),
        (END, b'{"code": "no-such-code"}', "end of stream does not decode"),
        (END, b'{"code": "unavailable", "details": [{"type": "x", "value": "!"}]}', "end"),
        ("later-kind", b"", "unknown kind"),
    ],
)
def test_a_row_that_does_not_read_back_is_refused(kind: str, payload: bytes, why: str) -> None:
    with pytest.raises(BadRow, match=why):
        decode_item(kind, payload)


def test_notices_round_trip() -> None:
    for notice in (
        Notice(NoticeKind.APPEND, "r-1"),
        Notice(NoticeKind.HOST, "r-1", "host:1:ab", "conv-1", seqno=3),
        Notice(NoticeKind.READER, "r-1", "host:1:ab", reading=True),
    ):
        assert decode_notice(encode_notice(notice)) == notice


@pytest.mark.parametrize(
    "payload", ["", "r-1", "[]", '{"kind": "gossip", "request_id": "r"}', '{"kind": "append"}']
)
def test_a_payload_that_is_no_notice_is_refused(payload: str) -> None:
    with pytest.raises(ValueError, match="not a relay notice"):
        decode_notice(payload)
