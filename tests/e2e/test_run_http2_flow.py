"""The two directions of an HTTP/2 `Run` stream end on their own, against the
real server on a real socket (h2c), with an h2 client that controls its own
flow-control windows and END_STREAM:

- a client that stops reading one stream (its window never given back, the
  connection's always) has that stream abandoned within a bounded time once
  its turn is over, while the connection and its other streams go on
  serving; one whose connection closes meanwhile has it abandoned at once;
- a client that half-closes its request side after the run request still
  reads the whole turn: END_STREAM on the request is not a disconnect.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import h2.events
import pytest

from cursor_byok.client.client import End, Item, kind, run_request
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent
from cursor_byok.loop.state import Status
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http import http_server, run_stream
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.server import CursorServer
from tests.factories import assistant, stream_of
from tests.fakes import PausingLLM, ScriptedLLM

ABANDON_WITHIN_S = 5.0
"""The longest the server may hold a stream nobody reads once its turn is
over: the turn takes under a second here, and the end of the stream may
wait `END_WRITE_S` (shortened to half a second below) for the client."""


@pytest.fixture(autouse=True)
def quick_shutdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream the server failed to let go of holds its shutdown for the
    whole grace: a second, not ten, so such a failure is reported at once."""
    monkeypatch.setattr(http_server, "SHUTDOWN_GRACE_S", 1)


class WindowClient(H2Client):
    """The Run client, except that a paused stream's bytes are given back to
    the connection's window at once and never to the stream's own: the
    client stopped reading that stream, not the connection (as an HTTP/2
    stack that reads the socket for every stream does)."""

    def handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None and stream.paused:
                length = event.flow_controlled_length or 0
                if length:
                    self.h2.increment_flow_control_window(length)  # the connection's only
                stream.unread += length
                stream.take(event.data or b"")
                return
        super().handle(event)

    def unpause(self, stream: RunStream) -> None:
        """Read again: the stream's window back (the connection has its own)."""
        stream.paused = False
        if stream.unread:
            self.h2.increment_flow_control_window(stream.unread, stream_id=stream.stream_id)
            stream.unread = 0
            self.flush()

    def half_close(self, stream: RunStream) -> None:
        """END_STREAM on the request side; the response is still read."""
        self.h2.end_stream(stream.stream_id)
        self.flush()


@dataclass
class Running:
    service: Service
    store: SQLiteStore
    client: WindowClient

    @property
    def server(self) -> CursorServer:
        return self.service.server


@asynccontextmanager
async def running(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[Running]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store, llm, retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.2, grace_s=30
    )
    async with serving(service) as url:
        client = await WindowClient.connect(url)
        assert isinstance(client, WindowClient)
        try:
            yield Running(service, store, client)
        finally:
            await client.close()
    store.close()


def answer(text: str, chunk: int = 4) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=chunk)


def is_end(item: Item) -> bool:
    return isinstance(item, End)


async def within(seconds: float, what: str, condition: Callable[[], bool]) -> float:
    """Wait until `condition` holds; how long it took. Fails, saying `what`
    did not happen, after `seconds`."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not condition():
        if loop.time() - start > seconds:
            raise AssertionError(f"{what} did not happen within {seconds}s")
        await asyncio.sleep(0.01)
    return loop.time() - start


async def test_a_stream_nobody_reads_is_abandoned_and_the_connection_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_stream, "FAIL_WRITE_S", 0.5)
    monkeypatch.setattr(run_stream, "END_WRITE_S", 0.5)
    # Well over the stream's 64 KiB window, in deltas of 1 KiB, paced so the
    # turn ends normally (the outbox never overflows): what is left waiting
    # is the end of the stream, behind bytes the client never reads.
    long = "x" * 150_000
    scripts = [answer(long, chunk=1000), answer("alongside"), answer("still here")]
    async with running(tmp_path, ScriptedLLM(scripts, delay=0.002)) as run:
        server = run.server
        stalled = await run.client.open(paused=True)
        await stalled.send(run_request("talk a lot", conversation_id="conv-stalled"))
        await within(2, "the stalled stream's first bytes", lambda: stalled.unread > 0)

        # Another stream on the connection is served meanwhile.
        alongside = await run.client.open()
        await alongside.send(run_request("hi", conversation_id="conv-alongside"))
        end = await alongside.until(is_end, within=5)
        assert isinstance(end, End) and end.error is None, end
        assert alongside.text() == "alongside"

        took = await within(
            ABANDON_WITHIN_S,
            "letting go of the stream whose client stopped reading",
            lambda: server.open_streams == 0,
        )
        # The client did stop reading: it holds the stream's whole window unread.
        assert stalled.unread >= 65_535 - 1_100 and not stalled.ended
        state = await run.service.runner.state_of("conv-stalled")
        assert state is not None and state.status is Status.FINAL  # the turn went on

        # The same connection serves a new stream as if nothing happened.
        assert not run.client.closed
        fresh = await run.client.open()
        await fresh.send(run_request("are you there?", conversation_id="conv-fresh"))
        end = await fresh.until(is_end, within=5)
        assert isinstance(end, End) and end.error is None, end
        assert fresh.text() == "still here"

        # Nothing was lost by letting go: a client that reads again while its
        # connection is open (hypercorn closes it once idle) gets the rest of
        # the turn and its end.
        run.client.unpause(stalled)
        end = await stalled.until(is_end, within=5)
        assert isinstance(end, End) and end.error is None, end
        assert stalled.text() == long
    assert took < ABANDON_WITHIN_S


async def test_a_client_gone_while_the_end_waits_for_it_lets_go_of_the_stream_at_once(
    tmp_path: Path,
) -> None:
    """The end of the stream waits behind bytes hypercorn holds for the
    client; the client's connection closing abandons that wait (not the
    much longer END_WRITE_S)."""
    long = "x" * 150_000
    async with running(tmp_path, ScriptedLLM([answer(long, chunk=1000)], delay=0.002)) as run:
        server = run.server
        stalled = await run.client.open(paused=True)
        await stalled.send(run_request("talk a lot", conversation_id="conv-stalled"))

        async def final() -> bool:
            state = await run.service.runner.state_of("conv-stalled")
            return state is not None and state.status is Status.FINAL

        for _ in range(300):
            if await final():
                break
            await asyncio.sleep(0.01)
        assert await final()
        await asyncio.sleep(0.1)  # the writer is on the stream's end now
        assert server.open_streams == 1 and not stalled.ended
        await run.client.close()
        took = await within(
            3, "letting go of the stream whose client went away", lambda: server.open_streams == 0
        )
    assert took < 3


async def test_a_half_closed_request_still_gets_the_whole_turn(tmp_path: Path) -> None:
    text = "word " * 50
    llm = PausingLLM([answer(text)], pause_at=3)  # start, text start, one delta
    async with running(tmp_path, llm) as run:
        stream = await run.client.open()
        await stream.send(run_request("hello"))
        await stream.until(lambda item: kind(item) == "text_delta", within=5)
        run.client.half_close(stream)
        await asyncio.sleep(0.2)  # END_STREAM reached the server before the rest of the turn
        served = run.server.open_streams
        assert served == 1, "the server let go of the stream when its request side ended"
        llm.gate.set()
        try:
            end = await stream.until(is_end, within=3)
        except TimeoutError:
            pytest.fail("the half-closed stream got no end of stream within 3s")
        history = run.store.load("conv-1")
    assert isinstance(end, End) and end.error is None, end
    assert stream.text() == text
    assert history is not None and len(history.state.messages) == 2
