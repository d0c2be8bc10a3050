"""Per-call request cost as history grows: building and encoding one request
at 800 messages over the same at 50, for every wire API.

A call in a long agent session follows the previous one by an assistant
message and its tool result, so each timed call is made on a warm render
cache, as a real one is: a fresh conversation renders the history up to the
previous call (untimed), then the call under test is timed, from
`build_request` to the request body in the parts it is sent in
(`encode_body_parts`), its history grown as the loop grows it (a
`SharedTuple`). The history is a tool
session: turns of one user message, twelve tool exchanges (signed thinking,
text, a call, a ~1.5 KB result) and a closing answer, all made by the model
being called, so signatures are replayed. No network.

Prints, per API, the median of ROUNDS timed calls at each size, alternated so
machine load drifts affect both alike:
  render_us[<api>][N] = X                  warm call, microseconds
  render_us_ratio_800_over_50[<api>] = X   the growth a cache should keep near 1
and, as the baseline measured in the same run, the same call with nothing
cached (a call outside a conversation renders everything):
  cold_render_us_ratio_800_over_50[<api>] = X
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.providers.common import encode_body, encode_body_parts
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    Message,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserMessage,
)

SIZES = (50, 800)
ROUNDS = 41
EXCHANGES_PER_TURN = 12
TOOLS = (
    ToolDefinition(
        "read_file",
        "Read a file of the workspace.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
)
SYSTEM = "You are a coding agent. " * 40
Build = Callable[[ModelSpec, RequestMessages, CallContext | None], dict[str, Any]]


def _responses_signature(n: int) -> str:
    item = {"type": "reasoning", "id": f"rs_{n}", "encrypted_content": "e" * 400, "summary": []}
    return json.dumps(item, separators=(",", ":"))


APIS: dict[str, tuple[Build, ModelSpec, Callable[[int], str]]] = {
    "openai-chat": (
        openai_chat.build_request,
        ModelSpec("deepseek", "deepseek-reasoner", "http://x"),
        lambda n: "reasoning_content",
    ),
    "openai-responses": (
        openai_responses.build_request,
        ModelSpec("openai", "gpt-5", "http://x", reasoning="medium"),
        _responses_signature,
    ),
    "anthropic": (
        anthropic.build_request,
        ModelSpec("anthropic", "claude-sonnet-4-5", "http://x", 16000, thinking_budget=4000),
        lambda n: f"sig-{n}-" + "s" * 300,
    ),
    "gemini": (
        gemini.build_request,
        ModelSpec("google", "gemini-2.5-pro", "http://x", reasoning="medium"),
        lambda n: f"gsig-{n}-" + "g" * 300,
    ),
}


def history(api: str, spec: ModelSpec, signature: Callable[[int], str], size: int) -> list[Message]:
    """A tool session of at least `size` messages, made by `spec`'s model."""

    def reply(n: int, *content: AssistantContent) -> AssistantMessage:
        calls = any(isinstance(b, ToolCall) for b in content)
        thinking = ThinkingContent(f"thinking about step {n} " * 8, signature(n))
        return AssistantMessage(
            (thinking, *content),
            api,
            spec.provider,
            spec.model,
            Usage(input=10, output=5, total_tokens=15),
            "toolUse" if calls else "stop",
            response_id=f"resp-{n}",
            timestamp=n,
        )

    out: list[Message] = []
    n = 0
    while len(out) < size:
        out.append(UserMessage(f"turn {n}: change the handler " * 5, timestamp=n))
        for _ in range(EXCHANGES_PER_TURN):
            n += 1
            arguments = {"path": f"src/module_{n}.py"}
            call = ToolCall(f"call_{n}", "read_file", arguments, json.dumps(arguments))
            out.append(reply(n, TextContent(f"Reading module {n}."), call))
            body = f"def handler_{n}(request):\n    return respond(request)\n" * 30
            out.append(ToolResultMessage(call.id, "read_file", (TextContent(body),), timestamp=n))
        n += 1
        out.append(reply(n, TextContent(f"Done with turn {n}. " * 10)))
    return out


def call_at(messages: list[Message], size: int) -> int:
    """The largest length <= `size` ending on a tool result: where a call is made."""
    while not isinstance(messages[size - 1], ToolResultMessage):
        size -= 1
    return size


def timed_call(
    build: Build, spec: ModelSpec, messages: list[Message], size: int, warm: bool
) -> float:
    """Microseconds of one call at `size` messages, the cache warmed (untimed)
    by the previous call of a fresh conversation when `warm`."""
    session = f"bench-{time.perf_counter_ns()}" if warm else None
    history = SharedTuple(messages[: size - 2])
    if warm:
        previous = RequestMessages(SYSTEM, history, TOOLS)
        encode_body_parts(build(spec, previous, CallContext("w", session)))
    request = RequestMessages(SYSTEM, history + tuple(messages[size - 2 : size]), TOOLS)
    context = CallContext("c", session)
    # The untimed warm-up made thousands of objects: a collection of them
    # would land in the timed call, the more the longer the history.
    gc.disable()
    try:
        start = time.perf_counter()
        encode_body_parts(build(spec, request, context))
        return (time.perf_counter() - start) * 1e6
    finally:
        gc.enable()


def check_same_bytes(build: Build, spec: ModelSpec, messages: list[Message]) -> None:
    """A warm call must send what a cold one sends, or its time means nothing."""
    for size in (call_at(messages, size) for size in SIZES):
        request = RequestMessages(SYSTEM, tuple(messages[:size]), TOOLS)
        session = f"check-{size}"
        encode_body(
            build(spec, replace(request, messages=request.messages[:-2]), CallContext("w", session))
        )
        body = build(spec, request, CallContext("c", session))
        body.pop("prompt_cache_key", None)
        if encode_body(body) != encode_body(build(spec, request, None)):
            raise SystemExit(f"{spec.model}: a warm request differs from a cold one at {size}")


def medians(
    build: Build, spec: ModelSpec, messages: list[Message], warm: bool, rounds: int
) -> dict[int, float]:
    sizes = [call_at(messages, size) for size in SIZES]
    samples: dict[int, list[float]] = {size: [] for size in sizes}
    for _ in range(rounds):
        for size in sizes:
            samples[size].append(timed_call(build, spec, messages, size, warm))
    return {size: statistics.median(values) for size, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="timed calls per size")
    rounds = parser.parse_args().rounds
    for api, (build, spec, signature) in APIS.items():
        messages = history(api, spec, signature, max(SIZES) + 2 * EXCHANGES_PER_TURN + 2)
        check_same_bytes(build, spec, messages)
        warm = medians(build, spec, messages, True, rounds)
        cold = medians(build, spec, messages, False, rounds)
        small, large = sorted(warm)
        print(f"render_us[{api}][{small}] = {warm[small]:.0f}")
        print(f"render_us[{api}][{large}] = {warm[large]:.0f}")
        print(f"render_us_ratio_800_over_50[{api}] = {warm[large] / warm[small]:.2f}")
        print(f"cold_render_us[{api}][{large}] = {cold[large]:.0f}")
        print(f"cold_render_us_ratio_800_over_50[{api}] = {cold[large] / cold[small]:.2f}")


if __name__ == "__main__":
    main()
