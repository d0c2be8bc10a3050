"""Gemini: recorded streams over loopback, request bodies, prefix."""

from __future__ import annotations

import re
from typing import Any

from cursor_byok.llm.events import ResponseEvent, ToolCallDelta, ToolCallEnd, ToolCallStart
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.gemini import SKIP_SIGNATURE, GeminiLLM, build_request
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

API = "google-generative-ai"
REQUEST = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL,))


async def run(
    server: LoopbackServer, reply_: Reply, model: str = "gemini-2.0-flash"
) -> list[ResponseEvent]:
    server.replies.append(reply_)
    llm = GeminiLLM(ModelSpec("google", model, server.base_url + "/v1beta"), "g-key")
    try:
        return await collect(await llm.call(CallContext("c1", "s1"), REQUEST))
    finally:
        await llm.aclose()


async def test_text_stream_and_request_line(server: LoopbackServer) -> None:
    done = done_of(await run(server, Reply(fixture_bytes("gemini/text-usage.sse"))))
    assert done.message.content == (TextContent("The capital of France is Paris.\n"),)
    usage = done.message.usage
    assert (usage.input, usage.output, usage.total_tokens) == (13, 8, 21)
    sent = server.received[0]
    assert sent.path == "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
    assert sent.headers["x-goog-api-key"] == "g-key"


async def test_thought_parts_become_thinking_with_thought_tokens(server: LoopbackServer) -> None:
    events = await run(server, Reply(fixture_bytes("gemini/thinking-thought-parts.sse")))
    done = done_of(events)
    thinking, text = done.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert thinking.thinking.startswith("**Defining the Narrative Parameters**")
    assert "**Refining the Protagonist/Setting**" in thinking.thinking
    usage = done.message.usage
    assert usage.reasoning == 713 and usage.output == 713 + (usage.total_tokens - 11 - 713)


async def test_function_call_keeps_its_thought_signature(server: LoopbackServer) -> None:
    body = fixture_bytes("gemini/function-call-thought-signature.sse")
    events = await run(server, Reply(body), model="gemini-3-pro-preview")
    done = done_of(events)
    (call,) = done.message.content
    assert isinstance(call, ToolCall)
    recorded = re.search(rb'"thoughtSignature": "([^"]+)"', body)
    assert recorded is not None
    assert call.thought_signature == recorded.group(1).decode()
    assert (call.name, call.arguments) == ("get_country", {})
    assert done.reason == "toolUse"
    kinds = [type(e) for e in events[1:-1]]
    assert kinds == [ToolCallStart, ToolCallDelta, ToolCallEnd]


async def test_parallel_calls_in_one_chunk_get_distinct_ids(server: LoopbackServer) -> None:
    done = done_of(await run(server, Reply(fixture_bytes("gemini/parallel-function-calls.sse"))))
    paris, london = done.message.tool_calls
    assert (paris.arguments, london.arguments) == ({"city": "Paris"}, {"city": "London"})
    assert paris.id != london.id
    assert done.reason == "toolUse"


async def test_error_body_under_event_stream_type_is_an_http_error(
    server: LoopbackServer,
) -> None:
    body = fixture_bytes("gemini/error-400-api-key-invalid-stream.response.json")
    error = error_of(await run(server, Reply(body, status=400)))
    assert error.status == 400 and not error.retryable
    assert error.message.error_message == "API key not valid. Please pass a valid API key."


async def test_retry_info_detail_gives_the_delay(server: LoopbackServer) -> None:
    body = fixture_bytes("gemini/error-429-resource-exhausted.response.json")
    error = error_of(await run(server, Reply(body, 429, "application/json")))
    assert (error.retryable, error.retry_after) == (True, 48.0)


SPEC = ModelSpec("google", "gemini-3-pro-preview", "u", max_tokens=500, reasoning="high")


def ours(*content: Any) -> AssistantMessage:
    return reply(API, "google", SPEC.model, *content)


def test_golden_request() -> None:
    call = ToolCall("c1", "read_file", {"path": "a"}, thought_signature="sig")
    request = RequestMessages(
        "Be brief.",
        (
            UserMessage((TextContent("look"), ImageContent(PNG, "image/png"))),
            ours(ThinkingContent("plan", "tsig"), TextContent("Reading."), call),
            ToolResultMessage("c1", "read_file", (TextContent("body"),)),
            ToolResultMessage("c2", "read_file", (TextContent("bad"),), is_error=True),
        ),
        (READ_TOOL,),
    )
    assert build_request(SPEC, request) == {
        "contents": [
            {
                "role": "user",
                "parts": [{"text": "look"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}],
            },
            {
                "role": "model",
                "parts": [
                    {"thought": True, "text": "plan", "thoughtSignature": "tsig"},
                    {"text": "Reading."},
                    {
                        "functionCall": {"name": "read_file", "args": {"path": "a"}, "id": "c1"},
                        "thoughtSignature": "sig",
                    },
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "read_file",
                            "response": {"output": "body"},
                            "id": "c1",
                        }
                    },
                    {
                        "functionResponse": {
                            "name": "read_file",
                            "response": {"error": "bad"},
                            "id": "c2",
                        }
                    },
                ],
            },
        ],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "read_file",
                        "description": "Read a file of the workspace.",
                        "parametersJsonSchema": READ_TOOL.parameters,
                    }
                ]
            }
        ],
        "generationConfig": {
            "maxOutputTokens": 500,
            "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "high"},
        },
    }


def test_calls_from_another_model_carry_the_skip_sentinel_on_gemini_3() -> None:
    foreign = reply("openai-chat", "openai", "gpt-4o", ToolCall("call_1", "read_file", {}))
    contents = build_request(SPEC, RequestMessages(None, (UserMessage("q"), foreign)))["contents"]
    assert contents[1]["parts"][0]["thoughtSignature"] == SKIP_SIGNATURE


def test_each_request_renders_the_previous_contents_as_a_byte_prefix() -> None:
    call = ToolCall("c1", "read_file", {"path": "a"}, thought_signature="sig")

    def make(*content: Any) -> AssistantMessage:
        return ours(ThinkingContent("t", "tsig"), *content)

    requests = three_requests(standard_turns(make, call))
    assert_prefix([build_request(SPEC, r)["contents"] for r in requests])
