"""Golden renderings of parallel tool calls and their results, per API, for
the shapes a whole turn does not reach: an image among the results, an
error result, a user message queued behind the results; and a response cut
off while reasoning."""

from __future__ import annotations

import json
from dataclasses import replace

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.types import (
    ImageContent,
    Message,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import tool_call
from tests.llm.conversation import PNG, reply
from tests.llm.provider_rules import check_request

CALLS = (tool_call("call_1", "a.txt"), tool_call("call_2", "b.png"), tool_call("call_3", "c.txt"))


def history(api: str, provider: str, model: str) -> tuple[Message, ...]:
    return (
        UserMessage("look at three files"),
        reply(api, provider, model, TextContent("Reading."), *CALLS),
        ToolResultMessage("call_1", "read_file", (TextContent("a"),)),
        ToolResultMessage("call_2", "read_file", (ImageContent(PNG, "image/png"),)),
        ToolResultMessage("call_3", "read_file", (TextContent("no such file"),), is_error=True),
        UserMessage("and then stop"),
    )


def encoded(body: dict[str, object]) -> bytes:
    return json.dumps(body).encode()


def test_chat_images_of_parallel_results_follow_the_last_tool_message() -> None:
    spec = ModelSpec("openai", "gpt-4.1", "u", 1000)
    body = openai_chat.build_request(
        spec, RequestMessages(None, history("openai-chat", *_ids(spec)))
    )
    check_request("openai-chat", encoded(body))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "tool", "user", "user"]
    images = body["messages"][5]["content"]
    assert images[0]["text"] == openai_chat.TOOL_IMAGES_NOTE
    assert images[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_anthropic_puts_every_result_first_in_one_user_message() -> None:
    spec = ModelSpec("anthropic", "claude-sonnet-4-5", "u", 1000)
    body = anthropic.build_request(spec, RequestMessages(None, history(anthropic.API, *_ids(spec))))
    check_request("anthropic", encoded(body))
    results = body["messages"][2]["content"]
    assert [b["tool_use_id"] for b in results] == ["call_1", "call_2", "call_3"]
    assert results[2]["is_error"] is True
    assert results[1]["content"][1]["type"] == "image"
    # (no cache marker: the prompt is under the model's minimum cacheable length)
    assert body["messages"][3] == {
        "role": "user",
        "content": [{"type": "text", "text": "and then stop"}],
    }


def test_responses_answers_each_call_after_it() -> None:
    spec = ModelSpec("openai", "gpt-5-mini", "u", 1000)
    request = RequestMessages(None, history(openai_responses.API, *_ids(spec)))
    body = openai_responses.build_request(spec, request)
    check_request("openai-responses", encoded(body))
    kinds = [i.get("type", "message") for i in body["input"]]
    assert kinds == [
        "message",
        "message",
        *["function_call"] * 3,
        *["function_call_output"] * 3,
        "message",
    ]


def test_gemini_answers_every_call_in_one_turn() -> None:
    spec = ModelSpec("google", "gemini-2.5-flash", "u", 1000)
    body = gemini.build_request(spec, RequestMessages(None, history(gemini.API, *_ids(spec))))
    check_request("gemini", encoded(body), spec.model)
    responses = body["contents"][2]["parts"]
    assert [p["functionResponse"]["id"] for p in responses] == ["call_1", "call_2", "call_3"]
    assert responses[2]["functionResponse"]["response"] == {"error": "no such file"}


def _ids(spec: ModelSpec) -> tuple[str, str]:
    return spec.provider, spec.model


def test_responses_leaves_out_reasoning_that_led_to_nothing() -> None:
    """A response cut off by the output limit while still reasoning."""
    spec = ModelSpec("openai", "gpt-5-mini", "u", 1000, reasoning="low")
    item = json.dumps(
        {"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAA", "summary": []}
    )
    cut = replace(
        reply(openai_responses.API, *_ids(spec), ThinkingContent("", item)), stop_reason="length"
    )
    request = RequestMessages(None, (UserMessage("think hard"), cut, UserMessage("go on")))
    body = openai_responses.build_request(spec, request)
    check_request("openai-responses", encoded(body))
    assert [i.get("role") for i in body["input"]] == ["user", "user"]


def test_calls_cut_off_by_the_output_limit_replay_as_valid_json() -> None:
    truncated = ToolCall("call_1", "read_file", {"path": "a.t"}, raw_arguments='{"path": "a.t')
    cut = replace(reply("x", "p", "m", TextContent("Reading."), truncated), stop_reason="length")
    history = (
        UserMessage("read"),
        cut,
        ToolResultMessage("call_1", "read_file", (TextContent("Not run"),), is_error=True),
        UserMessage("go on"),
    )
    for kind, build, spec in (
        ("openai-chat", openai_chat.build_request, ModelSpec("openai", "gpt-4.1", "u", 100)),
        ("openai-responses", openai_responses.build_request, ModelSpec("openai", "o3", "u", 100)),
    ):
        body = build(spec, RequestMessages(None, history))
        check_request(kind, encoded(body))
        assert r"{\"path\":\"a.t\"}" in json.dumps(body), kind


def test_responses_reasoning_without_encrypted_content_is_not_sent_nor_paired() -> None:
    """Made while encrypted reasoning was not requested: with `store: false`
    the id names nothing, so the item stays out and its calls lose their ids."""
    spec = ModelSpec("openai", "gpt-5", "u", 1000)
    item = json.dumps({"id": "rs_1", "type": "reasoning", "summary": []})
    made = reply(
        openai_responses.API,
        *_ids(spec),
        ThinkingContent("", item),
        TextContent("Reading.", "msg_1"),
        tool_call("call_1|fc_1"),
    )
    result = ToolResultMessage("call_1|fc_1", "read_file", (TextContent("a"),))
    body = openai_responses.build_request(
        spec, RequestMessages(None, (UserMessage("r"), made, result))
    )
    check_request("openai-responses", encoded(body))
    kinds = [(i.get("type", "message"), i.get("id")) for i in body["input"]]
    assert kinds == [
        ("message", None),
        ("message", None),
        ("function_call", None),
        ("function_call_output", None),
    ]
