"""Anthropic Messages against recorded bodies replayed by a loopback server."""

from __future__ import annotations

import json
import re

from cursor_byok.llm.events import ResponseEvent, ThinkingDelta, ToolCallDelta
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.anthropic import ANTHROPIC_VERSION, AnthropicLLM
from cursor_byok.llm.types import RequestMessages, TextContent, ThinkingContent, ToolCall
from tests.factories import READ_TOOL, user
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes
from tests.llm.streams import collect, done_of, error_of

REQUEST = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL,))


async def run(
    server: LoopbackServer, body: bytes, model: str = "claude-sonnet-4"
) -> list[ResponseEvent]:
    server.replies.append(Reply(body))
    llm = AnthropicLLM(ModelSpec("anthropic", model, server.base_url), "sk-ant")
    try:
        return await collect(await llm.call(CallContext("c1", "s1"), REQUEST))
    finally:
        await llm.aclose()


async def test_text_stream_and_request_headers(server: LoopbackServer) -> None:
    done = done_of(await run(server, fixture_bytes("anthropic/text-usage.sse")))
    assert done.message.content == (TextContent("Hello"),)
    assert done.message.response_id == "msg_01T8kTq7cYyYJeQ5DxcVUc6D"
    usage = done.message.usage
    assert (usage.input, usage.output, usage.total_tokens) == (10, 4, 14)
    sent = server.received[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant"
    assert sent.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "temperature" not in sent.json()


FIXTURE = "anthropic/thinking.sse"


async def test_thinking_keeps_its_signature(server: LoopbackServer) -> None:
    events = await run(server, fixture_bytes(FIXTURE))
    done = done_of(events)
    thinking, text = done.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert thinking.thinking.startswith("This is a straightforward question about pedestrian")
    assert thinking.thinking_signature is not None
    recorded = re.search(rb'"signature_delta","signature":"([^"]+)"', fixture_bytes(FIXTURE))
    assert recorded is not None
    assert thinking.thinking_signature == recorded.group(1).decode()
    assert "".join(e.delta for e in events if isinstance(e, ThinkingDelta)) == thinking.thinking
    assert all(e.delta for e in events if isinstance(e, ThinkingDelta)), "no empty deltas"
    assert text.text.startswith("Here are the basic steps for safely crossing the street")


async def test_redacted_thinking_arrives_whole(server: LoopbackServer) -> None:
    done = done_of(await run(server, fixture_bytes("anthropic/redacted-thinking.sse")))
    first, second, text = done.message.content
    assert isinstance(first, ThinkingContent) and first.redacted
    assert first.thinking_signature is not None
    assert first.thinking_signature.startswith("EqkECkYIBxgCKkA8AZ4n")
    assert isinstance(second, ThinkingContent) and second.redacted
    assert isinstance(text, TextContent)
    assert done.message.usage.output == 189


async def test_parallel_tool_use_after_text(server: LoopbackServer) -> None:
    events = await run(server, fixture_bytes("anthropic/parallel-tool-use.sse"))
    done = done_of(events)
    assert done.reason == "toolUse"
    text, weather, clock = done.message.content
    assert isinstance(text, TextContent)
    assert weather == ToolCall(
        "toolu_01Mo5Ee5Yb7vrzaxSNS5DVuP",
        "get_weather",
        {"location": "New York, NY"},
        '{"location": "New York, NY"}',
    )
    assert isinstance(clock, ToolCall) and clock.arguments == {"timezone": "America/New_York"}
    assert sum(isinstance(e, ToolCallDelta) for e in events) > 2


async def test_tool_call_without_arguments_parses_to_an_empty_object(
    server: LoopbackServer,
) -> None:
    done = done_of(await run(server, fixture_bytes("anthropic/tool-use-single.sse")))
    (call,) = done.message.tool_calls
    assert (call.name, call.arguments, call.raw_arguments) == ("pelican_name_generator", {}, None)


async def test_thinking_then_tool_use_stops_for_the_tool(server: LoopbackServer) -> None:
    done = done_of(await run(server, fixture_bytes("anthropic/thinking-then-tool-use.sse")))
    thinking, call = done.message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking_signature
    assert isinstance(call, ToolCall) and call.id == "toolu_01825dXWLSoJwCst1qTsiWdb"
    assert done.reason == "toolUse"


async def test_cache_write_and_read_are_separate_buckets(server: LoopbackServer) -> None:
    write = done_of(await run(server, fixture_bytes("anthropic/cache-write.sse")))
    read = done_of(await run(server, fixture_bytes("anthropic/cache-read.sse")))
    assert (write.message.usage.cache_write, write.message.usage.cache_read) == (1031, 0)
    assert (read.message.usage.cache_write, read.message.usage.cache_read) == (0, 1031)
    assert write.reason == read.reason == "length"
    assert write.message.usage.cost.cache_write > read.message.usage.cost.cache_read > 0


OVERLOADED = (
    b"event: error\n"
    b'data: {"type":"error","error":{"details":null,"type":"overloaded_error",'
    b'"message":"Overloaded"},"request_id":"req_1"}\n\n'
)


async def test_overloaded_error_mid_stream_is_retryable(server: LoopbackServer) -> None:
    body = fixture_bytes("anthropic/parallel-tool-use.sse")
    cut = body.index(b"event: content_block_stop")
    events = await run(server, body[:cut] + OVERLOADED)
    error = error_of(events)
    assert error.retryable and error.message.error_message == "Overloaded"
    assert error.message.stop_reason == "error"


def sse(*events: dict[str, object]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def text_reply(start_usage: dict[str, object], end_usage: dict[str, object]) -> bytes:
    return sse(
        {"type": "message_start", "message": {"id": "msg_1", "usage": start_usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": end_usage},
        {"type": "message_stop"},
    )


async def test_the_final_delta_does_not_overwrite_cache_reads(server: LoopbackServer) -> None:
    body = text_reply(
        {"input_tokens": 12, "cache_read_input_tokens": 5000, "cache_creation_input_tokens": 300},
        {"input_tokens": 12, "cache_read_input_tokens": 0, "output_tokens": 7},
    )
    usage = done_of(await run(server, body)).message.usage
    assert (usage.input, usage.cache_read, usage.cache_write, usage.output) == (12, 5000, 300, 7)


async def test_compaction_iterations_are_summed(server: LoopbackServer) -> None:
    """With server-side compaction the top level counts only the last step."""
    iterations = [
        {
            "type": "compaction",
            "input_tokens": 180000,
            "output_tokens": 3500,
            "cache_read_input_tokens": 1000,
        },
        {
            "type": "message",
            "input_tokens": 23000,
            "output_tokens": 1000,
            "cache_creation_input_tokens": 40,
        },
    ]
    body = text_reply(
        {"input_tokens": 23000},
        {"input_tokens": 23000, "output_tokens": 1000, "iterations": iterations},
    )
    usage = done_of(await run(server, body)).message.usage
    assert (usage.input, usage.output) == (203000, 4500)
    assert (usage.cache_read, usage.cache_write) == (1000, 40)
