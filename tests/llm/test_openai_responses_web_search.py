"""OpenAI Responses' own web search (`{"type": "web_search"}`) through the
adapter, against the loopback server. No recorded search stream exists
among the fixtures, so the stream is built from the API reference: a
`web_search_call` output item (added in progress, done completed with its
action's query and sources, which the request asks for with `include`),
then the message. The item is kept as it came and goes back as an input
item of its own in the next (stateless) request, within the rules."""

from __future__ import annotations

import json
from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.provider_search import searches
from cursor_byok.llm.providers.openai_responses import OpenAIResponsesLLM
from cursor_byok.llm.serialize import message_from_json, message_to_json
from cursor_byok.llm.types import ProviderBlock, RequestMessages, TextContent, ToolDefinition
from tests.factories import READ_TOOL, user
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.provider_rules import check_request
from tests.llm.streams import check_grammar, collect, done_of

SEARCH_TOOL = ToolDefinition("WebSearch", "Search the web.", {"type": "object"}, "web_search")
CALL = {
    "type": "web_search_call",
    "id": "ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "parser tokens",
        "sources": [
            {"type": "url", "url": "https://docs.example/parser"},
            {"type": "url", "url": "https://docs.example/changes"},
        ],
    },
}


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def search_stream(call: dict[str, Any] = CALL) -> bytes:
    message: dict[str, Any] = {"id": "msg_67c9fa077e288190af08fdffda2e34f20be649c1a5ff9609"}
    message["type"] = "message"
    message |= {"role": "assistant", "status": "in_progress", "content": []}
    parts = [
        _event("response.created", {"response": {"id": "resp_search", "status": "in_progress"}}),
        _event(
            "response.output_item.added",
            {"output_index": 0, "item": {**call, "status": "in_progress", "action": {}}},
        ),
        _event("response.web_search_call.in_progress", {"output_index": 0, "item_id": call["id"]}),
        _event("response.web_search_call.searching", {"output_index": 0, "item_id": call["id"]}),
        _event("response.web_search_call.completed", {"output_index": 0, "item_id": call["id"]}),
        _event("response.output_item.done", {"output_index": 0, "item": call}),
        _event("response.output_item.added", {"output_index": 1, "item": message}),
        _event(
            "response.output_text.delta",
            {"output_index": 1, "content_index": 0, "delta": "It reads tokens."},
        ),
        _event(
            "response.output_item.done",
            {"output_index": 1, "item": {**message, "status": "completed"}},
        ),
        _event(
            "response.completed",
            {
                "response": {
                    "id": "resp_search",
                    "status": "completed",
                    "usage": {"input_tokens": 320, "output_tokens": 40, "total_tokens": 360},
                }
            },
        ),
    ]
    return "".join(parts).encode()


async def call(server: LoopbackServer, request: RequestMessages, body: bytes) -> Any:
    server.replies.append(Reply(body))
    spec = ModelSpec("openai", "gpt-5", server.base_url + "/v1")
    llm = OpenAIResponsesLLM(spec, "sk-test")
    try:
        return await collect(await llm.call(CallContext("c1", "sess-1"), request))
    finally:
        await llm.aclose()


async def test_the_search_call_is_kept_and_replayed_as_it_came(server: LoopbackServer) -> None:
    request = RequestMessages("Be brief.", (user("how does the parser work?"),), (SEARCH_TOOL,))
    events = await call(server, request, search_stream())
    check_grammar(events)
    message = done_of(events).message
    searched, text = message.content
    assert isinstance(searched, ProviderBlock) and json.loads(searched.raw) == CALL
    assert isinstance(text, TextContent) and text.text == "It reads tokens."
    first = check_request("openai-responses", server.received[0].body)
    assert first["tools"] == [{"type": "web_search"}]
    assert "web_search_call.action.sources" in first["include"]
    stored = message_from_json(json.loads(json.dumps(message_to_json(message))))
    assert stored == message
    follow = RequestMessages(
        "Be brief.", (*request.messages, stored, user("and the changelog?")), (SEARCH_TOOL,)
    )
    await call(server, follow, search_stream())
    sent = check_request("openai-responses", server.received[1].body)
    assert sent["input"][1] == CALL, "the search goes back as its own input item"
    assert sent["input"][2]["type"] == "message"
    [found] = searches(message.content)
    assert (found.call_id, found.query) == (CALL["id"], "parser tokens")
    assert [url for _, url, _ in found.references] == [
        "https://docs.example/parser",
        "https://docs.example/changes",
    ]


async def test_a_page_opened_is_no_search_and_a_failed_one_is_an_error(
    server: LoopbackServer,
) -> None:
    opened = {**CALL, "action": {"type": "open_page", "url": "https://docs.example/parser"}}
    failed = {**CALL, "status": "failed", "action": {"type": "search", "query": "x"}}
    request = RequestMessages("Be brief.", (user("hi"),), (SEARCH_TOOL, READ_TOOL))
    for item, expected in ((opened, []), (failed, [("x", "failed")])):
        message = done_of(await call(server, request, search_stream(item))).message
        assert [(s.query, s.error) for s in searches(message.content)] == expected
    sent = check_request("openai-responses", server.received[0].body)
    assert [t["type"] for t in sent["tools"]] == ["web_search", "function"]
