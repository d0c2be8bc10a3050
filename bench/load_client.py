"""The whole-server benchmark's load client, run in a process of its own.

It reads one JSON command a line on stdin and answers with one JSON line:
  {"op": "streams", "mode": "direct"|"server", "n": N, "deltas": D, "pace_ms": P, "tag": T,
   "url": server URL}
      N streams at once, each a text answer of D deltas at one per P ms: straight
      from the fake provider (`direct`) or as a Cursor turn through the server:
      RunSSE + BidiAppend over HTTP/1.1 (`server`) or one `Run` stream over
      h2c (`server-h2`, up to 100 streams per connection). Answers per
      stream: time to the first delta, the gaps between reads (HTTP/2: the
      messages one wake finds) that carried deltas, how many deltas arrived,
      first/last arrival.
      With `"turns": K`, a steady load instead of a burst: N slots of K
      streams back to back, their starts spread over one stream's length;
      it answers the streams begun while all N were open and the deltas
      per second that arrived meanwhile (`rate`).
  {"op": "turn", "conversation": C, "turn": K, "url": server URL,
   "tool_calls": N, "batch": B, "clock": false}
      one turn of a tool session through the server: the model calls read_file
      (N times in all, B calls to a response; 1 and 1 unless given), the
      client answers each, the model answers in text. As the official client
      does, the run request carries the last checkpoint the conversation's
      earlier turns got (`conversation_state`). With `clock`, the server's
      CPU and stage clocks are read from its /metrics at each exec request,
      once its checkpoint has come and the server waits for the client
      (`exec_clocks`), with the stream's bytes received since the last one
      (`exec_bytes`).

Both modes share this code, its minimal HTTP/1.1 client and its pools of warm
keep-alive connections (one pool per address, kept across commands). The only
difference is the last step, reading the provider's SSE or the server's
Connect envelopes, which is the protocol each side speaks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from h2_reader import FastH2Client

from cursor_byok.client.client import End, kv_reply
from cursor_byok.client.run_client import H2Client, RunStream
from cursor_byok.transport.connect.framing import EnvelopeDecoder, encode_envelope
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2

TOKEN_CHARS = 6  # the fake provider's deltas are 6-character tokens
FILE_TEXT = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(40))
RUN_SSE = "/agent.v1.AgentService/RunSSE"
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
STREAMS_PER_CONNECTION = 100


class HTTPConnection:
    """A minimal HTTP/1.1 client connection (keep-alive; content-length or
    chunked bodies): a general-purpose client would make this process, not
    the server, the bottleneck at 200 streams."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._chunked = False
        self._length = 0

    async def post(self, path: str, body: bytes, content_type: str) -> int:
        """Send a POST and read the response head; returns the status. A kept
        connection the server closed while idle is replaced, and the request
        sent again, as any HTTP/1.1 client does."""
        request = (
            f"POST {path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\n"
            f"content-type: {content_type}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        reused = self.writer is not None and not self.writer.is_closing()
        if self.reader is not None and self.reader.at_eof():
            self.close()
            reused = False
        try:
            head = await self._send(request)
        except (asyncio.IncompleteReadError, ConnectionError):
            if not reused:
                raise
            self.close()
            head = await self._send(request)
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:] if line)
        }
        self._chunked = "chunked" in headers.get("transfer-encoding", "")
        self._length = int(headers.get("content-length", "0"))
        return int(lines[0].split(" ", 2)[1])

    async def _send(self, request: bytes) -> bytes:
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(request)
        return await self.reader.readuntil(b"\r\n\r\n")

    async def chunks(self) -> AsyncIterator[tuple[float, bytes]]:
        """The response body as it arrives: (perf_counter() when read, bytes)."""
        assert self.reader is not None
        if not self._chunked:
            yield time.perf_counter(), await self.reader.readexactly(self._length)
            return
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            data = await self.reader.readexactly(size + 2)
            if size == 0:
                return
            yield time.perf_counter(), data[:-2]

    async def read_body(self) -> bytes:
        return b"".join([data async for _, data in self.chunks()])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Pool:
    """Idle keep-alive connections to one address, reused across commands."""

    def __init__(self, url: str) -> None:
        address = url.split("://", 1)[1].split("/", 1)[0]
        host, _, port = address.rpartition(":")
        self.host, self.port = host, int(port)
        path = url.split("://", 1)[1].partition("/")[2].strip("/")
        self.prefix = f"/{path}" if path else ""
        self._idle: list[HTTPConnection] = []

    def take(self) -> HTTPConnection:
        return self._idle.pop() if self._idle else HTTPConnection(self.host, self.port)

    def give(self, conn: HTTPConnection) -> None:
        self._idle.append(conn)


@dataclass
class Stream:
    """What one stream saw, perf_counter() seconds."""

    ttft_s: float = 0.0
    start_s: float = 0.0
    deltas: int = 0
    first_s: float = 0.0
    last_s: float = 0.0
    gaps_ms: list[float] = field(default_factory=list)
    append_s: float = 0.0
    """From the clock's start to the run request's append answered (RunSSE)."""
    exec_clocks: list[tuple[float, dict[str, float]]] = field(default_factory=list)
    exec_bytes: list[int] = field(default_factory=list)
    error: str | None = None

    def got(self, now: float, text_chars: int, sent: float) -> None:
        if not text_chars:
            return
        if self.deltas:
            self.gaps_ms.append((now - self.last_s) * 1000)
        else:
            self.ttft_s, self.first_s, self.start_s = now - sent, now, sent
        self.deltas += text_chars // TOKEN_CHARS
        self.last_s = now


# -- straight to the provider --------------------------------------------------------


async def direct_stream(pool: Pool, deltas: int, pace_ms: float, tag: str) -> Stream:
    seen = Stream()
    conn = pool.take()
    text = f"[bench deltas={deltas} pace_ms={pace_ms:g}] {tag}"
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": text}], "stream": True}
    try:
        sent = time.perf_counter()
        status = await conn.post(
            f"{pool.prefix}/chat/completions", json.dumps(body).encode(), "application/json"
        )
        if status != 200:
            raise RuntimeError(f"provider: HTTP {status}")
        buffer = b""
        async for now, chunk in conn.chunks():
            buffer += chunk
            *events, buffer = buffer.split(b"\n\n")
            chars = 0
            for raw in events:
                data = raw.removeprefix(b"data: ")
                if data.startswith(b"{"):
                    choices = json.loads(data)["choices"]
                    if choices:
                        chars += len(choices[0]["delta"].get("content") or "")
            seen.got(now, chars, sent)
        pool.give(conn)
    except Exception as error:  # noqa: BLE001 (a benchmark reports failures, not stops at one)
        seen.error = f"{type(error).__name__}: {error}"
        conn.close()
    return seen


# -- through the server --------------------------------------------------------------


def run_request(
    text: str, conversation_id: str, turn: int, state: bytes | None = None
) -> pb.AgentClientMessage:
    """A run request as the IDE sends it, its request context included (a run
    without one makes the server ask for it and wait, as for the CLI's print
    mode, which is not what this bench measures), and `state`, the last
    checkpoint the conversation got, as its `conversation_state`."""
    context = pb.RequestContext(env=pb.RequestContextEnv(shell="bash", os_version="linux"))
    run = pb.AgentRunRequest(
        conversation_id=conversation_id,
        action=pb.ConversationAction(
            user_message_action=pb.UserMessageAction(
                user_message=pb.UserMessage(text=text, message_id=f"m{turn}"),
                request_context=context,
            )
        ),
        requested_model=pb.RequestedModel(model_id="bench"),
    )
    if state is not None:
        run.conversation_state.ParseFromString(state)
    return pb.AgentClientMessage(run_request=run)


Clock = Callable[[], Awaitable[tuple[float, dict[str, float]]]]
"""Reads the server's CPU clock and stage clocks (seconds)."""


async def read_clocks(url: str) -> tuple[float, dict[str, float]]:
    """One GET of the server's /metrics: its exact CPU clock and its stage clock."""
    pool = Pool(url)
    reader, writer = await asyncio.open_connection(pool.host, pool.port)
    head = f"GET /metrics HTTP/1.1\r\nhost: {pool.host}:{pool.port}\r\nconnection: close\r\n\r\n"
    writer.write(head.encode())
    reply = await reader.read()
    writer.close()
    cpu, stages = None, {}
    for line in reply.decode().splitlines():
        if line.startswith("cursor_byok_process_cpu_seconds "):
            cpu = float(line.split()[1])
        elif line.startswith('cursor_byok_stage_seconds_total{stage="'):
            stages[line.split('"', 2)[1]] = float(line.rsplit(" ", 1)[1])
    if cpu is None:
        raise RuntimeError("no cursor_byok_process_cpu_seconds in /metrics")
    return cpu, stages


def exec_answers(request: pb.ExecServerMessage) -> list[pb.AgentClientMessage]:
    """The read result (any other tool is rejected), then the stream close."""
    if request.WhichOneof("message") == "read_args":
        success = pb.ReadSuccess(path=request.read_args.path, content=FILE_TEXT, total_lines=40)
        result = pb.ReadResult(success=success)
    else:
        result = pb.ReadResult(rejected=pb.ReadRejected(reason="the bench only reads"))
    reply = pb.ExecClientMessage(id=request.id, exec_id=request.exec_id, read_result=result)
    close = pb.ExecClientControlMessage(stream_close=pb.ExecClientStreamClose(id=request.id))
    return [
        pb.AgentClientMessage(exec_client_message=reply),
        pb.AgentClientMessage(exec_client_control_message=close),
    ]


async def append(pool: Pool, request_id: str, seqno: int, message: pb.AgentClientMessage) -> None:
    body = bidi_pb2.BidiAppendRequest(
        data=message.SerializeToString().hex(),
        request_id=bidi_pb2.BidiRequestId(request_id=request_id),
        append_seqno=seqno,
    ).SerializeToString()
    conn = pool.take()
    try:
        status = await conn.post(BIDI_APPEND, body, "application/proto")
        await conn.read_body()
    except BaseException:
        conn.close()
        raise
    pool.give(conn)
    if status != 200:
        raise RuntimeError(f"BidiAppend {seqno}: HTTP {status}")


async def server_turn(
    pool: Pool,
    text: str,
    conversation_id: str,
    turn: int,
    state: bytes | None = None,
    keep: Callable[[bytes], None] | None = None,
    clock: Clock | None = None,
) -> Stream:
    """One turn: open RunSSE, append the run request (the clock starts), read
    to the end of the stream, answering exec requests on the way. As the
    official client does, the stream is read while the append is under way:
    a delta that comes before the append's answer is seen when it comes.
    `state` goes with the run request; `keep` is given each checkpoint; with
    `clock`, an exec request is answered once the checkpoint after it came,
    the server's clocks read first (`Stream.exec_clocks`)."""
    seen = Stream()
    waiting: pb.ExecServerMessage | None = None
    received = 0
    request_id = f"req-{conversation_id}-{turn}"
    conn = pool.take()
    appending: asyncio.Task[None] | None = None
    try:
        opening = encode_envelope(bidi_pb2.BidiRequestId(request_id=request_id).SerializeToString())
        status = await conn.post(RUN_SSE, opening, "application/connect+proto")
        if status != 200:
            raise RuntimeError(f"RunSSE: HTTP {status}")
        sent = time.perf_counter()

        async def first_append() -> None:
            await append(pool, request_id, 0, run_request(text, conversation_id, turn, state))
            seen.append_s = time.perf_counter() - sent

        seqno = 1  # the run request was append 0

        async def answer(request: pb.ExecServerMessage) -> None:
            nonlocal seqno, received
            if clock is not None:
                seen.exec_clocks.append(await clock())
                seen.exec_bytes.append(received)
                received = 0
            for reply in exec_answers(request):
                await append(pool, request_id, seqno, reply)
                seqno += 1

        appending = asyncio.create_task(first_append())
        decoder = EnvelopeDecoder()
        async for now, chunk in conn.chunks():
            chars = 0
            received += len(chunk)
            for envelope in decoder.feed(chunk):
                payload = envelope.message()
                if envelope.is_end_stream:
                    error = json.loads(payload).get("error")
                    if error:
                        raise RuntimeError(f"stream ended with {error}")
                    continue
                message = pb.AgentServerMessage.FromString(payload)
                top = message.WhichOneof("message")
                if top == "interaction_update":
                    update = message.interaction_update
                    if update.WhichOneof("message") == "text_delta":
                        chars += len(update.text_delta.text)
                elif top == "exec_server_message":
                    await appending  # exec answers follow the run request
                    if waiting is not None:
                        await answer(waiting)
                    waiting = message.exec_server_message
                    if clock is None:
                        await answer(waiting)
                        waiting = None
                elif top == "conversation_checkpoint_update":
                    if keep is not None:
                        keep(message.conversation_checkpoint_update.SerializeToString())
                    if waiting is not None:  # the checkpoint after the exec request
                        await answer(waiting)
                        waiting = None
                elif top == "kv_server_message":
                    await appending
                    await append(pool, request_id, seqno, kv_reply(message.kv_server_message))
                    seqno += 1
            seen.got(now, chars, sent)
        await appending
        if not decoder.ended:
            raise RuntimeError("the stream ended without an end-of-stream message")
        pool.give(conn)
    except Exception as error:  # noqa: BLE001 (as above)
        seen.error = f"{type(error).__name__}: {error}"
        conn.close()
        if appending is not None and not appending.done():
            appending.cancel()
    return seen


# -- through the server over HTTP/2 (Run) ----------------------------------------------


class H2Pool:
    """HTTP/2 connections to one server, up to STREAMS_PER_CONNECTION Run
    streams each, as a client multiplexes its turns."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.connections: list[H2Client] = []
        self.opened = 0
        self._lock = asyncio.Lock()

    async def open(self, slot: int | None = None) -> RunStream:
        """A new Run stream: on the next connection with room, or with `slot`
        (steady load: one stream at a time per slot) on that slot's."""
        async with self._lock:
            index = (self.opened if slot is None else slot) // STREAMS_PER_CONNECTION
            self.opened += 1
            while len(self.connections) <= index:
                self.connections.append(await FastH2Client.connect(self.url))
            if self.connections[index].closed:  # closed while idle: connect again
                self.connections[index] = await FastH2Client.connect(self.url)
            connection = self.connections[index].h2
            # A slot's last stream may wait for the server's END_STREAM a
            # moment after its end-of-stream message: wait for its place, as
            # a client queues a stream over the server's limit.
            while connection.open_outbound_streams >= STREAMS_PER_CONNECTION:  # noqa: ASYNC110
                await asyncio.sleep(0.001)  # (h2 tells a stream's close by this count alone)
            return await self.connections[index].open("proto")

    def new_round(self) -> None:
        """Streams of the next round start on the first connection again
        (connections stay warm across rounds, as the HTTP/1.1 pool's do)."""
        self.opened = 0


def read_time(stream: RunStream) -> float:
    """When the latest message at hand was read off the socket (as the other
    sides of the bench stamp theirs), else now."""
    now = time.perf_counter()
    connection = stream.connection
    if not isinstance(connection, FastH2Client):
        return now
    read_at: dict[int, float] = getattr(connection, "read_at", {})  # (its reader not begun)
    return min(now, read_at.get(stream.stream_id, now))


async def server_h2_turn(
    pool: H2Pool, text: str, conversation_id: str, turn: int, slot: int | None = None
) -> Stream:
    """One turn as one Run stream: the run request and the exec answers go up
    the request stream while the answer streams down."""
    since: float | None = None
    for _ in range(UNTAKEN_RETRIES):
        seen, stream, since = await h2_attempt(pool, text, conversation_id, turn, slot, since)
        if not stream or not stream.untaken:
            break
    return seen


UNTAKEN_RETRIES = 3
"""A stream the server never took (opened as its GOAWAY came) is sent again
on a new connection, as a client does; the turn's clock keeps running from
the first attempt, so the wait is counted against the server."""


async def h2_attempt(
    pool: H2Pool,
    text: str,
    conversation_id: str,
    turn: int,
    slot: int | None,
    since: float | None,
) -> tuple[Stream, RunStream | None, float]:
    """One try at the turn, and when its clock started (`since`, when an
    earlier try was not taken)."""
    seen = Stream()
    stream: RunStream | None = None
    sent = time.perf_counter() if since is None else since
    try:
        stream = await pool.open(slot)
        # The clock starts as on the HTTP/1.1 side, where the run request is
        # appended once RunSSE has answered: on a stream the server has taken.
        await asyncio.wait_for(stream.responded.wait(), 300)
        if stream.untaken:
            return seen, stream, sent
        if since is None:
            sent = time.perf_counter()
        await stream.send(run_request(text, conversation_id, turn))
        end: End | None = None
        async with asyncio.timeout(300):
            while end is None:
                # What one wake finds, as one read of the HTTP/1.1 side: the
                # messages of the DATA frames read together.
                batch = [await stream.items.get()]
                while not stream.items.empty():
                    batch.append(stream.items.get_nowait())
                now, chars = read_time(stream), 0
                for item in batch:
                    if isinstance(item, End):
                        end = item
                        break
                    top = item.WhichOneof("message")
                    if top == "exec_server_message":
                        for answer in exec_answers(item.exec_server_message):
                            await stream.send(answer)
                    elif top == "kv_server_message" and not stream.ended:
                        # (an answer the server stopped waiting for is not sent)
                        await stream.send(kv_reply(item.kv_server_message))
                    elif item.interaction_update.WhichOneof("message") == "text_delta":
                        chars += len(item.interaction_update.text_delta.text)
                seen.got(now, chars, sent)
        if end.error:
            raise RuntimeError(f"stream ended with {end.error}")
    except Exception as error:  # noqa: BLE001 (as above)
        seen.error = f"{type(error).__name__}: {error}"
    finally:
        if stream is not None:
            stream.end_request()  # the stream closed, its place on the connection free
    return seen, stream, sent


# -- commands ------------------------------------------------------------------------


class Client:
    def __init__(self, provider_url: str) -> None:
        self.provider = Pool(provider_url)
        self.servers: dict[str, Pool] = {}
        self.h2: dict[str, H2Pool] = {}
        self.checkpoints: dict[str, bytes] = {}
        """Each conversation's last checkpoint, sent back with its next run."""

    def server(self, url: str) -> Pool:
        if url not in self.servers:
            self.servers[url] = Pool(url)
        return self.servers[url]

    def one_stream(self, command: dict[str, Any]) -> Callable[[str, int], Awaitable[Stream]]:
        """What one stream of a `streams` command is: (tag, slot) -> Stream."""
        deltas, pace_ms = command["deltas"], command["pace_ms"]
        text = f"[bench deltas={deltas} pace_ms={pace_ms:g}] say something"
        if command["mode"] == "direct":
            return lambda tag, _: direct_stream(self.provider, deltas, pace_ms, tag)
        if command["mode"] == "server-h2":
            pool = self.h2.setdefault(command["url"], H2Pool(command["url"]))
            pool.new_round()
            steady = command.get("turns", 0) > 0
            return lambda tag, slot: server_h2_turn(pool, text, tag, 1, slot if steady else None)
        server = self.server(command["url"])
        return lambda tag, _: server_turn(server, text, tag, 1)

    async def streams(self, command: dict[str, Any]) -> dict[str, Any]:
        """A burst (all N streams at once), or with `turns` a steady load."""
        if command.get("turns", 0) > 0:
            return await self.steady(command)
        n, tag = command["n"], command["tag"]
        began = time.perf_counter()
        one = self.one_stream(command)
        done = await asyncio.gather(*(one(f"{tag}-{i}", i) for i in range(n)))
        return {"wall_s": time.perf_counter() - began, "streams": [asdict(s) for s in done]}

    async def steady(self, command: dict[str, Any]) -> dict[str, Any]:
        """N slots, each running `turns` streams back to back, their starts
        spread evenly over one stream's length: from the last slot's start
        until the first slot's end, N streams are open at every moment and
        the offered load is a steady N x (1000 / pace_ms) deltas/s. Answers
        the streams that started in that window and the deltas per second
        that arrived in it."""
        n, tag, turns = command["n"], command["tag"], command["turns"]
        length_s = command["deltas"] * command["pace_ms"] / 1000
        one = self.one_stream(command)
        began = time.perf_counter()

        async def slot(i: int) -> list[Stream]:
            await asyncio.sleep(max(0.0, began + i * length_s / n - time.perf_counter()))
            return [await one(f"{tag}-{i}-{k}", i) for k in range(turns)]

        slots = await asyncio.gather(*(slot(i) for i in range(n)))
        opened = began + (n - 1) * length_s / n  # the last slot's start
        closing = min(max(s.last_s for s in streams) for streams in slots)
        window = [s for streams in slots for s in streams if opened <= s.start_s < closing]
        if closing <= opened:  # too few turns for a steady window
            window, rate = [s for streams in slots for s in streams], None
        else:
            rate = sum(
                s.deltas * overlap(s.first_s, s.last_s, opened, closing)
                for streams in slots
                for s in streams
                if s.error is None
            ) / (closing - opened)
        failed = [s for streams in slots for s in streams if s.error is not None]
        return {
            "wall_s": time.perf_counter() - began,
            "streams": [asdict(s) for s in window + [f for f in failed if f not in window]],
            "rate": rate,
            "deltas": sum(s.deltas for streams in slots for s in streams),
        }

    async def turn(self, command: dict[str, Any]) -> dict[str, Any]:
        turn, conversation, url = command["turn"], command["conversation"], command["url"]
        calls, batch = command.get("tool_calls", 1), command.get("batch", 1)
        text = f"[bench tool calls={calls} batch={batch}] turn {turn}: what is in notes.txt now?"
        pool = self.server(url)

        def keep(checkpoint: bytes) -> None:
            self.checkpoints[conversation] = checkpoint

        state = self.checkpoints.get(conversation)
        clock: Clock | None = (lambda: read_clocks(url)) if command.get("clock") else None
        seen = await server_turn(pool, text, conversation, turn, state, keep, clock)
        return asdict(seen)


def overlap(first: float, last: float, start: float, end: float) -> float:
    """The share of a stream's deltas that arrived in [start, end], its
    deltas taken as evenly paced between its first and last."""
    if last <= first:
        return 1.0 if start <= first <= end else 0.0
    return max(0.0, min(last, end) - max(first, start)) / (last - first)


async def main(provider_url: str) -> None:
    raise_fd_limit()
    client = Client(provider_url)
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, "")

    # A daemon thread: should a command fail, the process ends with its
    # traceback (and the bench sees it), not waiting on stdin for ever.
    threading.Thread(target=read, name="stdin", daemon=True).start()
    while line := await lines.get():
        command = json.loads(line)
        answer = await (client.streams if command["op"] == "streams" else client.turn)(command)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def raise_fd_limit(wanted: int = 16384) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def run(provider_url: str) -> None:
    try:
        import uvloop  # noqa: PLC0415
    except ImportError:
        asyncio.run(main(provider_url))
    else:
        uvloop.run(main(provider_url))


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        run(sys.argv[1])
