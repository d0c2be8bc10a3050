"""Frames and framings a client may legally send on a live `Run` stream,
against the real server on a real socket (h2c), through a raw HTTP/2 client:
padded DATA, a request cut into tiny DATA frames, a header block continued
over CONTINUATION frames, frame types the server does not know (RFC 9113
4.1 and 5.5: ignored), request trailers in place of an empty END_STREAM,
a stream window closed and reopened by SETTINGS, an unsolicited PING ACK,
PRIORITY frames, SETTINGS the server does not know, windows raised to
their maximum. Each stream's turn completes, and so does another's on the
same connection."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

import hyperframe.frame
from h2.settings import SettingCodes

from cursor_byok.client.client import run_request, stream_close
from cursor_byok.llm.types import TextContent
from tests.e2e.h2_turns import a_turn, answer, read_reply, reading, running
from tests.e2e.raw_h2 import envelope
from tests.factories import assistant, stream_of

PRIORITY_UPDATE = 0x10
"""RFC 9218's frame type: a server that does not take it part ignores it."""


def unknown_frame(kind: int, stream_id: int, flags: int, body: bytes) -> bytes:
    """A frame header written out (RFC 9113 4.1): hyperframe's own
    ExtensionFrame writes a length of zero before its body."""
    return struct.pack(">I", len(body))[1:] + struct.pack(">BBI", kind, flags, stream_id) + body


async def test_a_request_in_padded_data_frames(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("padded"), answer("after")]) as run:
        client = run.client
        stream = client.open()
        body = envelope(run_request("hi", conversation_id="conv-padded"))
        half = len(body) // 2
        for part, pad in ((body[:half], 7), (body[half:], 255)):
            frame = hyperframe.frame.DataFrame(
                stream.stream_id, data=part, flags=["PADDED"], pad_length=pad
            )
            client.raw(frame)
        assert await client.until_end(stream) == {}
        assert stream.text() == "padded"
        await a_turn(client, "conv-after", "after")


async def test_a_request_cut_into_frames_of_a_few_bytes(tmp_path: Path) -> None:
    """Frames far below the advertised maximum are as legal as full ones:
    the envelope's header and its message arrive across many frames."""
    async with running(tmp_path, [answer("pieces"), answer("after")]) as run:
        client = run.client
        stream = client.open()
        client.h2.max_outbound_frame_size = 7
        await client.send(stream, run_request("hi", conversation_id="conv-pieces"))
        client.h2.max_outbound_frame_size = 16384
        assert await client.until_end(stream) == {}
        assert stream.text() == "pieces"
        await a_turn(client, "conv-after", "after")


async def test_a_header_block_continued_over_continuation_frames(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("continued"), answer("after")]) as run:
        client = run.client
        client.h2.max_outbound_frame_size = 16
        stream = client.open()
        client.h2.max_outbound_frame_size = 16384
        await client.send(stream, run_request("hi", conversation_id="conv-continued"))
        assert await client.until_end(stream) == {}
        assert stream.text() == "continued"
        await a_turn(client, "conv-after", "after")


async def test_frames_of_unknown_types_are_ignored(tmp_path: Path) -> None:
    """On the connection and on an open stream, before and inside the
    request; one of them RFC 9218's PRIORITY_UPDATE."""
    async with running(tmp_path, [answer("unknown"), answer("after")]) as run:
        client = run.client
        stream = client.open()
        sid = stream.stream_id
        update = struct.pack(">I", sid) + b"u=1, i"
        client.writer.write(unknown_frame(PRIORITY_UPDATE, 0, 0, update))
        client.writer.write(unknown_frame(0xFA, sid, 0xFF, b"whatever this is"))
        body = envelope(run_request("hi", conversation_id="conv-unknown"))
        await client.send(stream, body[:3])
        client.writer.write(unknown_frame(0xFB, sid, 0x01, b""))
        client.writer.write(unknown_frame(0xFC, 0, 0, b"on the connection"))
        await client.send(stream, body[3:])
        assert await client.until_end(stream) == {}
        assert stream.text() == "unknown"
        await a_turn(client, "conv-after", "after")


async def test_request_trailers_end_the_client_side_of_a_tool_turn(tmp_path: Path) -> None:
    """A client may end its side with a trailing HEADERS frame instead of an
    empty DATA frame: the tool's result is in, the turn completes."""
    scripts = [reading(), answer("It says hello"), answer("after")]
    async with running(tmp_path, scripts) as run:
        client = run.client
        stream = client.open()
        await client.send(stream, run_request("What is in a.txt?", conversation_id="conv-tool"))
        request = (await client.until(stream, "exec_server_message")).exec_server_message
        await client.send(stream, read_reply(request, "hello\n"))
        await client.send(stream, stream_close(request.id))
        client.h2.send_headers(stream.stream_id, [("x-client-done", "1")], end_stream=True)
        client.flush()
        assert await client.until_end(stream) == {}
        assert stream.text() == "Let me look.It says hello"
        await a_turn(client, "conv-after", "after")


async def test_a_stream_window_closed_by_settings_then_reopened(tmp_path: Path) -> None:
    """SETTINGS_INITIAL_WINDOW_SIZE 0 mid-stream shuts every stream's window
    (RFC 9113 6.9.2); the server waits, and sends the rest once it is
    raised again. Nothing is lost or sent twice."""
    text = "A long enough answer to cross the closed window. " * 20
    async with running(tmp_path, [answer(text), answer("after")]) as run:
        client = run.client
        client.h2.update_settings({SettingCodes.INITIAL_WINDOW_SIZE: 0})
        client.flush()
        stream = client.open()
        await client.send(stream, run_request("hi", conversation_id="conv-window"))
        await asyncio.sleep(0.3)
        assert not stream.messages, "DATA went past a closed window"
        client.h2.update_settings({SettingCodes.INITIAL_WINDOW_SIZE: 65535})
        client.flush()
        assert await client.until_end(stream) == {}
        assert stream.text() == text
        await a_turn(client, "conv-after", "after")


async def test_an_unsolicited_ping_ack_and_priority_frames_change_nothing(tmp_path: Path) -> None:
    async with running(tmp_path, [answer("pinged"), answer("after")]) as run:
        client = run.client
        stream = client.open()
        sid = stream.stream_id
        client.raw(hyperframe.frame.PingFrame(0, opaque_data=b"01234567", flags=["ACK"]))
        client.raw(hyperframe.frame.PriorityFrame(sid, depends_on=0, stream_weight=200))
        client.raw(hyperframe.frame.PriorityFrame(sid + 2, depends_on=sid, stream_weight=1))
        await client.send(stream, run_request("hi", conversation_id="conv-pinged"))
        assert await client.until_end(stream) == {}
        assert stream.text() == "pinged"
        await a_turn(client, "conv-after", "after")


async def test_the_clients_frame_size_and_header_table_settings_are_kept(tmp_path: Path) -> None:
    """A client that takes frames up to 16 MiB gets a long answer in frames
    it allows, and one that keeps no HPACK table (HEADER_TABLE_SIZE 0) gets
    headers it can decode, turn after turn: its own state machine refuses
    anything else."""
    text = "Forty characters of answer, repeated... " * 5000
    long = stream_of(assistant(TextContent(text)), chunk=20_000)
    async with running(tmp_path, [long, answer("second"), answer("third")]) as run:
        client = run.client
        client.h2.update_settings(
            {SettingCodes.MAX_FRAME_SIZE: 2**24 - 1, SettingCodes.HEADER_TABLE_SIZE: 0}
        )
        client.flush()
        stream = client.open()
        await client.send(stream, run_request("hi", conversation_id="conv-big"))
        assert await client.until_end(stream, within=30) == {}
        assert stream.text() == text
        await a_turn(client, "conv-second", "second")
        await a_turn(client, "conv-third", "third")
        assert client.error is None


async def test_unknown_settings_and_windows_raised_to_their_maximum(tmp_path: Path) -> None:
    """SETTINGS identifiers the server does not know are ignored (RFC 9113
    6.5.2), and windows may be raised to 2^31 - 1 exactly (6.9.1)."""
    async with running(tmp_path, [answer("settled"), answer("after")]) as run:
        client = run.client
        settings = hyperframe.frame.SettingsFrame(0, settings={0x4242: 7, 0xF0F0: 2**32 - 1})
        client.raw(settings)
        stream = client.open()
        top = 2**31 - 1
        client.raw(hyperframe.frame.WindowUpdateFrame(0, window_increment=top - 65535))
        client.raw(hyperframe.frame.WindowUpdateFrame(stream.stream_id, window_increment=1))
        await client.send(stream, run_request("hi", conversation_id="conv-settled"))
        assert await client.until_end(stream) == {}
        assert stream.text() == "settled"
        await a_turn(client, "conv-after", "after")
