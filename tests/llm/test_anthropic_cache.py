"""The Anthropic cache plan: markers only where they write an entry a later
request reads (or read the previous request's), judged by a simulation of
Anthropic's documented cache rules over a growing tool session."""

from __future__ import annotations

from typing import Any

import pytest

from bench.cache_sim import simulate
from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers.anthropic import build_request, render_messages
from cursor_byok.llm.providers.anthropic_cache import (
    READ_REACH,
    minimum_cacheable_tokens,
    place_breakpoints,
)
from cursor_byok.llm.types import (
    AssistantMessage,
    Message,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import READ_TOOL
from tests.llm.conversation import reply

SONNET = ModelSpec("anthropic", "claude-sonnet-4-5-20250929", "u", 1000)
MARK = {"type": "ephemeral"}
BIG_SYSTEM = "You are a careful coding agent. " * 200  # ~1,600 tokens


def ours(*content: Any) -> AssistantMessage:
    return reply("anthropic-messages", "anthropic", SONNET.model, *content)


def marked(body: dict[str, Any]) -> list[tuple[str, int, int]]:
    out = [("tools", i, 0) for i, t in enumerate(body.get("tools", [])) if "cache_control" in t]
    out += [("system", i, 0) for i, s in enumerate(body.get("system", [])) if "cache_control" in s]
    for m, message in enumerate(body["messages"]):
        out += [
            ("messages", m, b)
            for b, block in enumerate(message["content"])
            if "cache_control" in block
        ]
    return out


@pytest.mark.parametrize(
    ("model", "minimum"),
    [
        ("claude-haiku-4-5-20251001", 4096),
        ("claude-opus-4-5-20251101", 4096),
        ("claude-sonnet-4-6", 2048),
        ("claude-3-5-haiku-latest", 2048),
        ("claude-sonnet-4-5-20250929", 1024),
        ("claude-opus-4-1-20250805", 1024),
        ("claude-sonnet-4-20250514", 1024),
        ("anthropic/claude-3-7-sonnet-20250219", 1024),
        ("some-future-model", 1024),
    ],
)
def test_minimum_cacheable_length_per_model_family(model: str, minimum: int) -> None:
    assert minimum_cacheable_tokens(model) == minimum


def test_a_prompt_below_the_minimum_gets_no_marker() -> None:
    body = build_request(SONNET, RequestMessages("Be brief.", (UserMessage("hi"),), (READ_TOOL,)))
    assert marked(body) == []


def test_a_first_request_marks_the_fixed_part_and_its_end() -> None:
    request = RequestMessages(BIG_SYSTEM, (UserMessage("hi"),), (READ_TOOL,))
    body = build_request(SONNET, request)
    assert marked(body) == [("system", 0, 0), ("messages", 0, 0)]
    assert body["system"][0]["cache_control"] == MARK


def history_of(
    turns: int, results_per_turn: int = 1, size: int = 400, opening: str = "start"
) -> list[Message]:
    history: list[Message] = [UserMessage(opening)]
    for turn in range(turns):
        calls = [
            ToolCall(f"toolu_{turn}_{i}", "read_file", {"path": f"{turn}/{i}"})
            for i in range(results_per_turn)
        ]
        history.append(ours(ThinkingContent("plan", "sig"), *calls))
        history += [
            ToolResultMessage(c.id, c.name, (TextContent(f"{c.id} " + "x" * size),)) for c in calls
        ]
    return history


def test_a_follow_up_within_reach_marks_only_its_end() -> None:
    body = build_request(SONNET, RequestMessages(BIG_SYSTEM, tuple(history_of(3)), (READ_TOOL,)))
    blocks = [b for m in body["messages"] for b in m["content"]]
    assert marked(body) == [("messages", len(body["messages"]) - 1, 0)]
    assert "cache_control" in blocks[-1]


def test_a_turn_wider_than_the_lookback_also_marks_the_previous_end() -> None:
    history = history_of(2, results_per_turn=READ_REACH + 5)
    body = build_request(SONNET, RequestMessages(BIG_SYSTEM, tuple(history), (READ_TOOL,)))
    messages = body["messages"]
    # The previous request ended with the results of turn 0, right before
    # the last assistant message.
    last_assistant = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    before = messages[last_assistant - 1]
    assert "cache_control" in before["content"][-1]
    assert "cache_control" in messages[-1]["content"][-1]
    assert len(marked(body)) == 2


def test_markers_are_placed_without_copying_the_rendering() -> None:
    request = RequestMessages(BIG_SYSTEM, tuple(history_of(3)), (READ_TOOL,))
    messages = render_messages(SONNET, request)
    originals = [block for message in messages for block in message["content"]]
    system = [{"type": "text", "text": BIG_SYSTEM}]
    assert place_breakpoints(([], system), messages, 1024) == 1
    after = [block for message in messages for block in message["content"]]
    assert after[:-1] == originals[:-1]
    assert all(a is b for a, b in zip(after[:-1], originals[:-1], strict=True))
    assert after[-1] == {**originals[-1], "cache_control": MARK}
    assert "cache_control" not in originals[-1], "the marked block is a copy"


def test_a_thinking_block_never_carries_a_marker() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "q" * 8000}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
    ]
    assert place_breakpoints((), messages, 1024) == 0


def session_bodies(spec: ModelSpec, history: list[Message]) -> list[dict[str, Any]]:
    """The request after each user message and after each complete round of results."""
    bodies = []
    for end in range(1, len(history) + 1):
        if isinstance(history[end - 1], AssistantMessage) or (
            end < len(history) and isinstance(history[end], ToolResultMessage)
        ):
            continue
        request = RequestMessages(BIG_SYSTEM, tuple(history[:end]), (READ_TOOL,))
        bodies.append(build_request(spec, request))
    return bodies


@pytest.mark.parametrize("model", ["claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"])
@pytest.mark.parametrize("width", [1, 3, 30])
def test_growing_sessions_waste_no_marker_and_read_all_they_can(model: str, width: int) -> None:
    """Two conversations in a row: the second one's first request reads the
    fixed part (tools and system prompt) the first one wrote."""
    spec = ModelSpec("anthropic", model, "u", 1000)
    bodies: list[dict[str, Any]] = []
    for opening in ("first task", "second task"):
        history = history_of(25, results_per_turn=width, size=600, opening=opening)
        bodies += session_bodies(spec, history)
    ends = frozenset({len(bodies) // 2 - 1})
    report = simulate(bodies, minimum_cacheable_tokens(model), ends)
    assert report.wasted == 0, report.wasted_detail
    assert report.read == report.limit > 0


def test_a_request_nothing_extends_only_reads_the_previous_end() -> None:
    """A compaction's summary call: its end is never read again."""
    history = [*history_of(3), UserMessage("summarize")]
    request = RequestMessages(BIG_SYSTEM, tuple(history), (READ_TOOL,), extended=False)
    body = build_request(SONNET, request)
    messages = body["messages"]
    last_assistant = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    assert marked(body) == [("messages", last_assistant - 1, 0)]
