"""A call renders only new messages, and the request is byte-identical to one
rendered from scratch: checked over random growing conversations for the
adapters that use the cache, including the awkward cases (orphaned tool
calls, images in tool results, empty user messages, failed answers, repairs)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers import anthropic, openai_chat
from cursor_byok.llm.providers.common import encode_body
from cursor_byok.llm.providers.render_cache import FrozenMessage, RenderCache, last_cut
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import (
    HistoryRepair,
    ImageContent,
    Message,
    RequestMessages,
    TextContent,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import assistant, tool_call, user

TOOLS = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)
IMAGE = ImageContent("aGVsbG8=", "image/png")
Build = Callable[[ModelSpec, RequestMessages, CallContext | None], dict[str, Any]]
ADAPTERS: list[tuple[Build, ModelSpec]] = [
    (openai_chat.build_request, ModelSpec("openai", "gpt-4o", "u")),
    (anthropic.build_request, ModelSpec("anthropic", "claude-haiku-4-5-20251001", "u", 1000)),
]


def _step(rng: random.Random, n: int, pending: list[str]) -> list[Message]:
    """A few messages a conversation might add next."""
    kind = rng.choice(["user", "empty", "calls", "results", "text", "failed", "repair"])
    if kind == "user":
        return [user(f"question {n} " + "x" * rng.randrange(50))]
    if kind == "empty":
        return [UserMessage(content=(TextContent(""),), timestamp=1)]
    if kind == "calls":
        ids = [f"c{n}-{i}" for i in range(rng.randrange(1, 3))]
        pending.extend(ids)
        return [assistant(TextContent("reading"), *(tool_call(i, f"{i}.txt") for i in ids))]
    if kind == "results" and pending:
        done = [pending.pop(0) for _ in range(rng.randrange(1, len(pending) + 1))]
        content = (TextContent("ok"), IMAGE) if rng.random() < 0.3 else (TextContent("ok"),)
        return [ToolResultMessage(i, "read_file", content) for i in done]
    if kind == "failed":
        return [assistant(TextContent("half"), stop_reason="error")]
    if kind == "repair" and rng.random() < 0.2:
        return [HistoryRepair("rejected")]
    return [assistant(TextContent(f"answer {n}"))]


def sent(body: dict[str, Any]) -> bytes:
    """The body without what only a conversation's call carries (its cache key)."""
    body.pop("prompt_cache_key", None)
    return encode_body(body)


@pytest.mark.parametrize(("build", "spec"), ADAPTERS)
@pytest.mark.parametrize("seed", range(6))
def test_cached_rendering_sends_the_bytes_a_fresh_one_sends(
    build: Build, spec: ModelSpec, seed: int
) -> None:
    rng = random.Random(seed)
    history: tuple[Message, ...] = ()
    pending: list[str] = []
    context = CallContext(call_id="x", session_id=f"conversation-{seed}")
    for n in range(60):
        history = history + tuple(_step(rng, n, pending))
        request = RequestMessages("be brief", history, TOOLS)
        fresh = encode_body(build(spec, request, None))
        assert sent(build(spec, request, context)) == fresh, f"step {n}"
        # the same request again: markers placed on the last call's copy
        # never leak into the cached rendering
        assert sent(build(spec, request, context)) == fresh


def test_only_messages_after_the_last_cut_are_rendered_again() -> None:
    seen: list[int] = []

    def render(part: object) -> list[dict[str, object]]:
        assert isinstance(part, tuple)
        seen.append(len(part))
        return [{"role": "x", "content": [i]} for i in range(len(part))]

    cache = RenderCache()
    history: tuple[Message, ...] = (user("a"), assistant(TextContent("b")), user("c"))
    first = cache.render("k", history, render)
    assert seen == [3, 0] and len(first) == 3
    first[0]["content"].append("marker")  # a caller marking blocks in place
    grown = (*history, assistant(TextContent("d")))
    again = cache.render("k", grown, render)
    assert seen[2:] == [1]  # only the new message
    assert again[0]["content"] == [0] and len(again) == 4
    assert last_cut(grown, 0) == 3


def test_a_history_that_is_not_the_cached_one_is_rendered_whole() -> None:
    calls: list[int] = []

    def render(part: object) -> list[dict[str, object]]:
        assert isinstance(part, tuple)
        calls.append(len(part))
        return [{"content": "m"} for _ in part]

    cache = RenderCache(entries=1)
    cache.render("k", (user("a"), user("b")), render)
    cache.render("k", (user("a"), user("other")), render)  # equal text, other objects
    assert calls[-2:] == [2, 0]
    cache.render("j", (user("a"),), render)
    assert len(cache) == 1  # the least recently used entry went


def test_a_body_with_cached_messages_is_written_as_canonical_json() -> None:
    text = "naïve ✓ \ud800"
    cached = FrozenMessage({"role": "user", "content": text, "z": [1, {"b": 2, "a": 1}]})
    messages: list[dict[str, Any]] = [{"role": "system"}, cached, {"role": "assistant"}]
    body: dict[str, Any] = {
        "stream": True,
        "model": "m",
        "messages": messages,
        "tools": [{"name": "t", "parameters": {"y": 1, "x": 2}}],
    }
    expected = canonical_dumps({**body, "messages": [dict(m) for m in messages]})
    assert encode_body(body) == expected
    assert encode_body(body) == expected  # the cached bytes, used again
    with pytest.raises(TypeError):
        cached["role"] = "assistant"
