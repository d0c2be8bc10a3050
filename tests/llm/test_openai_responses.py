"""OpenAI Responses: recorded streams over loopback, request bodies, prefix."""

from __future__ import annotations

import json
from typing import Any

from cursor_byok.llm.events import ResponseEvent, ThinkingDelta, ToolCallDelta
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.openai_responses import OpenAIResponsesLLM, build_request
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
from tests.factories import READ_TOOL, user
from tests.llm.conversation import PNG, assert_prefix, reply, standard_turns, three_requests
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes
from tests.llm.streams import collect, done_of, error_of

API = "openai-responses"
SPEC = ModelSpec("openai", "o3-mini", "https://api.openai.com/v1", 2000, reasoning="high")
REQUEST = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL,))


async def run(server: LoopbackServer, fixture: str) -> list[ResponseEvent]:
    server.replies.append(Reply(fixture_bytes(fixture)))
    llm = OpenAIResponsesLLM(ModelSpec("openai", "gpt-4o", server.base_url + "/v1"), "sk-test")
    try:
        return await collect(await llm.call(CallContext("c1", "sess-1"), REQUEST))
    finally:
        await llm.aclose()


async def test_text_stream_keeps_the_message_id(server: LoopbackServer) -> None:
    done = done_of(await run(server, "openai-responses/text-usage.sse"))
    assert done.message.content == (
        TextContent(
            "Hello! 🌍 How can I assist you today?",
            "msg_681e3e15a8608191aea93e9864c0dce8047f076151f76bcc",
        ),
    )
    assert (done.message.usage.input, done.message.usage.output) == (9, 12)
    sent = server.received[0]
    assert sent.path == "/v1/responses"
    assert sent.json()["store"] is False and sent.json()["prompt_cache_key"] == "sess-1"


async def test_function_call_id_joins_call_and_item(server: LoopbackServer) -> None:
    events = await run(server, "openai-responses/function-call.sse")
    done = done_of(events)
    (call,) = done.message.tool_calls
    assert call.id == (
        "call_lGe2JKQEBSP15opZ3KfxtEUC|fc_682c94223680819192287a2f84ee1bb20b603284be451166"
    )
    assert call.arguments == {"location": "Boston, MA", "unit": "celsius"}
    assert "".join(e.delta for e in events if isinstance(e, ToolCallDelta)) == call.raw_arguments
    assert done.reason == "toolUse"


async def test_encrypted_reasoning_item_is_kept_whole(server: LoopbackServer) -> None:
    events = await run(server, "openai-responses/reasoning-summary-encrypted.sse")
    done = done_of(events)
    thinking, text = done.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert thinking.thinking_signature is not None
    item = json.loads(thinking.thinking_signature)
    assert item["type"] == "reasoning" and item["encrypted_content"].startswith("gAAAAABoxC0m")
    assert thinking.thinking == "\n\n".join(part["text"] for part in item["summary"])
    assert "".join(e.delta for e in events if isinstance(e, ThinkingDelta)) == thinking.thinking
    assert done.message.usage.reasoning == 1408


async def test_cached_tokens_are_subtracted_from_input(server: LoopbackServer) -> None:
    usage = done_of(await run(server, "openai-responses/cached-tokens.sse")).message.usage
    assert (usage.input, usage.cache_read, usage.total_tokens) == (1515 - 1390, 1390, 1523)


async def test_incomplete_response_stops_for_length(server: LoopbackServer) -> None:
    done = done_of(await run(server, "openai-responses/incomplete-max-output-tokens.sse"))
    assert done.reason == "length"
    assert done.message.text.startswith("In the bustling city of Detroit")


async def test_error_event_in_stream_ends_it(server: LoopbackServer) -> None:
    error = error_of(await run(server, "openai-responses/error-in-stream-insufficient-quota.sse"))
    assert error.message.error_message is not None
    assert error.message.error_message.startswith("You exceeded your current quota")
    assert not error.retryable


def ours(*content: Any) -> AssistantMessage:
    return reply(API, "openai", SPEC.model, *content)


REASONING_ITEM = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAA"}


def test_golden_request_replays_reasoning_items_verbatim() -> None:
    signature = json.dumps(REASONING_ITEM, separators=(",", ":"))
    call = ToolCall("call_1|fc_1", "read_file", {"path": "a"}, '{"path":"a"}')
    request = RequestMessages(
        "Be brief.",
        (
            UserMessage((TextContent("look"), ImageContent(PNG, "image/png"))),
            ours(ThinkingContent("sum", signature), TextContent("Reading.", "msg_1"), call),
            ToolResultMessage("call_1|fc_1", "read_file", (TextContent("body"),)),
        ),
        (READ_TOOL,),
    )
    assert build_request(SPEC, request, CallContext("c", "sess")) == {
        "model": "o3-mini",
        "instructions": "Be brief.",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {
                        "type": "input_image",
                        "detail": "auto",
                        "image_url": f"data:image/png;base64,{PNG}",
                    },
                ],
            },
            REASONING_ITEM,
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
                "status": "completed",
                "id": "msg_1",
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "read_file",
                "arguments": '{"path":"a"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "body"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file of the workspace.",
                "parameters": READ_TOOL.parameters,
                "strict": False,
            }
        ],
        "max_output_tokens": 2000,
        "reasoning": {"effort": "high", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
        "store": False,
        "stream": True,
        "prompt_cache_key": "sess",
    }


def test_foreign_tool_ids_have_no_item_half() -> None:
    foreign = reply("anthropic-messages", "anthropic", "claude", ToolCall("toolu_9", "f", {}))
    request = RequestMessages(None, (UserMessage("q"), foreign))
    (_, item) = build_request(SPEC, request)["input"]
    assert item == {"type": "function_call", "call_id": "toolu_9", "name": "f", "arguments": "{}"}


def test_each_request_renders_the_previous_input_as_a_byte_prefix() -> None:
    signature = json.dumps(REASONING_ITEM, separators=(",", ":"))
    call = ToolCall("call_1|fc_1", "read_file", {"path": "a"}, '{"path":"a"}')

    def make(*content: Any) -> AssistantMessage:
        return ours(ThinkingContent("s", signature), *content)

    requests = three_requests(standard_turns(make, call))
    assert_prefix([build_request(SPEC, r)["input"] for r in requests])


def test_a_reasoning_signature_that_is_not_json_is_left_out_not_fatal() -> None:
    spec = ModelSpec("openai", "gpt-5", "http://x")
    earlier = reply(
        "openai-responses", "openai", "gpt-5", ThinkingContent("t", "not json"), TextContent("hi")
    )
    body = build_request(spec, RequestMessages(None, (UserMessage("q", 1), earlier)))
    types = [item.get("type") for item in body["input"]]
    assert "reasoning" not in types and "message" in types
