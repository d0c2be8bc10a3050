"""Whole-server benchmark: the real server between a Cursor-like client and a
paced fake provider, at 1, 50 and 200 concurrent conversations.

Three parts, all on 127.0.0.1:
- a fake OpenAI Chat Completions provider in this process (asyncio, its own
  port) that streams SSE events with a fixed delay between them. The first
  call of a conversation answers with a `read_file` tool call, the second
  (the one carrying the tool result) replays a recorded text answer from
  ../shared/fixtures/llm byte for byte;
- the real server in a subprocess (`build_service` + `Router` + SQLite in a
  temporary folder, `serving`), so its CPU time and peak RSS are its own;
- a client that runs N conversations at once: RunSSE, BidiAppend of the run
  request, deltas, the exec request, the exec result + stream close appends,
  the rest of the turn, the end of the stream.

The same conversations are also run against the fake provider directly (same
pacing, same concurrency) to get the baseline the server adds to. Prints, from
one run (one line each):
  added_ttft_p50_ms / added_ttft_p95_ms  time to the first model token through the
                                         server minus the same percentile called
                                         directly, N=1 (per N with a [N] suffix)
  added_event_latency_p50_ms[N]          provider write -> client read of each text
                                         delta, through the server minus directly
  events_per_s[N]                        RunSSE messages (no heartbeats) read by the
                                         clients per second of wall time
  cpu_s_per_1000_events                  server process CPU over all levels
  peak_rss_mb                            the server process's peak RSS
  prefix_stable_share                    per conversation, the bytes of the second
                                         provider request's `messages` elements that
                                         equal the first request's, over all of them
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


from cursor_byok.transport.cursor.client import exec_reply, kind, run_request, stream_close  # noqa: E402
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb  # noqa: E402
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2  # noqa: E402
from cursor_byok.transport.wire.framing import EnvelopeDecoder, encode_envelope  # noqa: E402

FIXTURES = ROOT.parent / "shared" / "fixtures" / "llm"
ANSWER_FIXTURE = "openai-chat/cached-tokens-gpt4o.sse"
LEVELS = (1, 50, 200)
ROUNDS = {1: 20, 50: 2, 200: 1}
DELAY_S = 0.005
MODEL_KINDS = {"text_delta", "thinking_delta", "partial_tool_call"}
FILE_TEXT = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(40))
REQUIRED = (
    "added_ttft_p50_ms",
    "added_ttft_p95_ms",
    "cpu_s_per_1000_events",
    "peak_rss_mb",
    "prefix_stable_share",
)


def required_keys(levels: Sequence[int]) -> list[str]:
    return [*REQUIRED, *(f"events_per_s[{n}]" for n in levels)]


# -- what the fake provider says ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SSEEvent:
    raw: bytes
    forwarded: bool
    """True when the server turns this event into a RunSSE message (a tool call
    start or a non-empty text delta): the events whose latency we time."""


def _chunk(tag: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    payload = {
        "id": f"chatcmpl-bench-{tag}",
        "object": "chat.completion.chunk",
        "created": 1754432626,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_ff25b2783a",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def tool_call_script(tag: str) -> list[SSEEvent]:
    """The first answer: a `read_file` call. No recording calls a tool the server
    offers, so this one is synthesized in the exact shape of the recorded
    Chat Completions tool-call streams (openai-chat/tool-call-long-arguments.sse):
    a role + tool-call header chunk, argument fragments, finish_reason
    tool_calls, a usage chunk with empty choices, [DONE]."""
    call_id = f"call_bench_{tag}"
    header = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "index": 0,
                "id": call_id,
                "type": "function",
                "function": {"name": "read_file", "arguments": ""},
            }
        ],
        "refusal": None,
    }
    events = [SSEEvent(_chunk(tag, header), True)]
    for piece in ('{"', "path", '":"', "notes", ".txt", '"}'):
        fragment = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        events.append(SSEEvent(_chunk(tag, fragment), False))
    events.append(SSEEvent(_chunk(tag, {}, "tool_calls"), False))
    usage = {
        "id": f"chatcmpl-bench-{tag}",
        "object": "chat.completion.chunk",
        "created": 1754432626,
        "model": "gpt-4o-2024-08-06",
        "choices": [],
        "usage": {"prompt_tokens": 448, "completion_tokens": 19, "total_tokens": 467},
    }
    events.append(SSEEvent(b"data: " + json.dumps(usage).encode() + b"\n\n", False))
    events.append(SSEEvent(b"data: [DONE]\n\n", False))
    return events


def _carries_text(raw: bytes) -> bool:
    data = raw.strip().removeprefix(b"data:").strip()
    if not data.startswith(b"{"):
        return False
    choices = json.loads(data).get("choices") or []
    return bool(choices and (choices[0].get("delta") or {}).get("content"))


def recorded_script(name: str) -> list[SSEEvent]:
    """A recorded SSE body cut into its events, each sent verbatim."""
    body = (FIXTURES / name).read_bytes()
    events = [m.group(0) for m in re.finditer(rb".*?(?:\r?\n){2}", body, re.S)]
    assert b"".join(events) == body, f"{name}: not a sequence of SSE events"
    return [SSEEvent(raw, _carries_text(raw)) for raw in events]


# -- the fake provider ---------------------------------------------------------------


@dataclass
class ProviderCall:
    messages: list[Any]
    tools: Any
    sent: list[float] = field(default_factory=list)
    """perf_counter() when each forwarded event was written."""


_TAG = re.compile(rb"\[bench:([A-Za-z0-9_.-]+)\]")


class FakeProvider:
    """`POST /v1/chat/completions` over HTTP/1.1 keep-alive, chunked SSE, paced.

    A conversation is known by the `[bench:TAG]` in its user message. A request
    whose messages hold a tool result gets the recorded answer, any other the
    tool call."""

    def __init__(self, delay_s: float, answer: list[SSEEvent]) -> None:
        self.delay_s = delay_s
        self.answer = answer
        self.calls: dict[str, list[ProviderCall]] = {}
        self.port = 0
        self._server: asyncio.Server | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=2048)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False  # the client closed an idle keep-alive connection
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length)
        found = _TAG.search(body)
        tag = found.group(1).decode() if found else "untagged"
        request = json.loads(body)
        messages = request.get("messages", [])
        after_tool = any(m.get("role") == "tool" for m in messages)
        script = self.answer if after_tool else tool_call_script(tag)
        call = ProviderCall(messages, request.get("tools"))
        self.calls.setdefault(tag, []).append(call)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n"
        )
        await writer.drain()
        for event in script:
            await asyncio.sleep(self.delay_s)
            writer.write(b"%x\r\n%s\r\n" % (len(event.raw), event.raw))
            if event.forwarded:
                call.sent.append(time.perf_counter())
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


# -- the server, in its own process ---------------------------------------------------


def raise_fd_limit(wanted: int = 8192) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class LoopLag:
    """How late a short sleep wakes up: the backlog of an event loop. Tells a
    busy loop (every stream waits for it) from a slow dependency."""

    def __init__(self, period_s: float = 0.01) -> None:
        self.period_s = period_s
        self.samples: list[float] = []

    async def watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            began = loop.time()
            await asyncio.sleep(self.period_s)
            self.samples.append(loop.time() - began - self.period_s)

    def take(self) -> dict[str, float]:
        """p50, p99 and max lag in ms since the last call."""
        samples, self.samples = self.samples, []
        return {
            "p50": percentile(samples, 50) * 1000,
            "p99": percentile(samples, 99) * 1000,
            "max": max(samples, default=0.0) * 1000,
        }


class StoreTimer:
    """Wraps a store's methods (on the instance, the class is untouched) to
    total the time spent in them, waiting for its lock included. The runner
    calls them in worker threads, where a profiler of the loop does not look."""

    METHODS = (
        "load",
        "find_input_commit",
        "commit_input",
        "save_llm_call",
        "get_llm_call",
        "save_client_operation",
        "get_client_operation",
    )

    def __init__(self, store: object) -> None:
        self.calls = 0
        self.total_s = 0.0
        self.max_s = 0.0
        self._lock = threading.Lock()
        for name in self.METHODS:
            setattr(store, name, self._timed(getattr(store, name)))

    def _timed(self, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent = time.perf_counter() - began
                with self._lock:
                    self.calls += 1
                    self.total_s += spent
                    self.max_s = max(self.max_s, spent)

        return timed

    def take(self) -> dict[str, float]:
        with self._lock:
            taken = {
                "store_calls": self.calls,
                "store_s": self.total_s,
                "store_max_ms": self.max_s * 1000,
            }
            self.calls, self.total_s, self.max_s = 0, 0.0, 0.0
        return taken


def _stdin_lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str]:
    """stdin lines, read by a thread of our own: the default executor is the
    server's (its store calls run there), so a blocked read must not hold one
    of its threads. An empty line means end of input."""
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line.strip() or "?")
        loop.call_soon_threadsafe(lines.put_nowait, "")

    threading.Thread(target=read, name="bench-stdin", daemon=True).start()
    return lines


async def _child(provider_url: str, workdir: Path) -> None:
    # Imported here: the parent never loads the server's modules it does not use.
    from cursor_byok.config import load_config  # noqa: PLC0415
    from cursor_byok.routing import Router  # noqa: PLC0415
    from cursor_byok.store.sqlite import SQLiteStore  # noqa: PLC0415
    from cursor_byok.transport.wire.app import build_service, serving  # noqa: PLC0415

    config_file = workdir / "config.toml"
    config_file.write_text(
        f"""
default_model = "bench"
[providers.fake]
api = "openai-chat"
base_url = "{provider_url}"
api_key = "sk-bench-not-a-key"
[models.bench]
provider = "fake"
model = "gpt-4o"
"""
    )
    config = load_config(config_file, env={})
    router = Router(config, env={})
    store = SQLiteStore(workdir / "state.sqlite3")  # the `serve` default: synchronous=FULL
    service = build_service(
        store,
        router,
        models=router.entries,
        default_model=lambda: config.default_model,
        context_window=router.context_window,
    )
    lag = LoopLag()
    watcher = asyncio.create_task(lag.watch())
    timer = StoreTimer(store)
    commands = _stdin_lines(asyncio.get_running_loop())
    try:
        async with serving(service) as url:
            print(url, flush=True)
            while command := await commands.get():  # until the parent closes stdin
                if command == "lag":
                    print(json.dumps({**lag.take(), **timer.take()}), flush=True)
    finally:
        watcher.cancel()
        await router.aclose()
        store.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"maxrss_kb": usage.ru_maxrss}), flush=True)


class ServerProcess:
    def __init__(self, provider_url: str, workdir: Path, profile: Path | None = None) -> None:
        self.log = (workdir / "server.log").open("w")
        command = [sys.executable, str(Path(__file__).resolve()), "--child", provider_url]
        command += [str(workdir), *(["--profile-server", str(profile)] if profile else [])]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            cwd=ROOT,
        )
        self.url = ""
        self.maxrss_kb = 0

    async def start(self) -> str:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.process.stdout.readline), 60)
        if not line.startswith("http://"):
            raise RuntimeError(f"the server did not start: {line!r}; see {self.log.name}")
        self.url = line.strip()
        return self.url

    def cpu_s(self) -> float:
        """utime + stime of the server process, from /proc (Linux)."""
        stat = Path(f"/proc/{self.process.pid}/stat").read_text()
        fields = stat.rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return self.maxrss_kb / 1024

    async def loop_lag(self) -> dict[str, float]:
        """The server's event-loop lag since the last call."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("lag\n")
        self.process.stdin.flush()
        line = await asyncio.wait_for(asyncio.to_thread(self.process.stdout.readline), 30)
        lag: dict[str, float] = json.loads(line)
        return lag

    async def stop(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        rest = await asyncio.to_thread(self.process.stdout.read)
        self.process.stdout.close()
        await asyncio.to_thread(self.process.wait, 30)
        for line in rest.splitlines():
            with contextlib.suppress(ValueError):
                self.maxrss_kb = int(json.loads(line)["maxrss_kb"])
        self.log.close()


# -- the client ---------------------------------------------------------------------


@dataclass
class Conversation:
    """What one conversation saw, with perf_counter() times."""

    tag: str
    ttft_s: float = 0.0
    """run_request append sent -> first model-derived RunSSE message."""
    ttft_after_tool_s: float = 0.0
    """exec result append sent -> first text delta of the second model call."""
    text_received: list[float] = field(default_factory=list)
    events: int = 0
    error: str | None = None


class HTTPConnection:
    """A minimal HTTP/1.1 client connection (keep-alive, content-length or
    chunked bodies). The bench's own client: a general pool (httpcore's scans
    every connection per request) made this process the bottleneck at N=200."""

    def __init__(self, url: str) -> None:
        address = url.split("://", 1)[1].split("/", 1)[0]
        host, _, port = address.rpartition(":")
        self.host, self.port = host, int(port)
        path = url.split("://", 1)[1].partition("/")[2].strip("/")
        self.prefix = f"/{path}" if path else ""
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._chunked = False
        self._length = 0

    async def post(self, path: str, body: bytes, content_type: str) -> int:
        """Send a POST and read the response head; returns the status."""
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        assert self._reader is not None
        self._writer.write(
            f"POST {self.prefix}{path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\n"
            f"content-type: {content_type}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        head = await self._reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:] if line)
        }
        self._chunked = "chunked" in headers.get("transfer-encoding", "")
        self._length = int(headers.get("content-length", "0"))
        return int(lines[0].split(" ", 2)[1])

    async def chunks(self) -> AsyncIterator[tuple[float, bytes]]:
        """The response body as it arrives: (perf_counter() when read, bytes)."""
        assert self._reader is not None
        if not self._chunked:
            yield time.perf_counter(), await self._reader.readexactly(self._length)
            return
        while True:
            size = int((await self._reader.readline()).split(b";")[0], 16)
            data = await self._reader.readexactly(size + 2)
            if size == 0:
                return
            yield time.perf_counter(), data[:-2]

    async def read_body(self) -> bytes:
        return b"".join([data async for _, data in self.chunks()])

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):  # the peer is gone already: nothing to wait for
                await self._writer.wait_closed()
            self._writer = None


def _append_body(request_id: str, seqno: int, message: pb.AgentClientMessage) -> bytes:
    return bidi_pb2.BidiAppendRequest(
        data=message.SerializeToString().hex(),
        request_id=bidi_pb2.BidiRequestId(request_id=request_id),
        append_seqno=seqno,
    ).SerializeToString()


async def _append(
    http: HTTPConnection, request_id: str, seqno: int, message: pb.AgentClientMessage
) -> None:
    body = _append_body(request_id, seqno, message)
    status = await http.post("/aiserver.v1.BidiService/BidiAppend", body, "application/proto")
    await http.read_body()
    if status != 200:
        raise RuntimeError(f"BidiAppend {seqno}: HTTP {status}")


async def server_conversation(base_url: str, tag: str) -> Conversation:
    result = Conversation(tag)
    request_id = f"req-{tag}"
    items: asyncio.Queue[tuple[float, pb.AgentServerMessage | None]] = asyncio.Queue()
    opened = asyncio.Event()
    stream, appends = HTTPConnection(base_url), HTTPConnection(base_url)

    async def read() -> None:
        body = encode_envelope(bidi_pb2.BidiRequestId(request_id=request_id).SerializeToString())
        status = await stream.post(
            "/agent.v1.AgentService/RunSSE", body, "application/connect+proto"
        )
        if status != 200:
            raise RuntimeError(f"RunSSE: HTTP {status}")
        opened.set()
        decoder = EnvelopeDecoder()
        async for now, chunk in stream.chunks():
            for envelope in decoder.feed(chunk):
                if envelope.is_end_stream:
                    error = json.loads(envelope.payload).get("error")
                    if error:
                        raise RuntimeError(f"stream ended with {error}")
                    items.put_nowait((now, None))
                    return
                items.put_nowait((now, pb.AgentServerMessage.FromString(envelope.payload)))
        items.put_nowait((time.perf_counter(), None))

    reader = asyncio.create_task(read())
    try:
        await asyncio.wait_for(opened.wait(), 30)
        sent = time.perf_counter()
        await _append(
            appends,
            request_id,
            0,
            run_request(
                f"[bench:{tag}] What is in notes.txt?", conversation_id=f"conv-{tag}", model="bench"
            ),
        )
        seqno = 1
        after_tool = False
        while True:
            got, message = await asyncio.wait_for(items.get(), 60)
            if message is None:
                break
            what = kind(message)
            if what == "heartbeat":
                continue
            result.events += 1
            if what in MODEL_KINDS and not result.ttft_s:
                result.ttft_s = got - sent
            if what == "text_delta" and after_tool:
                if not result.ttft_after_tool_s:
                    result.ttft_after_tool_s = got - sent
                result.text_received.append(got)
            if what == "exec":
                request = message.exec_server_message
                success = pb.ReadSuccess(
                    path=request.read_args.path, content=FILE_TEXT, total_lines=40
                )
                sent = time.perf_counter()
                after_tool = True
                reply = exec_reply(request, read_result=pb.ReadResult(success=success))
                await _append(appends, request_id, seqno, reply)
                await _append(appends, request_id, seqno + 1, stream_close(request.id))
                seqno += 2
        await reader
    except Exception as error:  # noqa: BLE001 - a benchmark reports a failure, it does not stop at one
        result.error = f"{type(error).__name__}: {error}"
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)  # its failure is `error` above
    finally:
        await stream.close()
        await appends.close()
    return result


async def _provider_stream(
    http: HTTPConnection, body: dict[str, Any], received: list[float]
) -> float:
    """POST one streaming request; return the time of the first forwarded event
    and fill `received` with the arrival time of every forwarded event."""
    first = 0.0
    status = await http.post("/chat/completions", json.dumps(body).encode(), "application/json")
    if status != 200:
        raise RuntimeError(f"provider: HTTP {status}")
    buffer = b""
    async for now, chunk in http.chunks():
        buffer += chunk
        *events, buffer = re.split(rb"\r?\n\r?\n", buffer)
        for raw in events:
            data = raw.strip().removeprefix(b"data:").strip()
            if not data.startswith(b"{"):
                continue
            choices = json.loads(data).get("choices") or []
            delta = (choices[0].get("delta") or {}) if choices else {}
            if delta.get("content") or delta.get("tool_calls", [{}])[0].get("id"):
                first = first or now
                received.append(now)
    return first


async def direct_conversation(base_url: str, tag: str) -> Conversation:
    """The same two model calls, straight to the fake provider, on one
    keep-alive connection (the server's provider client keeps its own warm)."""
    result = Conversation(tag)
    http = HTTPConnection(base_url)
    user = {"role": "user", "content": f"[bench:{tag}] What is in notes.txt?"}
    try:
        sent = time.perf_counter()
        first = await _provider_stream(http, {"messages": [user], "stream": True}, [])
        result.ttft_s = first - sent
        call = {"role": "assistant", "content": None, "tool_calls": [{"id": f"call_bench_{tag}"}]}
        tool = {"role": "tool", "tool_call_id": f"call_bench_{tag}", "content": FILE_TEXT}
        body = {"messages": [user, call, tool], "stream": True}
        sent = time.perf_counter()
        first = await _provider_stream(http, body, result.text_received)
        result.ttft_after_tool_s = first - sent
        result.events = len(result.text_received) + 1
    except Exception as error:  # noqa: BLE001 - the failure is the measurement's result
        result.error = f"{type(error).__name__}: {error}"
    finally:
        await http.close()
    return result


# -- measuring ----------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def event_latencies(conversations: Sequence[Conversation], provider: FakeProvider) -> list[float]:
    """Per text delta of the second model call: client read - provider write."""
    out: list[float] = []
    for conv in conversations:
        calls = provider.calls.get(conv.tag, [])
        if len(calls) < 2 or len(calls[1].sent) != len(conv.text_received):
            continue  # counted as an unmatched conversation below
        out.extend(r - s for r, s in zip(conv.text_received, calls[1].sent, strict=True))
    return out


def _serialized(messages: Sequence[Any]) -> list[bytes]:
    # Key order as received (dicts keep it): a reordered key is a changed message.
    return [json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() for m in messages]


def prefix_share(first: Sequence[Any], second: Sequence[Any]) -> float:
    """Bytes of `second`'s leading elements that equal `first`'s, over all of
    `second`'s element bytes."""
    before, after = _serialized(first), _serialized(second)
    common = 0
    for old, new in zip(before, after, strict=False):
        if old != new:
            break
        common += len(new)
    total = sum(len(b) for b in after)
    return common / total if total else 0.0


@dataclass
class Level:
    n: int
    wall_s: float = 0.0
    events: int = 0
    server_cpu_s: float = 0.0
    bench_cpu_s: float = 0.0
    server_lag: dict[str, float] = field(default_factory=dict)
    bench_lag: dict[str, float] = field(default_factory=dict)
    server: list[Conversation] = field(default_factory=list)
    direct: list[Conversation] = field(default_factory=list)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


async def run_level(
    n: int,
    rounds: int,
    server: ServerProcess,
    provider: FakeProvider,
    url: str,
    bench_lag: LoopLag,
) -> Level:
    level = Level(n)
    for r in range(rounds):
        tags = [f"n{n}-r{r}-{i}" for i in range(n)]
        level.direct += await asyncio.gather(
            *(direct_conversation(provider.base_url, f"direct-{t}") for t in tags)
        )
        await server.loop_lag()
        bench_lag.take()
        cpu, own = server.cpu_s(), sum(os.times()[:2])
        began = time.perf_counter()
        done = await asyncio.gather(*(server_conversation(url, t) for t in tags))
        level.wall_s += time.perf_counter() - began
        level.server_cpu_s += server.cpu_s() - cpu
        level.bench_cpu_s += sum(os.times()[:2]) - own
        for seen, lag in (
            (level.server_lag, await server.loop_lag()),
            (level.bench_lag, bench_lag.take()),
        ):
            for stat, value in lag.items():
                summed = stat in ("store_calls", "store_s")
                seen[stat] = (
                    seen.get(stat, 0.0) + value if summed else max(seen.get(stat, 0.0), value)
                )
        level.server += done
        level.events += sum(c.events for c in done)
    return level


def report(
    levels: Sequence[Level],
    provider: FakeProvider,
    server: ServerProcess,
    bench_cpu_s: float,
    out: TextIO,
) -> None:
    def line(text: str) -> None:
        print(text, file=out, flush=True)

    for level in levels:
        ok = [c for c in level.server if c.error is None]
        direct = [c for c in level.direct if c.error is None]
        failed = len(level.server) - len(ok) + len(level.direct) - len(direct)
        errors = {c.error for c in (*level.server, *level.direct) if c.error}
        n = level.n
        line(
            f"# N={n}: {len(level.server)} conversations, {level.events} events, "
            f"{level.wall_s:.2f} s, failures={failed} {sorted(errors)[:3]}"
        )
        if not ok or not direct:
            continue
        for name, attr in (("ttft", "ttft_s"), ("ttft_after_tool", "ttft_after_tool_s")):
            through = [getattr(c, attr) for c in ok]
            straight = [getattr(c, attr) for c in direct]
            for q in (50, 95):
                line(
                    f"{name}_p{q}_ms[{n}] = {_ms(percentile(through, q))} "
                    f"(direct {_ms(percentile(straight, q))})"
                )
                added = percentile(through, q) - percentile(straight, q)
                line(f"added_{name}_p{q}_ms[{n}] = {_ms(added)}")
        through_ev, straight_ev = event_latencies(ok, provider), event_latencies(direct, provider)
        for q in (50, 95):
            added = percentile(through_ev, q) - percentile(straight_ev, q)
            line(
                f"event_latency_p{q}_ms[{n}] = {_ms(percentile(through_ev, q))} "
                f"(direct {_ms(percentile(straight_ev, q))})"
            )
            line(f"added_event_latency_p{q}_ms[{n}] = {_ms(added)}")
        line(f"events_per_s[{n}] = {level.events / level.wall_s:.1f}")
        per_1000 = level.server_cpu_s / level.events * 1000 if level.events else float("nan")
        line(f"cpu_s_per_1000_events[{n}] = {per_1000:.3f}")
        # 1.0 = one core busy the whole time: the server runs on one event loop.
        line(f"server_cpu_util[{n}] = {level.server_cpu_s / level.wall_s:.2f}")
        line(f"bench_cpu_util[{n}] = {level.bench_cpu_s / level.wall_s:.2f}")
        for name, lag in (("server", level.server_lag), ("bench", level.bench_lag)):
            line(
                f"{name}_loop_lag_ms[{n}] = p50 {lag['p50']:.1f}, p99 {lag['p99']:.1f}, "
                f"max {lag['max']:.1f}"
            )
        store = level.server_lag
        line(
            f"server_store[{n}] = {store['store_calls']:.0f} calls, {store['store_s']:.2f} s "
            f"(max {store['store_max_ms']:.1f} ms, threads and lock wait included)"
        )

    first = levels[0]
    ok = [c for c in first.server if c.error is None]
    direct = [c for c in first.direct if c.error is None]
    for q in (50, 95):
        via_server = percentile([c.ttft_s for c in ok], q)
        direct_ttft = percentile([c.ttft_s for c in direct], q)
        line(f"added_ttft_p{q}_ms = {_ms(via_server - direct_ttft)}")
    events = sum(level.events for level in levels)
    cpu = sum(level.server_cpu_s for level in levels)
    line(f"cpu_s_per_1000_events = {cpu / events * 1000 if events else float('nan'):.3f}")
    line(f"peak_rss_mb = {server.peak_rss_mb():.1f}")
    shares, intact, tools_same = [], 0, 0
    for level in levels:
        for conv in level.server:
            calls = provider.calls.get(conv.tag, [])
            if len(calls) < 2:
                continue
            shares.append(prefix_share(calls[0].messages, calls[1].messages))
            old, new = _serialized(calls[0].messages), _serialized(calls[1].messages)
            intact += new[: len(old)] == old
            tools_same += calls[0].tools == calls[1].tools
    line(f"prefix_stable_share = {statistics.fmean(shares) if shares else float('nan'):.4f}")
    line(
        f"# second requests whose messages extend the first unchanged: {intact}/{len(shares)}; "
        f"same tools: {tools_same}/{len(shares)}"
    )
    line(f"# bench process (client + fake provider) CPU: {bench_cpu_s:.2f} s")


async def run(
    levels: Sequence[int] = LEVELS,
    rounds: dict[int, int] | None = None,
    delay_s: float = DELAY_S,
    answer: str = ANSWER_FIXTURE,
    out: TextIO = sys.stdout,
    profile: Path | None = None,
) -> None:
    rounds = rounds or ROUNDS
    raise_fd_limit()
    provider = FakeProvider(delay_s, recorded_script(answer))
    await provider.start()
    began = time.perf_counter()
    cpu_began = sum(os.times()[:2])
    with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
        server = ServerProcess(provider.base_url, Path(tmp), profile)
        try:
            url = await server.start()
            # Warm-up (not counted): first connections, first SQLite pages, imports.
            await server_conversation(url, "warmup")
            await direct_conversation(provider.base_url, "direct-warmup")
            lag = LoopLag()
            watcher = asyncio.create_task(lag.watch())
            try:
                results = [
                    await run_level(n, rounds.get(n, 1), server, provider, url, lag) for n in levels
                ]
            finally:
                watcher.cancel()
            print(
                f"# delay between provider events {delay_s * 1000:.1f} ms; answer {answer} "
                f"({len(provider.answer)} events); rounds {dict(rounds)}",
                file=out,
            )
            report(results, provider, server, sum(os.times()[:2]) - cpu_began, out)
        finally:
            if server.process.poll() is None:
                await server.stop()
            await provider.stop()
    print(f"# total wall time {time.perf_counter() - began:.1f} s", file=out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--child", nargs=2, metavar=("PROVIDER_URL", "WORKDIR"), help=argparse.SUPPRESS
    )
    parser.add_argument("--levels", type=int, nargs="+", default=list(LEVELS))
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="rounds per level (default: 20 at N=1, 2 at N=50, 1 at N=200)",
    )
    parser.add_argument("--delay-ms", type=float, default=DELAY_S * 1000)
    parser.add_argument(
        "--answer",
        default=ANSWER_FIXTURE,
        help="recorded openai-chat SSE body, relative to the fixtures",
    )
    parser.add_argument(
        "--profile-server",
        type=Path,
        default=None,
        help="run the server under cProfile and write its stats to this file "
        "(slows the server down: for finding hot spots, not for the numbers)",
    )
    args = parser.parse_args(argv)
    if args.child:
        raise_fd_limit()
        child = _child(args.child[0], Path(args.child[1]))
        if args.profile_server is None:
            asyncio.run(child)
            return
        profiler = cProfile.Profile()
        profiler.runcall(asyncio.run, child)
        profiler.dump_stats(args.profile_server)
        return
    rounds = {n: args.rounds for n in args.levels} if args.rounds else None
    profile = args.profile_server.resolve() if args.profile_server else None
    asyncio.run(run(args.levels, rounds, args.delay_ms / 1000, args.answer, sys.stdout, profile))


if __name__ == "__main__":
    main()
