"""CPU cost of each adapter's stream parsing, over the floor any parser pays.

For every wire API, the recorded fixture bodies are fed (in 1 KiB chunks,
as a socket would deliver them) through `SSEParser` and the adapter's stream
state machine, which build every ResponseEvent and the final message. The
baseline does the unavoidable part of that work on the same chunks: SSE
framing (`SSEParser`) and parsing each `data:` payload with the adapters' own
JSON parser (`providers.common.loads`, jiter), measured alternately in the
same run. What the ratio shows is the cost of the events and the message.
No network: bytes go straight into the parsers.

Prints one line per adapter: `parse_cost_ratio[<api>] = X` (target X <= 3).
Then the CPU per byte of one SSE line with no line end until its last byte
(a provider sending one huge event, or none at all), fed in 1 KiB chunks, at
1 MiB and at 16 MiB, and `sse_long_line_ratio` of the two: about 1 means a
line costs the same per byte however long it grows; copying the held line
again on every chunk would make it about 16.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.providers.anthropic import AnthropicStreamParser
from cursor_byok.llm.providers.common import loads
from cursor_byok.llm.providers.gemini import GeminiStreamParser
from cursor_byok.llm.providers.openai_chat import ChatStreamParser
from cursor_byok.llm.providers.openai_responses import ResponsesStreamParser
from cursor_byok.llm.sse import SSEParser
from cursor_byok.llm.stream import StreamParser, feed_bytes

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "llm"
CHUNK = 1024
ROUNDS = 40
MIN_SECONDS = 0.03

ADAPTERS: dict[str, tuple[list[str], Callable[[Assembler], StreamParser]]] = {
    "openai-chat": (["openai-chat", "deepseek", "openai-compatible"], ChatStreamParser),
    "anthropic": (["anthropic"], AnthropicStreamParser),
    "openai-responses": (["openai-responses"], ResponsesStreamParser),
    "gemini": (["gemini"], GeminiStreamParser),
}


def bodies(folders: list[str]) -> list[list[bytes]]:
    out = []
    for folder in folders:
        for path in sorted((FIXTURES / folder).glob("*.sse")):
            data = path.read_bytes()
            out.append([data[i : i + CHUNK] for i in range(0, len(data), CHUNK)])
    return out


def per_run(run: Callable[[], None]) -> float:
    """CPU seconds of one `run`, averaged over at least MIN_SECONDS of repeats."""
    count = 0
    start = time.process_time()
    while True:
        run()
        count += 1
        elapsed = time.process_time() - start
        if elapsed >= MIN_SECONDS:
            return elapsed / count


def best_ratio(adapter: Callable[[], None], baseline: Callable[[], None]) -> float:
    """Best of ROUNDS for each side, the two measured alternately so that
    machine load drifts affect both alike."""
    best_adapter = best_baseline = float("inf")
    for _ in range(ROUNDS):
        best_baseline = min(best_baseline, per_run(baseline))
        best_adapter = min(best_adapter, per_run(adapter))
    return best_adapter / best_baseline


def long_line(size: int) -> Callable[[], None]:
    """One `data:` line of `size` bytes fed in CHUNK pieces, then its end."""
    chunks = [b"data: "] + [b"x" * CHUNK] * (size // CHUNK) + [b"\n\n"]

    def run() -> None:
        sse = SSEParser()
        for chunk in chunks:
            sse.feed(chunk)

    return run


def main() -> None:
    costs = {}
    for mib in (1, 16):
        costs[mib] = min(per_run(long_line(mib << 20)) for _ in range(ROUNDS // 4)) / (mib << 20)
        print(f"sse_long_line_ns_per_byte[{mib}MiB] = {costs[mib] * 1e9:.2f}")
    print(f"sse_long_line_ratio = {costs[16] / costs[1]:.2f}")
    if not FIXTURES.is_dir():
        missing = f"({FIXTURES} is missing)"
        sys.exit(f"parse_cost: needs ../shared/fixtures/llm beside the repository {missing}")
    for api, (folders, make_parser) in ADAPTERS.items():
        chunked = bodies(folders)

        def baseline(chunked: list[list[bytes]] = chunked) -> None:
            for chunks in chunked:
                sse = SSEParser()
                for chunk in chunks:
                    for event in sse.feed(chunk):
                        if event.data != "[DONE]":
                            loads(event.data)
                for event in sse.flush():
                    if event.data != "[DONE]":
                        loads(event.data)

        def adapter(
            chunked: list[list[bytes]] = chunked,
            make_parser: Callable[[Assembler], StreamParser] = make_parser,
            name: str = api,
        ) -> None:
            for chunks in chunked:
                sse = SSEParser()
                parser = make_parser(Assembler(name, "bench", "bench-model"))
                for chunk in chunks:
                    feed_bytes(sse, parser, chunk)
                for event in sse.flush():
                    if parser.assembler.terminated:
                        break
                    parser.on_event(event)
                if not parser.assembler.terminated:
                    parser.on_end()

        ratio = best_ratio(adapter, baseline)
        print(f"parse_cost_ratio[{api}] = {ratio:.2f}")


if __name__ == "__main__":
    main()
