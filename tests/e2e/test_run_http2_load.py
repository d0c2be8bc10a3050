"""HTTP/2 flow control under load, against the real server on a real socket
(h2c) through a raw HTTP/2 client: a 6 MiB tool result sent up a `Run`
stream, a slow reader beside a fast one on the same connection, 100
concurrent streams on one connection (tool and plain turns, one sending
late frames), and a client whose connection window runs out for a while.
Every turn completes, and what the server holds stays inside its memory
budget (the figure /metrics shows as memory held)."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import h2.errors
import hyperframe.frame
import pytest

from cursor_byok.client.client import run_request, stream_close
from cursor_byok.llm.events import ResponseEvent, ResponseStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages, TextContent, ToolResultMessage, UserMessage
from cursor_byok.loop.state import Status
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http import h2_guard, http_server
from cursor_byok.transport.http.app import Service, build_service, serving
from tests.e2e.h2_turns import read_reply
from tests.e2e.raw_h2 import RawH2, RawStream, envelope
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedStream

MiB = 1024 * 1024
BUDGET = 48 * MiB
"""The server's memory budget here: room for the 6 MiB result (and its
copies in flight), far below what the streams would hold unbounded."""
LONG = "".join(f"line {n:05d} of a long answer\n" for n in range(1000))
"""About 30 KiB: each answer is several of the client's windows."""


@dataclass
class TurnLLM:
    """A scripted model that answers by what it is asked, whatever order
    concurrent conversations call it in: a user message starting "tool"
    gets a read_file call, a tool result gets "read <n> bytes", "long"
    eight times `LONG`, anything else `LONG`."""

    delay: float = 0.0
    calls: int = 0
    streams: list[ScriptedStream] = field(default_factory=list)

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        self.calls += 1
        last = request.messages[-1]
        if isinstance(last, ToolResultMessage):
            size = sum(len(getattr(part, "text", "")) for part in last.content)
            script = answer(f"read {size} bytes")
        elif isinstance(last, UserMessage) and str(last.content).startswith("tool"):
            script = stream_of(assistant(TextContent("Let me look."), tool_call("c1", "a.txt")))
        elif isinstance(last, UserMessage) and str(last.content).startswith("long"):
            script = answer(LONG * 8, chunk=512)
        else:
            script = answer(LONG, chunk=512)
        stream = ScriptedStream(script, self.delay)
        self.streams.append(stream)
        return stream


def answer(text: str, chunk: int = 16) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=chunk)


@dataclass
class Running:
    service: Service
    store: SQLiteStore
    client: RawH2
    peak: list[int]


@asynccontextmanager
async def running(tmp_path: Path, llm: TurnLLM) -> AsyncIterator[Running]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store,
        llm,
        retry=RetryPolicy(2, 0.001, 0.01),
        heartbeat_s=0.5,
        memory_budget_bytes=BUDGET,
        request_memory_bytes=16 * MiB,
    )
    peak = [0]

    async def watch() -> None:
        while True:
            peak[0] = max(peak[0], service.hub.budget.used)
            await asyncio.sleep(0.005)

    watcher = asyncio.create_task(watch())
    try:
        async with serving(service) as url:
            where = urllib.parse.urlsplit(url)
            assert where.hostname and where.port
            client = await RawH2.connect(where.hostname, where.port)
            try:
                yield Running(service, store, client, peak)
            finally:
                await client.close()
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    store.close()


async def tool_turn(client: RawH2, conversation: str, content: str) -> RawStream:
    stream = client.open()
    await client.send(stream, run_request("tool: read a.txt", conversation_id=conversation))
    request = (await client.until(stream, "exec_server_message", within=30)).exec_server_message
    await client.send(stream, read_reply(request, content))
    await client.send(stream, stream_close(request.id))
    assert await client.until_end(stream, within=60) == {}
    return stream


async def plain_turn(client: RawH2, conversation: str) -> RawStream:
    stream = client.open()
    await client.send(stream, run_request("talk", conversation_id=conversation))
    assert await client.until_end(stream, within=60) == {}
    return stream


async def test_a_6_mib_tool_result_up_a_run_stream(tmp_path: Path) -> None:
    content = ("0123456789abcdef" * 4 + "\n") * (6 * MiB // 65)
    async with running(tmp_path, TurnLLM()) as run:
        stream = await tool_turn(run.client, "conv-big", content)
        beside = await plain_turn(run.client, "conv-beside")
        history = run.store.load("conv-big")
    assert stream.text().startswith("Let me look.read ")
    assert beside.text() == LONG
    assert history is not None and history.state.status is Status.FINAL
    # All of it arrived: the history keeps what fits and counts the rest.
    [result] = [m for m in history.state.messages if isinstance(m, ToolResultMessage)]
    [text] = [getattr(part, "text", "") for part in result.content]
    shown, _, note = text.partition("\n[output truncated: ")
    assert content.startswith(shown) and not result.is_error
    assert note == f"{len(content) - len(shown)} more characters not shown]"
    assert 6 * MiB <= run.peak[0] <= BUDGET  # it was held, and within the budget


async def test_a_client_may_send_a_whole_stream_window_before_any_window_update(
    tmp_path: Path,
) -> None:
    """The server's receive windows are what it advertises: a tool result
    of nearly `STREAM_WINDOW` goes up in one go, in DATA frames written past
    the client's own bookkeeping, with no WINDOW_UPDATE awaited. With
    HTTP/2's default 64 KiB windows that is a flow-control error and the
    connection's end; at a 50 ms round trip it was a 6 MiB result's 5.9 s."""
    content = "x" * (h2_guard.STREAM_WINDOW - 64 * 1024)
    async with running(tmp_path, TurnLLM()) as run:
        client = run.client
        for _ in range(100):
            if client.greeted:
                break
            await asyncio.sleep(0.01)
        assert client.h2.remote_settings.initial_window_size == h2_guard.STREAM_WINDOW
        assert client.h2.outbound_flow_control_window == h2_guard.CONNECTION_WINDOW
        stream = client.open()
        await client.send(stream, run_request("tool: read a.txt", conversation_id="conv-window"))
        request = (await client.until(stream, "exec_server_message")).exec_server_message
        body = envelope(read_reply(request, content))
        size = client.h2.max_outbound_frame_size
        for start in range(0, len(body), size):
            frame = hyperframe.frame.DataFrame(stream.stream_id, data=body[start : start + size])
            client.raw(frame)
        await client.send(stream, stream_close(request.id))
        assert await client.until_end(stream, within=30) == {}
        assert client.goaway is None and client.error is None
    assert stream.text().startswith("Let me look.read ")  # (what fits of it: see above)


async def test_a_slow_reader_and_a_fast_one_on_one_connection(tmp_path: Path) -> None:
    async with running(tmp_path, TurnLLM(delay=0.001)) as run:
        client = run.client
        slow = client.open()
        client.slow.add(slow.stream_id)
        await client.send(slow, run_request("long", conversation_id="conv-slow"))

        async def read_slowly() -> None:
            while slow.end is None and not slow.closed:
                await asyncio.sleep(0.2)
                client.drain(slow)  # a window's worth now and then

        reading = asyncio.create_task(read_slowly())
        fast = [await plain_turn(client, f"conv-fast-{n}") for n in range(3)]
        assert slow.end is None  # the fast ones finished while the slow one still reads
        assert await client.until_end(slow, within=60) == {}
        await reading
    assert all(stream.text() == LONG for stream in fast)
    assert slow.text() == LONG * 8


async def test_100_concurrent_streams_on_one_connection(tmp_path: Path) -> None:
    """Mixed tool and plain turns; one stream, once its turn is over, sends
    DATA, WINDOW_UPDATE and RST_STREAM while the others still run."""
    content = "x" * (48 * 1024)  # under what the model is shown whole, over a window
    async with running(tmp_path, TurnLLM(delay=0.001)) as run:
        client = run.client

        async def late(n: int) -> RawStream:
            stream = await plain_turn(client, f"conv-{n}")
            sid = stream.stream_id
            # Late DATA still counts against the connection's window, which the
            # tool results on the other streams may have spent for a moment.
            while client.h2.outbound_flow_control_window < 5:
                client.window.clear()
                await asyncio.wait_for(client.window.wait(), 10)
            client.raw(hyperframe.frame.DataFrame(sid, data=b"\0\0\0\0\0"))
            client.raw(hyperframe.frame.WindowUpdateFrame(sid, window_increment=1024))
            client.raw(hyperframe.frame.RstStreamFrame(sid, error_code=8))
            return stream

        async def turn(n: int) -> RawStream:
            if n == 0:
                return await late(n)
            if n % 3 == 0:
                return await tool_turn(client, f"conv-{n}", content)
            return await plain_turn(client, f"conv-{n}")

        streams = await asyncio.gather(*(turn(n) for n in range(100)))
        assert client.goaway is None and not client.eof.is_set()
    for n, stream in enumerate(streams):
        expected = f"Let me look.read {len(content)} bytes" if n % 3 == 0 and n else LONG
        assert stream.text() == expected, n
    assert run.peak[0] <= BUDGET


async def test_a_connections_last_request_with_sixty_turns_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The GOAWAY after a connection's last request comes while 60 turns,
    tool and plain, run on it: each completes, its tool result sent when its
    exec request comes, before or after the GOAWAY; 40 streams opened after
    it are refused and never run; then the connection closes."""
    monkeypatch.setattr(http_server, "MAX_REQUESTS_PER_CONNECTION", 60)
    content = "x" * (48 * 1024)
    async with running(tmp_path, TurnLLM(delay=0.001)) as run:
        client = run.client

        async def turn(n: int) -> RawStream:
            if n % 3 == 0:
                return await tool_turn(client, f"conv-{n}", content)
            return await plain_turn(client, f"conv-{n}")

        taken = [asyncio.create_task(turn(n)) for n in range(60)]
        await asyncio.wait_for(client.went_away.wait(), 30)
        assert client.goaway is not None
        assert client.goaway.error_code == h2.errors.ErrorCodes.NO_ERROR
        late = [client.open() for _ in range(40)]
        streams = await asyncio.gather(*taken)
        assert await client.closed_within(10)
        assert client.error is None
        assert [g.last_stream_id for g in client.goaways] == [streams[-1].stream_id] * 2
        assert run.store.load("conv-0") is not None  # a tool turn, stored
    for n, stream in enumerate(streams):
        expected = f"Let me look.read {len(content)} bytes" if n % 3 == 0 else LONG
        assert stream.text() == expected, n
    assert all(s.reset_code == h2.errors.ErrorCodes.REFUSED_STREAM for s in late)


async def test_the_connection_window_runs_out_and_every_stream_completes(tmp_path: Path) -> None:
    """The client gives nothing back for a while: the connection's window
    (64 KiB, shared by every stream) runs out, every stream waits; then it
    reads again, and every turn completes."""
    async with running(tmp_path, TurnLLM()) as run:
        client = run.client
        client.hold = True
        streams = [client.open() for _ in range(10)]
        for n, stream in enumerate(streams):
            await client.send(stream, run_request("talk", conversation_id=f"conv-{n}"))

        for _ in range(1000):  # until the connection's window is spent
            if client.h2.inbound_flow_control_window <= 0:
                break
            await asyncio.sleep(0.01)
        assert client.h2.inbound_flow_control_window <= 0
        assert not any(stream.end is not None for stream in streams)
        await asyncio.sleep(0.5)  # held so for a while
        client.release()
        ends = await asyncio.gather(*(client.until_end(stream, within=30) for stream in streams))
    assert ends == [{}] * len(streams)
    assert all(stream.text() == LONG for stream in streams)
    assert run.peak[0] <= BUDGET
