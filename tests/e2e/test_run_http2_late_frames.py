"""Frames a client may legally send late, against the real server on a real
socket (h2c), through a raw HTTP/2 client: DATA, RST_STREAM and
WINDOW_UPDATE on a stream the server has finished or reset (a lingering
stream, one over the concurrency limit), frames on an open stream after the
client's GOAWAY, END_STREAM early (on the HEADERS) or late (after
the response). Each is handled as RFC 9113 says, and another stream on the
same connection completes its turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import h2.errors
import hyperframe.frame
import pytest
from h2.settings import SettingCodes

from cursor_byok.client.client import run_request, stream_close
from cursor_byok.transport.http import h2_guard, http_server
from tests.e2e.h2_turns import a_turn, answer, read_reply, reading, running
from tests.e2e.raw_h2 import RawH2, RawStream, envelope

NO_ERROR = 0


async def finished(client: RawH2) -> RawStream:
    """A stream whose turn is over and whose response has ended."""
    stream = client.open()
    await client.send(stream, run_request("first", conversation_id="conv-first"))
    assert await client.until_end(stream) == {}
    return stream


LATE: dict[str, Callable[[int], hyperframe.frame.Frame]] = {
    "data": lambda sid: hyperframe.frame.DataFrame(sid, data=b"\0\0\0\0\0"),
    "data-end-stream": lambda sid: hyperframe.frame.DataFrame(sid, data=b"", flags=["END_STREAM"]),
    "rst-stream": lambda sid: hyperframe.frame.RstStreamFrame(sid, error_code=8),
    "window-update": lambda sid: hyperframe.frame.WindowUpdateFrame(sid, window_increment=1024),
}


@pytest.mark.parametrize("frame", ["data", "data-end-stream", "rst-stream", "window-update"])
async def test_a_late_frame_on_a_finished_stream_leaves_the_connection_serving(
    tmp_path: Path, frame: str
) -> None:
    async with running(tmp_path, [answer("one"), answer("two"), answer("three")]) as run:
        client = run.client
        done = await finished(client)
        for _ in range(3):  # more than once: each is answered, none is fatal
            client.raw(LATE[frame](done.stream_id))
        await a_turn(client, "conv-second", "two")
        await a_turn(client, "conv-third", "three")


async def test_frames_after_the_clients_goaway_finish_the_streams_already_open(
    tmp_path: Path,
) -> None:
    """RFC 9113 6.8: streams open before a GOAWAY run to completion; the
    GOAWAY only says no new ones will come from its sender."""
    scripts = [reading(), answer("alongside"), answer("It says hello")]
    async with running(tmp_path, scripts) as run:
        client = run.client
        tool = client.open()
        await client.send(tool, run_request("What is in a.txt?", conversation_id="conv-tool"))
        request = (await client.until(tool, "exec_server_message")).exec_server_message
        alongside = client.open()
        client.raw(hyperframe.frame.GoAwayFrame(0, last_stream_id=0, error_code=NO_ERROR))
        await client.send(alongside, run_request("hi", conversation_id="conv-alongside"))
        assert await client.until_end(alongside) == {}
        await client.send(tool, read_reply(request, "hello\n"))
        await client.send(tool, stream_close(request.id), end=True)
        assert await client.until_end(tool) == {}
        assert alongside.text() == "alongside"
        assert tool.text() == "Let me look.It says hello"
        history = run.store.load("conv-tool")
        # With no stream left open, the server ends the connection itself.
        assert await client.closed_within(5)
        assert client.goaway is not None and client.goaway.error_code == NO_ERROR
    assert history is not None and len(history.state.messages) == 4


async def test_the_servers_goaway_after_a_connections_last_request_lets_its_streams_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection's last request (`MAX_REQUESTS_PER_CONNECTION`) is
    taken and named by the server's GOAWAY NO_ERROR; it and a tool turn
    already open run to completion, tool result sent after the GOAWAY; a
    stream the client opened before reading the GOAWAY is refused (not
    processed, safe to send again); then the server closes the connection."""
    monkeypatch.setattr(http_server, "MAX_REQUESTS_PER_CONNECTION", 3)
    scripts = [reading(), answer("second"), answer("the last"), answer("It says hello")]
    async with running(tmp_path, scripts) as run:
        client = run.client
        tool = client.open()
        await client.send(tool, run_request("What is in a.txt?", conversation_id="conv-tool"))
        request = (await client.until(tool, "exec_server_message")).exec_server_message
        await a_turn(client, "conv-second", "second")
        last = client.open()
        await asyncio.wait_for(client.went_away.wait(), 5)
        assert [(g.error_code, g.last_stream_id) for g in client.goaways] == [
            (NO_ERROR, last.stream_id)
        ]
        late = client.open()
        await client.send(last, run_request("hi", conversation_id="conv-last"))
        assert await client.until_end(last) == {}
        await client.send(tool, read_reply(request, "hello\n"))
        await client.send(tool, stream_close(request.id), end=True)
        assert await client.until_end(tool) == {}
        assert last.text() == "the last"
        assert tool.text() == "Let me look.It says hello"
        assert late.closed and late.reset_code == h2.errors.ErrorCodes.REFUSED_STREAM
        assert await client.closed_within(5)
        assert [g.last_stream_id for g in client.goaways] == [last.stream_id] * 2
        assert client.error is None
        history = run.store.load("conv-tool")
    assert history is not None and len(history.state.messages) == 4


async def test_requests_read_together_past_a_connections_last_are_all_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last request and one more in the same read: the GOAWAY names the
    later one, and both turns complete (hypercorn closed h2's state machine
    on the one past the limit, and every stream of the connection died)."""
    monkeypatch.setattr(http_server, "MAX_REQUESTS_PER_CONNECTION", 2)
    async with running(tmp_path, [answer("first"), answer("two"), answer("three")]) as run:
        client = run.client
        await a_turn(client, "conv-first", "first")
        together = [client.open(flush=False), client.open(flush=False)]
        client.flush()
        await asyncio.wait_for(client.went_away.wait(), 5)
        assert client.goaway is not None
        assert client.goaway.last_stream_id == together[1].stream_id
        for stream, name in zip(together, ("two", "three"), strict=True):
            await client.send(stream, run_request("hi", conversation_id=f"conv-{name}"))
        for stream, name in zip(together, ("two", "three"), strict=True):
            assert await client.until_end(stream) == {}
            assert stream.text() == name
        assert await client.closed_within(5)
        assert client.error is None


async def test_end_stream_on_the_headers_is_answered_and_the_connection_goes_on(
    tmp_path: Path,
) -> None:
    """A request half-closed before any message: an error end for that
    stream, nothing for the others."""
    async with running(tmp_path, [answer("after")]) as run:
        client = run.client
        empty = client.open(end_stream=True)
        end = await client.until_end(empty)
        assert isinstance(end.get("error"), dict), end
        await a_turn(client, "conv-after", "after")


async def test_end_stream_late_after_the_response_ended(tmp_path: Path) -> None:
    """A client that half-closes only after the server's end of stream."""
    async with running(tmp_path, [answer("one"), answer("two")]) as run:
        client = run.client
        stream = client.open()
        await client.send(stream, run_request("first", conversation_id="conv-first"))
        assert await client.until_end(stream) == {}
        client.h2.end_stream(stream.stream_id)  # its own state machine allows it: legal
        client.flush()
        await a_turn(client, "conv-second", "two")


@pytest.mark.parametrize("frame", sorted(LATE))
async def test_a_late_frame_on_a_stream_the_server_reset_leaves_the_connection_serving(
    tmp_path: Path, frame: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream whose response ended while the client's side stayed open is
    reset by the server after a while; what the client had in flight on it
    then arrives (RFC 9113 5.4.2: to be ignored, not a connection error)."""
    monkeypatch.setattr(h2_guard, "LINGER_S", 0.1)
    async with running(tmp_path, [answer("one"), answer("two")]) as run:
        client = run.client
        done = await finished(client)
        for _ in range(100):
            if done.reset_code is not None:
                break
            await asyncio.sleep(0.05)
        assert done.reset_code is not None, "the server never reset the lingering stream"
        for _ in range(3):
            client.raw(LATE[frame](done.stream_id))
        await a_turn(client, "conv-second", "two")


async def test_data_in_flight_on_a_refused_stream_leaves_the_connection_serving(
    tmp_path: Path,
) -> None:
    """A stream over the concurrency limit is refused (REFUSED_STREAM); the
    request the client had already sent on it arrives after the reset."""
    async with running(tmp_path, [answer("served")]) as run:
        client = run.client
        for _ in range(100):
            if client.h2.remote_settings.max_concurrent_streams < 2**31 - 1:
                break
            await asyncio.sleep(0.05)
        limit = client.h2.remote_settings.max_concurrent_streams
        held = [client.open() for _ in range(limit)]
        client.h2.remote_settings.update({SettingCodes.MAX_CONCURRENT_STREAMS: limit + 1})
        client.h2.remote_settings.acknowledge()
        over = client.open()  # over the limit the server set
        client.raw(hyperframe.frame.DataFrame(over.stream_id, data=envelope(run_request("hi"))))
        client.raw(hyperframe.frame.DataFrame(over.stream_id, data=b"", flags=["END_STREAM"]))
        for _ in range(100):
            if over.closed:
                break
            await asyncio.sleep(0.05)
        assert over.reset_code == h2.errors.ErrorCodes.REFUSED_STREAM
        client.h2.reset_stream(held[0].stream_id, h2.errors.ErrorCodes.CANCEL)
        client.flush()
        await a_turn(client, "conv-after", "served")
        assert not any(stream.closed for stream in held[1:])


async def test_a_fast_failing_last_request_does_not_close_the_connection_under_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection's last request answered at once (a path the server
    does not serve) and a `Run` request in the same read: the GOAWAY names
    both, and the connection stays until the second's turn is over."""
    monkeypatch.setattr(http_server, "MAX_REQUESTS_PER_CONNECTION", 2)
    async with running(tmp_path, [answer("first"), answer("after the miss")]) as run:
        client = run.client
        await a_turn(client, "conv-first", "first")
        miss = client.open(path="/no.such.Service/Method", end_stream=True, flush=False)
        turn = client.open(flush=False)
        client.flush()
        await asyncio.wait_for(client.went_away.wait(), 5)
        assert client.goaway is not None and client.goaway.last_stream_id == turn.stream_id
        await client.send(turn, run_request("hi", conversation_id="conv-after"))
        assert await client.until_end(turn) == {}
        assert turn.text() == "after the miss"
        assert miss.closed and miss.status == 501
        assert await client.closed_within(5)
