"""The whole-server benchmark's fake OpenAI Chat Completions provider, run in
a process of its own (`python bench/fake_provider.py`; prints its port).

`POST /v1/chat/completions` over HTTP/1.1 keep-alive, chunked SSE, in the
exact chunk shape of the recorded Chat Completions streams. What it answers
is read from the last `[bench ...]` marker in the request body:
  `[bench deltas=D pace_ms=P]`  a text answer of D content deltas, one every
                                P ms (the offered load: P = 10 is 100 deltas/s)
  `[bench tool]`                a `read_file` tool call, at once; the request
                                that carries its result gets a short text answer
Each delta's text is a 6-character token (`t0042 `): a client counts the
deltas relayed to it by the length of the text it got.

Every stream's deltas are due at fixed times from its start (no drift from
late wake-ups), written by one ticker for all streams: the provider spends
as little CPU as it can, its CPU is not the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import json
import re
import sys
import time
from dataclasses import dataclass, field

TOKEN_CHARS = 6
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


def text_answer(deltas: int) -> list[bytes]:
    """The role chunk, `deltas` content chunks, finish + usage + [DONE]."""
    return [_ROLE, *(_chunk({"content": token(n)}) for n in range(deltas)), _STOP + _TAIL]


def tool_call(call_id: str) -> bytes:
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
    parts = [_chunk(header)]
    for piece in ('{"', "path", '":"', "notes", ".txt", '"}'):
        parts.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    return b"".join([*parts, _chunk({}, "tool_calls"), _TAIL])


@dataclass(order=True)
class _Due:
    at: float
    order: int
    writer: asyncio.StreamWriter = field(compare=False)
    parts: list[bytes] = field(compare=False)
    index: int = field(compare=False, default=0)
    pace_s: float = field(compare=False, default=0.0)
    start: float = field(compare=False, default=0.0)
    done: asyncio.Event = field(compare=False, default_factory=asyncio.Event)


class FakeProvider:
    def __init__(self) -> None:
        self._heap: list[_Due] = []
        self._order = itertools.count()
        self._wake = asyncio.Event()
        self._calls = itertools.count()

    async def ticker(self) -> None:
        """Write every part that is due; sleep until the next one is."""
        while True:
            if not self._heap:
                self._wake.clear()
                await self._wake.wait()
                continue
            now = time.perf_counter()
            while self._heap and self._heap[0].at <= now:
                due = heapq.heappop(self._heap)
                if due.writer.is_closing():
                    due.done.set()
                    continue
                due.writer.write(due.parts[due.index])
                due.index += 1
                if due.index == len(due.parts):
                    due.done.set()
                    continue
                due.at = due.start + due.index * due.pace_s
                heapq.heappush(self._heap, due)
            if self._heap:
                await asyncio.sleep(max(self._heap[0].at - time.perf_counter(), 0))

    async def stream(self, writer: asyncio.StreamWriter, parts: list[bytes], pace_s: float) -> None:
        now = time.perf_counter()
        due = _Due(now, next(self._order), writer, parts, pace_s=pace_s, start=now)
        heapq.heappush(self._heap, due)
        self._wake.set()
        await due.done.wait()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
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
        writer.write(_HEAD)
        markers = _MARKER.findall(body)
        options = dict(
            item.split(b"=", 1) if b"=" in item else (item, b"")
            for item in (markers[-1].split() if markers else [])
        )
        if b"tool" in options:
            after_tool = json.loads(body)["messages"][-1].get("role") == "tool"
            writer.write(b"".join(text_answer(4)) if after_tool else tool_call(self._call_id()))
        else:
            deltas = int(options.get(b"deltas", b"10"))
            pace_s = float(options.get(b"pace_ms", b"10")) / 1000
            await self.stream(writer, text_answer(deltas), pace_s)
        await writer.drain()
        return True

    def _call_id(self) -> str:
        return f"call_bench_{next(self._calls)}"


async def main() -> None:
    provider = FakeProvider()
    ticker = asyncio.create_task(provider.ticker())
    server = await asyncio.start_server(provider.handle, "127.0.0.1", 0, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    # Runs until the parent closes our stdin.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    ticker.cancel()
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
