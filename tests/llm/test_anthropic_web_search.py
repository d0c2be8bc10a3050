"""Anthropic's own web search (`web_search_20250305`) through the adapter,
against the loopback server. No recorded search stream exists among the
fixtures, so the stream is built from the API reference: a
`server_tool_use` whose input streams as `input_json_delta`, then a
`web_search_tool_result` that arrives whole in its start (each result with
its `encrypted_content`), then the answer. The blocks are kept as they came
and go back byte for byte in the next request, which passes the provider's
rules; the WebSearch tool is offered as the server tool."""

from __future__ import annotations

import json
from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.provider_search import searches
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.providers.openai_chat import build_request as build_chat
from cursor_byok.llm.serialize import message_from_json, message_to_json
from cursor_byok.llm.types import (
    ProviderBlock,
    RequestMessages,
    TextContent,
    ToolDefinition,
)
from tests.factories import READ_TOOL, user
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.provider_rules import check_request
from tests.llm.streams import check_grammar, collect, done_of

SEARCH_TOOL = ToolDefinition("WebSearch", "Search the web.", {"type": "object"}, "web_search")
USE = {"type": "server_tool_use", "id": "srvtoolu_01WYG3", "name": "web_search", "input": {}}
RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01WYG3",
    "content": [
        {
            "type": "web_search_result",
            "url": "https://docs.example/parser",
            "title": "Parser docs",
            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2Y=",
            "page_age": "April 30, 2026",
        },
        {
            "type": "web_search_result",
            "url": "https://docs.example/changes",
            "title": "Changelog",
            "encrypted_content": "Eo8BCioIAhgBIiQ1ZDE5YjAzMi0wYmE0LTQzZTctYTdkNC0zOWM0ZTk5ZTI2ZjQ=",
            "page_age": None,
        },
    ],
}


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def search_stream(result: dict[str, Any] = RESULT, stop: str = "end_turn") -> bytes:
    """One response: a search, its results, the answer (API reference shapes)."""
    message: dict[str, Any] = {"id": "msg_01Search", "type": "message", "role": "assistant"}
    message["content"] = []
    message |= {"model": "claude-sonnet-4", "usage": {"input_tokens": 2100, "output_tokens": 3}}
    parts = [
        _event("message_start", {"message": message}),
        _event("content_block_start", {"index": 0, "content_block": USE}),
        _event(
            "content_block_delta",
            {"index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"query": "pa'}},
        ),
        _event(
            "content_block_delta",
            {"index": 0, "delta": {"type": "input_json_delta", "partial_json": 'rser tokens"}'}},
        ),
        _event("content_block_stop", {"index": 0}),
        _event("content_block_start", {"index": 1, "content_block": result}),
        _event("content_block_stop", {"index": 1}),
        _event("content_block_start", {"index": 2, "content_block": {"type": "text", "text": ""}}),
        _event(
            "content_block_delta",
            {"index": 2, "delta": {"type": "text_delta", "text": "It reads tokens."}},
        ),
        _event("content_block_stop", {"index": 2}),
        _event(
            "message_delta",
            {
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 40, "server_tool_use": {"web_search_requests": 1}},
            },
        ),
        _event("message_stop", {}),
    ]
    return "".join(parts).encode()


async def call(server: LoopbackServer, request: RequestMessages, body: bytes) -> Any:
    server.replies.append(Reply(body))
    llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", server.base_url), "sk-ant")
    try:
        return await collect(await llm.call(CallContext("c1", "s1"), request))
    finally:
        await llm.aclose()


async def test_the_search_blocks_are_kept_and_replayed_as_they_came(
    server: LoopbackServer,
) -> None:
    request = RequestMessages("Be brief.", (user("how does the parser work?"),), (SEARCH_TOOL,))
    events = await call(server, request, search_stream())
    check_grammar(events)
    message = done_of(events).message
    use, result, text = message.content
    assert isinstance(use, ProviderBlock) and isinstance(result, ProviderBlock)
    assert json.loads(use.raw) == {**USE, "input": {"query": "parser tokens"}}
    assert json.loads(result.raw) == RESULT
    assert text == TextContent("It reads tokens.")
    assert done_of(events).reason == "stop"
    # Offered as the server tool, not as a function.
    first = check_request("anthropic", server.received[0].body)
    assert first["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    # Stored and loaded again, then sent back: the same bytes, within the rules.
    stored = message_from_json(json.loads(json.dumps(message_to_json(message))))
    assert stored == message
    follow = RequestMessages(
        "Be brief.", (*request.messages, stored, user("and the changelog?")), (SEARCH_TOOL,)
    )
    await call(server, follow, search_stream())
    sent = check_request("anthropic", server.received[1].body)
    replayed = sent["messages"][1]["content"]
    assert replayed[0] == json.loads(use.raw) and replayed[1] == RESULT
    assert result.raw == json.dumps(RESULT, separators=(",", ":"), ensure_ascii=False)
    assert [s.query for s in searches(message.content)] == ["parser tokens"]
    [found] = searches(message.content)
    assert found.references == (
        ("Parser docs", "https://docs.example/parser", "April 30, 2026"),
        ("Changelog", "https://docs.example/changes", ""),
    )


async def test_another_api_never_gets_the_blocks(server: LoopbackServer) -> None:
    """A conversation carried on with another provider's model: the blocks
    are for Anthropic's API only; the answer's text goes on."""
    request = RequestMessages("Be brief.", (user("how does the parser work?"),), (SEARCH_TOOL,))
    message = done_of(await call(server, request, search_stream())).message
    history = (*request.messages, message, user("more?"))
    body = build_chat(
        ModelSpec("openai", "gpt-5", "http://x"), RequestMessages("Be brief.", history)
    )
    dumped = json.dumps(body)
    assert "encrypted_content" not in dumped and "server_tool_use" not in dumped
    assert "It reads tokens." in dumped
    check_request("openai-chat", dumped.encode())


async def test_a_failed_search_is_an_error_for_the_card(server: LoopbackServer) -> None:
    failed = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01WYG3",
        "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
    }
    request = RequestMessages("Be brief.", (user("search"),), (SEARCH_TOOL, READ_TOOL))
    message = done_of(await call(server, request, search_stream(failed))).message
    [found] = searches(message.content)
    assert (found.query, found.error, found.references) == (
        "parser tokens",
        "max_uses_exceeded",
        (),
    )
    sent = check_request("anthropic", server.received[0].body)
    assert [t.get("name") for t in sent["tools"]] == ["web_search", "read_file"]


async def test_a_paused_turn_is_done_with_pause_and_goes_back_as_it_came(
    server: LoopbackServer,
) -> None:
    """`pause_turn`: Anthropic stopped a long run of its own tools; the
    response, sent back unchanged as the last message, lets it go on."""
    request = RequestMessages("Be brief.", (user("search a lot"),), (SEARCH_TOOL,))
    events = await call(server, request, search_stream(stop="pause_turn"))
    check_grammar(events)
    done = done_of(events)
    assert done.reason == "pause" and done.message.stop_reason == "pause"
    stored = message_from_json(json.loads(json.dumps(message_to_json(done.message))))
    assert stored == done.message
    await call(
        server,
        RequestMessages("Be brief.", (*request.messages, stored), (SEARCH_TOOL,)),
        search_stream(),
    )
    sent = check_request("anthropic", server.received[1].body)
    assert sent["messages"][-1]["role"] == "assistant"
    assert sent["messages"][-1]["content"][:2] == [
        json.loads(b.raw) for b in stored.content[:2] if isinstance(b, ProviderBlock)
    ]
