"""Request bodies for Chat Completions: golden, deterministic, prefix-stable."""

from __future__ import annotations

from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.common import encode_body
from cursor_byok.llm.providers.openai_chat import build_request
from cursor_byok.llm.types import (
    AssistantMessage,
    ImageContent,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import READ_TOOL
from tests.llm.conversation import PNG, assert_prefix, reply, standard_turns, three_requests

OPENAI = ModelSpec("openai", "gpt-4o", "https://api.openai.com/v1", max_tokens=1000)
DEEPSEEK = ModelSpec("deepseek", "deepseek-reasoner", "https://api.deepseek.com", max_tokens=500)
CALL = ToolCall("call_1", "read_file", {"path": "a.txt"}, '{"path": "a.txt"}')
TOOL_JSON: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the workspace.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}


def test_golden_openai_request_with_image_tool_call_and_result() -> None:
    request = RequestMessages(
        "Be brief.",
        (
            UserMessage((TextContent("look"), ImageContent(PNG, "image/png"))),
            reply("openai-chat", "openai", "gpt-4o", TextContent("Reading."), CALL),
            ToolResultMessage("call_1", "read_file", (TextContent("body"),)),
        ),
        (READ_TOOL,),
    )
    assert build_request(OPENAI, request, CallContext("c", "sess-9")) == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            },
            {
                "role": "assistant",
                "content": "Reading.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "body"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 1000,
        "tools": [TOOL_JSON],
        "store": False,
        "prompt_cache_key": "sess-9",
    }


def test_reasoning_models_take_the_system_prompt_as_developer() -> None:
    spec = ModelSpec("openai", "o4-mini", "u", max_tokens=10, reasoning="high")
    body = build_request(spec, RequestMessages("S", (UserMessage("q"),)))
    assert body["messages"][0] == {"role": "developer", "content": "S"}
    assert body["reasoning_effort"] == "high"
    assert "tools" not in body


def test_deepseek_gets_reasoning_content_back_even_when_empty() -> None:
    thought = reply(
        "openai-chat",
        "deepseek",
        "deepseek-reasoner",
        ThinkingContent("", "reasoning_content"),
        CALL,
    )
    request = RequestMessages(
        None,
        (
            UserMessage("q"),
            thought,
            ToolResultMessage("call_1", "read_file", (TextContent("body"),)),
        ),
    )
    body = build_request(DEEPSEEK, request)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
            }
        ],
    }
    assert body["max_tokens"] == 500
    assert body["tools"] == [], "history has tool calls: an empty tool list keeps proxies happy"
    assert "store" not in body and "prompt_cache_key" not in body


def test_thinking_from_another_provider_is_replayed_as_text() -> None:
    other = reply(
        "anthropic-messages", "anthropic", "claude", ThinkingContent("hmm", "sig"), TextContent("A")
    )
    body = build_request(OPENAI, RequestMessages(None, (UserMessage("q"), other)))
    assert body["messages"][1] == {"role": "assistant", "content": "hmmA"}


def test_failed_assistant_turns_are_not_replayed() -> None:
    failed = AssistantMessage(
        (TextContent("partial"),),
        "openai-chat",
        "openai",
        "gpt-4o",
        stop_reason="error",
        error_message="boom",
    )
    body = build_request(
        OPENAI, RequestMessages(None, (UserMessage("q"), failed, UserMessage("r")))
    )
    assert [m["content"] for m in body["messages"]] == ["q", "r"]


def test_responses_style_ids_are_cut_to_the_call_part() -> None:
    call = ToolCall("call_abc|fc_" + "x" * 300, "read_file", {"path": "a"})
    request = RequestMessages(
        None,
        (
            UserMessage("q"),
            reply("openai-responses", "openai", "gpt-5", call),
            ToolResultMessage(call.id, "read_file", (TextContent("r"),)),
        ),
    )
    body = build_request(OPENAI, request)
    assert body["messages"][1]["tool_calls"][0]["id"] == "call_abc"
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"path":"a"}'
    assert body["messages"][2]["tool_call_id"] == "call_abc"


def test_building_twice_gives_identical_bytes() -> None:
    requests = three_requests(
        standard_turns(lambda *c: reply("openai-chat", "openai", "gpt-4o", *c), CALL)
    )
    ctx = CallContext("c", "s")
    for request in requests:
        assert encode_body(build_request(OPENAI, request, ctx)) == encode_body(
            build_request(OPENAI, request, ctx)
        )


def test_each_request_renders_the_previous_messages_as_a_byte_prefix() -> None:
    for spec, model in ((OPENAI, "gpt-4o"), (DEEPSEEK, "deepseek-reasoner")):

        def make(*content: Any, _p: str = spec.provider, _m: str = model) -> AssistantMessage:
            return reply("openai-chat", _p, _m, ThinkingContent("t", "reasoning_content"), *content)

        requests = three_requests(standard_turns(make, CALL))
        assert_prefix([build_request(spec, r)["messages"] for r in requests])
