"""Request bodies for Anthropic Messages: golden, recorded, prefix-stable,
and cache breakpoints within the API's limits."""

from __future__ import annotations

from typing import Any

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers.anthropic import build_request, render_messages
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
        "system": [{"type": "text", "text": "Be brief."}],
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
