"""The whole-server benchmark's fake OpenAI Chat Completions provider, run in
a process of its own (`python bench/fake_provider.py`; prints its port).

`POST /v1/chat/completions` over HTTP/1.1 keep-alive, chunked SSE, in the
exact chunk shape of the recorded Chat Completions streams. What it answers
is read from the last `[bench ...]` marker in the request body:
  `[bench deltas=D pace_ms=P]`  a text answer of D content deltas, one every
                                P ms (the offered load: P = 10 is 100 deltas/s)
  `[bench tool]`                a `read_file` tool call, at once; the request
                                that carries its result gets a short text answer
  `[bench tool calls=K batch=B]`  K tool calls in all, B to a response (the last
                                response may have fewer), then the text answer:
                                the calls made are the `tool` messages after the
                                last user message
Each delta's text is a 6-character token (`t0042 `): a client counts the
deltas relayed to it by the length of the text it got.

Every stream's deltas are due at fixed times from its start (no drift from
late wake-ups), written by one timer for all streams: the provider spends
as little CPU as it can, its CPU is not the server's (a real provider's is
on another machine). On a small shared machine it still slows the server
when it works while the server does, so a request (the server sends the
whole history in each) is read straight into its connection's buffer, and
what to answer is found from the body's end, not by parsing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import json
import re
import socket
import sys
from dataclasses import dataclass, field
from typing import cast

TOKEN_CHARS = 6
RCVLOWAT_MAX = 16 * 1024 * 1024
BUFFER_BYTES = 256 * 1024
"""A connection's buffer to begin with, and the room it keeps free to read into."""
TICK_S = 0.001
"""The loop clock's step on uvloop."""
_MARKER = re.compile(rb"\[bench ([^\]]*)\]")
_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"transfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n"
)


def _chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    payload = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1754432626,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_ff25b2783a",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }
    data = b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(data), data)


_USAGE = {
    "id": "chatcmpl-bench",
    "object": "chat.completion.chunk",
    "created": 1754432626,
    "model": "gpt-4o-2024-08-06",
    "choices": [],
    "usage": {"prompt_tokens": 448, "completion_tokens": 19, "total_tokens": 467},
}
_USAGE_DATA = b"data: " + json.dumps(_USAGE).encode() + b"\n\n"
_TAIL = (
    b"%x\r\n%s\r\n" % (len(_USAGE_DATA), _USAGE_DATA)
    + b"%x\r\n%s\r\n" % (len(b"data: [DONE]\n\n"), b"data: [DONE]\n\n")
    + b"0\r\n\r\n"
)
_ROLE = _chunk({"role": "assistant", "content": "", "refusal": None})
_STOP = _chunk({}, "stop")


def token(n: int) -> str:
    return f"t{n % 10000:04d} "


@functools.cache
def text_answer(deltas: int) -> list[bytes]:
    """The role chunk, `deltas` content chunks, finish + usage + [DONE]
    (the same bytes for every request asking for that many: made once)."""
    return [_ROLE, *(_chunk({"content": token(n)}) for n in range(deltas)), _STOP + _TAIL]


def tool_call(*call_ids: str) -> bytes:
    """A response calling `read_file` once per id, as OpenAI streams parallel
    calls: each call's header (the first with the role), then its arguments
    in pieces."""
    parts = []
    for index, call_id in enumerate(call_ids):
        function = {"name": "read_file", "arguments": ""}
        header = {"index": index, "id": call_id, "type": "function", "function": function}
        if index == 0:
            first = {"role": "assistant", "content": None, "tool_calls": [header], "refusal": None}
            parts.append(_chunk(first))
        else:
            parts.append(_chunk({"tool_calls": [header]}))
        for piece in ('{"', "path", '":"', "notes", ".txt", '"}'):
            parts.append(
                _chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    return b"".join([*parts, _chunk({}, "tool_calls"), _TAIL])


_USER = b'"role":"user"'
_TOOL = b'"role":"tool"'


def calls_made(body: bytearray, start: int, end: int) -> int:
    """The tool results since the last user message in `body[start:end]`:
    the calls of this turn. Read from the end of the canonical JSON (keys
    sorted, no spaces), not by parsing it: the body carries the whole
    history, and this process should spend as little CPU on it as it can
    (its work is not the server's, but on a shared machine it slows the
    server all the same)."""
    return body.count(_TOOL, max(body.rfind(_USER, start, end), start), end)


def last_marker(body: bytearray, start: int, end: int) -> bytes | None:
    """The options of the last `[bench ...]` marker in `body[start:end]`."""
    at = body.rfind(b"[bench ", start, end)
    if at < 0:
        return None
    found = _MARKER.match(body, at, end)
    return found.group(1) if found else None


def _future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()


@dataclass(eq=False)
class _Stream:
    writer: asyncio.WriteTransport
    parts: list[bytes]
    pace_s: float
    start: float
    index: int = 0
    done: asyncio.Future[None] = field(default_factory=_future)


class FakeProvider:
    """Writes every stream's parts when due, from one timer callback for all
    streams. The clock is the loop's own, which its timers keep: on uvloop
    that is whole milliseconds, and a timer cannot wait less than one, so a
    part due within the current millisecond is written now (up to 1 ms
    early) rather than the loop spinning on timers until the clock moves
    (which had this process at a core at 200 streams)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Stream]] = []
        self._order = itertools.count()
        self._calls = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = float("inf")

    def _arm(self) -> None:
        if not self._heap:
            return
        at = self._heap[0][0]
        if self._timer is not None:
            if self._timer_at <= at:
                return
            self._timer.cancel()
        self._timer_at = at
        self._timer = asyncio.get_running_loop().call_at(at, self._tick)

    def _tick(self) -> None:
        if self._timer is not None:  # called early (a new stream): the armed one is moot
            self._timer.cancel()
        self._timer, self._timer_at = None, float("inf")
        # Due: within the loop clock's current millisecond (see above).
        now = asyncio.get_running_loop().time() + TICK_S
        heap = self._heap
        while heap and heap[0][0] < now:
            _, order, due = heapq.heappop(heap)
            if due.writer.is_closing():
                due.done.set_result(None)
                continue
            due.writer.write(due.parts[due.index])
            due.index += 1
            if due.index == len(due.parts):
                due.done.set_result(None)
                continue
            heapq.heappush(heap, (due.start + due.index * due.pace_s, order, due))
        self._arm()

    def stream(self, writer: asyncio.WriteTransport, parts: list[bytes], pace_s: float) -> None:
        """Write `parts` one every `pace_s`, the first at once."""
        now = asyncio.get_running_loop().time()
        due = _Stream(writer, parts, pace_s, now)
        heapq.heappush(self._heap, (now, next(self._order), due))
        self._tick()

    def answer(self, writer: asyncio.WriteTransport, body: bytearray, start: int, end: int) -> None:
        """The response to the request whose body is `body[start:end]`."""
        writer.write(_HEAD)
        marker = last_marker(body, start, end)
        options = dict(
            item.split(b"=", 1) if b"=" in item else (item, b"")
            for item in (marker.split() if marker is not None else [])
        )
        if b"tool" in options:
            calls, batch = int(options.get(b"calls", b"1")), int(options.get(b"batch", b"1"))
            left = calls - calls_made(body, start, end)
            if left <= 0:
                writer.write(b"".join(text_answer(4)))
            else:
                writer.write(tool_call(*(self._call_id() for _ in range(min(batch, left)))))
        else:
            deltas = int(options.get(b"deltas", b"10"))
            pace_s = float(options.get(b"pace_ms", b"10")) / 1000
            self.stream(writer, text_answer(deltas), pace_s)

    def _call_id(self) -> str:
        return f"call_bench_{next(self._calls)}"


class Connection(asyncio.BufferedProtocol):
    """One client connection: requests (HTTP/1.1, keep-alive, one at a
    time) are read straight into one buffer, kept for the connection and
    grown to the largest request, so a long history's body costs the
    kernel's copy into it and nothing more."""

    def __init__(self, provider: FakeProvider) -> None:
        self.provider = provider
        self.buffer = bytearray(BUFFER_BYTES)
        self.used = 0
        self.searched = 0
        """Where the search for the end of the head goes on from."""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: no isinstance.
        self.transport = cast(asyncio.Transport, transport)
        self.lowat = 1

    def _wake_at(self, missing: int) -> None:
        """Be woken only once the rest of the body is in (SO_RCVLOWAT): on
        loopback the sender's kernel work includes waking the reader, each
        time a piece arrives, which a remote provider's reading would not
        cost the server."""
        lowat = min(missing, RCVLOWAT_MAX)
        if lowat == self.lowat or self.transport is None:
            return
        sock = self.transport.get_extra_info("socket")
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, lowat)
            self.lowat = lowat

    def get_buffer(self, sizehint: int) -> memoryview:
        if len(self.buffer) - self.used < BUFFER_BYTES:
            self.buffer.extend(bytes(len(self.buffer)))  # twice as big
        return memoryview(self.buffer)[self.used :]

    def buffer_updated(self, nbytes: int) -> None:
        self.used += nbytes
        while self._request():
            pass

    def _request(self) -> bool:
        """Answer the request the buffer holds whole, if it does."""
        buffer = self.buffer
        head_end = buffer.find(b"\r\n\r\n", max(self.searched - 3, 0), self.used)
        if head_end < 0:
            self.searched = self.used
            return False
        length = 0
        for line in bytes(buffer[:head_end]).split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        start, end = head_end + 4, head_end + 4 + length
        if self.used < end:
            self._wake_at(end - self.used)
            return False
        self._wake_at(1)
        assert self.transport is not None
        self.provider.answer(self.transport, buffer, start, end)
        rest = self.used - end
        buffer[:rest] = buffer[end : self.used]
        self.used, self.searched = rest, 0
        return rest > 0


async def main() -> None:
    provider = FakeProvider()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(provider), "127.0.0.1", 0, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    # Runs until the parent closes our stdin.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    server.close()


def run() -> None:
    try:
        import uvloop  # noqa: PLC0415
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        run()
