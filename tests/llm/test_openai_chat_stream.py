"""OpenAI Chat Completions and compatible vendors, against recorded bodies
replayed by a loopback server."""

from __future__ import annotations

import json
from typing import cast

from cursor_byok.llm.events import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallEnd
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.openai_chat import OpenAIChatLLM
from cursor_byok.llm.types import RequestMessages, TextContent, ThinkingContent, ToolCall
from tests.factories import READ_TOOL, user
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes
from tests.llm.streams import collect, done_of, error_of

REQUEST = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL,))


def llm(server: LoopbackServer, provider: str = "openai", model: str = "gpt-4o") -> OpenAIChatLLM:
    return OpenAIChatLLM(ModelSpec(provider, model, server.base_url + "/v1"), "sk-test")


async def run(server: LoopbackServer, fixture: str, **kw: str) -> list:  # type: ignore[type-arg]
    server.replies.append(Reply(fixture_bytes(fixture)))
    client = llm(server, **kw)
    try:
        return await collect(await client.call(CallContext("c1", "sess-1"), REQUEST))
    finally:
        await client.aclose()


async def test_text_stream_gives_text_usage_and_response_id(server: LoopbackServer) -> None:
    events = await run(server, "openai-chat/text-usage.sse")
    done = done_of(events)
    assert done.reason == "stop"
    assert done.message.content == (TextContent("The capital of Mexico is Mexico City."),)
    assert "".join(e.delta for e in events if isinstance(e, TextDelta)) == done.message.text
    usage = done.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (14, 8, 0, 22)
    assert usage.cost.total > 0
    assert done.message.response_id == "chatcmpl-C2P2HtMJhPkWjQ2adKerkdVilXmRL"
    sent = server.received[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.json()["stream"] is True


async def test_parallel_tool_calls_are_keyed_by_index(server: LoopbackServer) -> None:
    events = await run(server, "openai-chat/parallel-tool-calls-fragmented.sse")
    done = done_of(events)
    assert done.reason == "toolUse"
    first, second = done.message.tool_calls
    assert (first.id, first.name, first.arguments) == (
        "call_NS4iQj14cDFwc0BnrKqDHavt",
        "get_weather",
        {"city": "Mexico City"},
    )
    assert (second.name, second.arguments) == ("get_product_name", {})
    pieces = [e.delta for e in events if isinstance(e, ToolCallDelta) and e.content_index == 0]
    assert len(pieces) > 1 and "".join(pieces) == first.raw_arguments
    ends = [e.tool_call for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [first, second]


async def test_long_fragmented_arguments_parse_whole(server: LoopbackServer) -> None:
    done = done_of(await run(server, "openai-chat/tool-call-long-arguments.sse"))
    (call,) = done.message.tool_calls
    assert call.raw_arguments is not None
    assert call.arguments == json.loads(call.raw_arguments)
    answers = cast(list[dict[str, str]], call.arguments["answers"])
    assert [a["label"] for a in answers][:2] == [
        "Capital of the country",
        "Weather in the capital",
    ]


async def test_cached_tokens_are_not_counted_as_input(server: LoopbackServer) -> None:
    done = done_of(await run(server, "openai-chat/cached-tokens-gpt4o.sse"))
    assert done.reason == "length"
    usage = done.message.usage
    assert (usage.input, usage.cache_read, usage.output) == (1420 - 1280, 1280, 100)


async def test_deepseek_reasoning_content_becomes_thinking(server: LoopbackServer) -> None:
    events = await run(
        server, "deepseek/reasoning-content.sse", provider="deepseek", model="deepseek-reasoner"
    )
    done = done_of(events)
    thinking, text = done.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert thinking.thinking.startswith('Hmm, the user just said "Hello".')
    assert thinking.thinking_signature == "reasoning_content"
    assert "".join(e.delta for e in events if isinstance(e, ThinkingDelta)) == thinking.thinking
    assert text.text == "Hello there! 😊 How can I help you today?"
    assert done.message.usage.reasoning == 198


async def test_deepseek_cache_hit_fields_map_to_usage(server: LoopbackServer) -> None:
    done = done_of(
        await run(server, "deepseek/tool-call-cache-hit.sse", provider="deepseek", model="x")
    )
    usage = done.message.usage
    assert (usage.input, usage.cache_read, usage.total_tokens) == (111, 384, 560)
    (call,) = done.message.tool_calls
    assert call.arguments == {"latitude": "48.8575", "longitude": "2.3514"}


async def test_deepseek_reasoner_thinks_then_calls_a_tool(server: LoopbackServer) -> None:
    done = done_of(await run(server, "deepseek/reasoner-tool-call-cache-hit.sse"))
    thinking, call = done.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(call, ToolCall)
    assert call.arguments == {"location": "San Francisco"}
    assert done.reason == "toolUse"


async def test_openrouter_reasoning_details_are_kept_for_replay(server: LoopbackServer) -> None:
    done = done_of(await run(server, "openai-compatible/openrouter-reasoning.sse"))
    thinking = done.message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "This is a simple arithmetic question. 2+2 equals 4."
    assert thinking.thinking_signature is not None
    (detail,) = json.loads(thinking.thinking_signature)
    assert detail["text"] == thinking.thinking
    assert detail["signature"].startswith("Et0BCkgIChACGAIqQA2s")
    assert done.message.text == "2 + 2 = 4"


async def test_ollama_reasoning_field_and_gpustack_without_done(server: LoopbackServer) -> None:
    ollama = done_of(await run(server, "openai-compatible/ollama-qwen3-reasoning.sse"))
    assert isinstance(ollama.message.content[0], ThinkingContent)
    assert ollama.message.content[0].thinking_signature == "reasoning"
    assert ollama.message.text == "1  \n2  \n3"
    gpustack = done_of(await run(server, "openai-compatible/gpustack-qwen3-reasoning-content.sse"))
    assert gpustack.message.text == "\n\n1, 2, 3."
    assert gpustack.message.usage.reasoning == 160


async def test_openrouter_error_chunk_ends_the_stream(server: LoopbackServer) -> None:
    error = error_of(await run(server, "openai-compatible/openrouter-midstream-error.sse"))
    assert error.reason == "error"
    assert error.message.error_message == "Token limit reached"
    assert error.message.usage.input == 43


async def test_whole_calls_without_an_index_stay_apart(server: LoopbackServer) -> None:
    """Some compatible servers send each call whole in one chunk and no `index`."""
    calls = [
        {
            "id": f"call_{n}",
            "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": p})},
        }
        for n, p in ((1, "a.txt"), (2, "b.txt"), (3, "c.txt"))
    ]
    chunks = [
        {"id": "x", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": calls}}]},
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    server.replies.append(Reply(body.encode()))
    client = llm(server, provider="ollama", model="qwen3")
    try:
        done = done_of(await collect(await client.call(CallContext("c1"), REQUEST)))
    finally:
        await client.aclose()
    assert [(c.id, c.arguments) for c in done.message.tool_calls] == [
        ("call_1", {"path": "a.txt"}),
        ("call_2", {"path": "b.txt"}),
        ("call_3", {"path": "c.txt"}),
    ]
