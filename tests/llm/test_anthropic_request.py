"""Request bodies for Anthropic Messages: golden, recorded, prefix-stable,
and cache breakpoints within the API's limits."""

from __future__ import annotations

import itertools
from typing import Any

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers.anthropic import (
    BREAKPOINT_STRIDE,
    LOOKBACK_BLOCKS,
    build_request,
    place_breakpoints,
    render_messages,
)
from cursor_byok.llm.types import (
    AssistantMessage,
    ImageContent,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import READ_TOOL
from tests.llm.conversation import PNG, assert_prefix, reply, standard_turns, three_requests
from tests.llm.loopback import fixture_json

API = "anthropic-messages"
SPEC = ModelSpec("anthropic", "claude-haiku-4-5-20251001", "https://api.anthropic.com", 1000)
CALL = ToolCall("toolu_1", "read_file", {"path": "a.txt"}, '{"path": "a.txt"}')
MARK = {"type": "ephemeral"}


def ours(*content: Any) -> AssistantMessage:
    return reply(API, "anthropic", SPEC.model, *content)


def test_golden_request_with_image_thinking_tools_and_results() -> None:
    request = RequestMessages(
        "Be brief.",
        (
            UserMessage((TextContent("look"), ImageContent(PNG, "image/png"))),
            ours(
                ThinkingContent("plan", "sig-1"),
                ThinkingContent("", "opaque", redacted=True),
                TextContent("Reading."),
                CALL,
                ToolCall("toolu_2", "read_file", {"path": "b"}),
            ),
            ToolResultMessage("toolu_1", "read_file", (TextContent("one"),)),
            ToolResultMessage("toolu_2", "read_file", (TextContent("no"),), is_error=True),
        ),
        (READ_TOOL,),
    )
    assert build_request(SPEC, request) == {
        "model": SPEC.model,
        "max_tokens": 1000,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": MARK}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "text", "text": "Reading."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "read_file",
                        "input": {"path": "a.txt"},
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "read_file",
                        "input": {"path": "b"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "one"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "content": "no",
                        "is_error": True,
                        "cache_control": MARK,
                    },
                ],
            },
        ],
        "tools": [
            {
                "name": "read_file",
                "description": "Read a file of the workspace.",
                "input_schema": READ_TOOL.parameters,
            }
        ],
        "stream": True,
    }


def test_the_recorded_follow_up_request_is_reproduced() -> None:
    recorded = fixture_json("anthropic/thinking-then-tool-use-followup.request.json")
    first, second, _third = recorded["messages"]
    thinking = second["content"][0]
    tool = ToolDefinition(
        "fixed_version", "Return a fixed test version string", {"properties": {}, "type": "object"}
    )
    request = RequestMessages(
        None,
        (
            UserMessage(first["content"][0]["text"]),
            ours(
                ThinkingContent(thinking["thinking"], thinking["signature"]),
                ToolCall("toolu_01825dXWLSoJwCst1qTsiWdb", "fixed_version", {}),
            ),
            ToolResultMessage(
                "toolu_01825dXWLSoJwCst1qTsiWdb", "fixed_version", (TextContent("0.32a0"),)
            ),
        ),
        (tool,),
    )
    spec = ModelSpec("anthropic", SPEC.model, "u", max_tokens=64000, thinking_budget=1024)
    body = build_request(spec, request)
    assert render_messages(spec, request) == recorded["messages"]
    assert body["max_tokens"] == recorded["max_tokens"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert "temperature" not in body


def test_foreign_thinking_becomes_text_and_foreign_ids_are_sanitized() -> None:
    foreign = reply(
        "openai-responses",
        "openai",
        "gpt-5",
        ThinkingContent("idea", "{}"),
        ToolCall("call_a|fc_b+c", "read_file", {}),
    )
    request = RequestMessages(
        None,
        (UserMessage("q"), foreign, ToolResultMessage("call_a|fc_b+c", "read_file", ())),
    )
    messages = render_messages(SPEC, request)
    assert messages[1]["content"][0] == {"type": "text", "text": "idea"}
    assert messages[1]["content"][1]["id"] == "call_a_fc_b_c"
    assert messages[2]["content"][0]["tool_use_id"] == "call_a_fc_b_c"


def test_each_request_renders_the_previous_messages_as_a_byte_prefix() -> None:
    def make(*content: Any) -> AssistantMessage:
        return ours(ThinkingContent("t", "sig"), *content)

    requests = three_requests(standard_turns(make, CALL))
    assert_prefix([render_messages(SPEC, r) for r in requests])


def strip_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_marks(v) for v in value]
    return value


def wide_history(calls: int) -> RequestMessages:
    """One turn with many parallel tool calls: wider than the lookback."""
    tool_calls = [ToolCall(f"toolu_{i}", "read_file", {"path": str(i)}) for i in range(calls)]
    results = [ToolResultMessage(c.id, c.name, (TextContent("x"),)) for c in tool_calls]
    return RequestMessages(
        "S", (UserMessage("go"), ours(ThinkingContent("t", "sig"), *tool_calls), *results)
    )


def test_markers_never_exceed_four_and_only_add_cache_control() -> None:
    request = wide_history(40)
    body = build_request(SPEC, request)
    blocks = [b for m in body["messages"] for b in m["content"]]
    marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
    assert len(marked) + 1 == 4  # plus the system block
    assert strip_marks(body["messages"]) == render_messages(SPEC, request)
    assert all(blocks[i]["type"] not in ("thinking", "redacted_thinking") for i in marked)


def test_rolling_markers_are_spaced_within_the_lookback() -> None:
    blocks = [b for m in build_request(SPEC, wide_history(40))["messages"] for b in m["content"]]
    marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
    assert marked[-1] == len(blocks) - 1
    gaps = [later - earlier for earlier, later in itertools.pairwise(marked)]
    assert gaps and all(gap <= BREAKPOINT_STRIDE < LOOKBACK_BLOCKS for gap in gaps)


def test_a_thinking_block_passes_its_marker_to_an_earlier_block() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
    ]
    marked = place_breakpoints(messages, 1)
    assert marked[0]["content"][0]["cache_control"] == MARK
    assert "cache_control" not in marked[1]["content"][0]
    assert "cache_control" not in messages[0]["content"][0], "the input is not modified"


def test_without_system_prompt_the_last_tool_carries_the_fixed_marker() -> None:
    wide = wide_history(40)
    body = build_request(SPEC, RequestMessages(None, wide.messages, (READ_TOOL,)))
    marks = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert body["tools"][-1]["cache_control"] == MARK
    assert "system" not in body and len(marks) == 3
