"""Cache benchmark: how much of a long tool session Anthropic's prompt cache
would serve, under the plan our Anthropic adapter places.

A scripted 30-turn tool session (one user message per turn; the model reads
a file, or 25 at once in one turn, then answers) runs through the real
server (Connect over a real socket, SQLite) and the real Anthropic adapter,
against a fake Anthropic provider on 127.0.0.1 that records every request
body. The context window is set so that the conversation is compacted once.
Anthropic's documented cache rules are then simulated over the recorded
bodies (bench/cache_sim.py: 20-block lookback, the model's minimum
cacheable length, tokens = bytes / 4).

Prints, from one run:
  anthropic_cache_read_share = X          cache reads over all prompt tokens
  anthropic_cache_read_share_of_limit = X cache reads over the most any plan
                                          could read (every token not seen in
                                          an earlier request is written once)
  wasted_breakpoints = N                  markers that neither wrote an entry a
                                          later request read nor gave a read
  prefix_extends_share = X                consecutive request pairs (outside the
                                          reset) whose earlier messages are, byte
                                          for byte, the first messages of the next
and, as the baseline measured in the same run, the same figures for the plan
this one replaced (a fixed marker on the system prompt, and up to three
rolling markers from the end, every 18 blocks) placed on the same requests:
  baseline_anthropic_cache_read_share, baseline_wasted_breakpoints
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, SupportsIndex

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.cache_sim import prompt_of, simulate  # noqa: E402
from cursor_byok.client.client import (  # noqa: E402
    CursorClient,
    End,
    exec_reply,
    kind,
    kv_reply,
    run_request,
    stream_close,
)
from cursor_byok.client.replay_provider import ReplayProvider, Reply  # noqa: E402
from cursor_byok.llm.events import ResponseStream  # noqa: E402
from cursor_byok.llm.provider import CallContext, ModelSpec  # noqa: E402
from cursor_byok.llm.providers.anthropic import AnthropicLLM  # noqa: E402
from cursor_byok.llm.providers.anthropic_cache import minimum_cacheable_tokens  # noqa: E402
from cursor_byok.llm.types import RequestMessages  # noqa: E402
from cursor_byok.loop.compaction import SUMMARY_INSTRUCTION  # noqa: E402
from cursor_byok.runtime.model_call import RetryPolicy  # noqa: E402
from cursor_byok.store.sqlite import SQLiteStore  # noqa: E402
from cursor_byok.transport.http.app import build_service, serving  # noqa: E402
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb  # noqa: E402

MODEL = "claude-sonnet-4-5-20250929"
TURNS = 30
WIDE_TURN = 7
WIDE_CALLS = 25
CONTEXT_WINDOW = 32_000
FILE_TEXT = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(90))
SMALL_TEXT = "a small file\n"


def file_name(turn: int, index: int = 0) -> str:
    return f"src/module_{turn}_{index}.py"


# -- the fake provider --------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def reply_body(number: int, blocks: list[dict[str, Any]], stop: str, prompt: int) -> bytes:
    """A Messages stream: message_start, the blocks, message_delta, message_stop."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": f"msg_{number}",
                "usage": {"input_tokens": prompt, "output_tokens": 1},
            },
        },
    ]
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        delta: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    output = sum(len(json.dumps(b)) for b in blocks) // 4
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop},
            "usage": {"output_tokens": output},
        },
        {"type": "message_stop"},
    ]
    return sse(*events)


class ScriptedAnthropic(list[Reply]):
    """The replies of a `ReplayProvider`, decided from the request each one
    answers (read file(s), then answer; summarize when asked): it takes the
    place of the provider's list of replies, which is only ever popped."""

    def __init__(self, server: ReplayProvider) -> None:
        super().__init__()
        self.server = server
        self.summaries: list[int] = []

    def __bool__(self) -> bool:
        return True

    def pop(self, _index: SupportsIndex = -1) -> Reply:
        number = len(self.server.received) - 1
        body = self.server.received[-1].json()
        prompt = prompt_of(body).tokens[-1]
        last = body["messages"][-1]["content"][-1]
        text = last.get("text", "")
        if SUMMARY_INSTRUCTION in text:
            self.summaries.append(number)
            summary = "The user asked for files to be read one task at a time; all were read."
            return Reply(
                reply_body(number, [{"type": "text", "text": summary}], "end_turn", prompt)
            )
        if text.startswith("Task "):
            turn = int(text.split()[1].rstrip(":"))
            width = WIDE_CALLS if turn == WIDE_TURN else 1
            calls = [
                {
                    "type": "tool_use",
                    "id": f"toolu_{turn}_{i}",
                    "name": "read_file",
                    "input": {"path": file_name(turn, i)},
                }
                for i in range(width)
            ]
            return Reply(reply_body(number, calls, "tool_use", prompt))
        answer = {"type": "text", "text": f"Done: answer {number}, the files are as described."}
        return Reply(reply_body(number, [answer], "end_turn", prompt))


class OneModel:
    """The router the server calls: every model name goes to one adapter."""

    def __init__(self, adapter: AnthropicLLM) -> None:
        self.adapter = adapter

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        return await self.adapter.call(ctx, request)


# -- the session ----------------------------------------------------------------------------


async def run_turn(client: CursorClient, turn: int) -> None:
    request_id = f"turn-{turn}"
    stream = await client.open(request_id)
    await client.append(request_id, 0, run_request(f"Task {turn}: read the module and explain it"))
    seqno = 1
    while True:
        item = await stream.until(lambda i: kind(i) in ("exec", "kv_server_message", "end"), 30)
        if isinstance(item, End):
            if item.error is not None:
                raise RuntimeError(f"turn {turn} failed: {item.error}")
            return
        assert isinstance(item, pb.AgentServerMessage)
        if item.HasField("kv_server_message"):  # answered as Cursor does; the end waits for it
            await client.append(request_id, seqno, kv_reply(item.kv_server_message))
            seqno += 1
            continue
        request = item.exec_server_message
        path = request.read_args.path
        content = SMALL_TEXT if f"_{WIDE_TURN}_" in path else FILE_TEXT
        result = pb.ReadResult(
            success=pb.ReadSuccess(path=path, content=content, total_lines=content.count("\n"))
        )
        await client.append(request_id, seqno, exec_reply(request, read_result=result))
        await client.append(request_id, seqno + 1, stream_close(request.id))
        seqno += 2


async def session(folder: Path) -> tuple[list[dict[str, Any]], list[int]]:
    fake = ReplayProvider()
    script = ScriptedAnthropic(fake)
    fake.replies = script
    await fake.start()
    adapter = AnthropicLLM(ModelSpec("anthropic", MODEL, fake.base_url, 4096), "bench-key")
    store = SQLiteStore(folder / "state.sqlite3", synchronous="NORMAL")
    service = build_service(
        store,
        OneModel(adapter),
        context_window=lambda _model: CONTEXT_WINDOW,
        retry=RetryPolicy(1, 0.001, 0.01),
    )
    try:
        async with serving(service) as url:
            client = CursorClient(url)
            try:
                for turn in range(1, TURNS + 1):
                    await run_turn(client, turn)
            finally:
                await client.close()
    finally:
        await adapter.aclose()
        await fake.stop()
        store.close()
    return [r.json() for r in fake.received], script.summaries


# -- the figures --------------------------------------------------------------------------


def _elements(body: dict[str, Any]) -> list[bytes]:
    return [json.dumps(_clean(m), sort_keys=True).encode() for m in body["messages"]]


def prefix_extends_share(bodies: list[dict[str, Any]], resets: set[int]) -> float:
    """Pairs (n, n+1), except across a reset (n+1 starts from a summary)."""
    pairs = extended = 0
    for number in range(len(bodies) - 1):
        if number + 1 in resets:
            continue
        earlier, later = _elements(bodies[number]), _elements(bodies[number + 1])
        pairs += 1
        extended += later[: len(earlier)] == earlier and len(later) >= len(earlier)
    return extended / pairs if pairs else 0.0


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def baseline_plan(body: dict[str, Any]) -> dict[str, Any]:
    """The same request with the replaced plan's markers instead of ours."""
    marked: dict[str, Any] = _clean(body)
    fixed = marked.get("system") or marked.get("tools") or []
    if fixed:
        fixed[-1]["cache_control"] = {"type": "ephemeral"}
    blocks = [b for m in marked["messages"] for b in m["content"]]
    chosen: list[int] = []
    position = len(blocks) - 1
    while position >= 0 and len(chosen) < (3 if fixed else 4):
        candidate = position
        while candidate >= 0 and blocks[candidate]["type"] in ("thinking", "redacted_thinking"):
            candidate -= 1
        if candidate < 0 or (chosen and candidate >= chosen[-1]):
            break
        chosen.append(candidate)
        position = candidate - 18
    for index in chosen:
        blocks[index]["cache_control"] = {"type": "ephemeral"}
    return marked


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        bodies, summaries = asyncio.run(session(Path(folder)))
    if len(summaries) != 1:
        raise SystemExit(f"expected one compaction, saw {len(summaries)}")
    resets = {number + 1 for number in summaries}
    minimum = minimum_cacheable_tokens(MODEL)
    report = simulate(bodies, minimum)
    baseline = simulate([baseline_plan(b) for b in bodies], minimum)
    print(f"requests = {report.requests}")
    print(f"anthropic_cache_read_share = {report.read_share:.4f}")
    print(f"anthropic_cache_read_share_of_limit = {report.read_share_of_limit:.4f}")
    print(f"wasted_breakpoints = {report.wasted}")
    print(f"prefix_extends_share = {prefix_extends_share(bodies, resets):.4f}")
    print(f"baseline_anthropic_cache_read_share = {baseline.read_share:.4f}")
    print(f"baseline_wasted_breakpoints = {baseline.wasted} of {baseline.markers}")
    for detail in report.wasted_detail:
        print(f"  wasted: {detail}")


if __name__ == "__main__":
    main()
