"""Gemini's own Google Search (grounding) through the adapter, against the
loopback server. No recorded grounding stream exists among the fixtures,
so the stream is built in the documented form (ai.google.dev, "Grounding
with Google Search" and "Combine built-in tools and function calling"):
with `includeServerSideToolInvocations` the search arrives as a `toolCall`
part and a `toolResponse` part, then the answer, and the last chunk's
candidate carries `groundingMetadata` (the queries, a `web {uri, title}`
per source). The parts are kept as they came and go back byte for byte in
the next request, which passes the API's rules; the metadata becomes the
search's references and is never sent back."""

from __future__ import annotations

import json
from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.provider_search import searches
from cursor_byok.llm.providers.anthropic import build_request as build_anthropic
from cursor_byok.llm.providers.gemini import GeminiLLM
from cursor_byok.llm.serialize import message_from_json, message_to_json
from cursor_byok.llm.types import ProviderBlock, RequestMessages, TextContent, ToolDefinition
from tests.factories import READ_TOOL, assistant, user
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.provider_rules import check_request
from tests.llm.streams import check_grammar, collect, done_of

SEARCH_TOOL = ToolDefinition("WebSearch", "Search the web.", {"type": "object"}, "web_search")
QUERY = "parser tokens release notes"
CALL_PART = {
    "toolCall": {"id": "gs_7f3a", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": [QUERY]}},
    "thoughtSignature": "CpYBAdHtim9bX3sig",
}
RESPONSE_PART = {
    "toolResponse": {
        "id": "gs_7f3a",
        "toolType": "GOOGLE_SEARCH_WEB",
        "response": {"search_suggestions": "<div>parser tokens release notes</div>"},
    }
}
GROUNDING: dict[str, Any] = {
    "webSearchQueries": [QUERY],
    "searchEntryPoint": {"renderedContent": "<style>.chip{}</style><div class=chip></div>"},
    "groundingChunks": [
        {
            "web": {
                "uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1",
                "title": "docs.example",
            }
        },
        {
            "web": {
                "uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ2",
                "title": "changes.example",
            }
        },
    ],
    "groundingSupports": [
        {
            "segment": {"startIndex": 0, "endIndex": 16, "text": "It reads tokens."},
            "groundingChunkIndices": [0, 1],
        }
    ],
}


def _chunk(parts: list[dict[str, Any]], **candidate: Any) -> str:
    body = {
        "candidates": [{"content": {"role": "model", "parts": parts}, **candidate}],
        "responseId": "resp-g1",
    }
    return f"data: {json.dumps(body)}\r\n\r\n"


def grounded_stream() -> bytes:
    usage = {"promptTokenCount": 900, "candidatesTokenCount": 12, "totalTokenCount": 912}
    last = json.loads(_chunk([{"text": " See the notes."}])[6:])
    last["candidates"][0] |= {"finishReason": "STOP", "groundingMetadata": GROUNDING}
    last["usageMetadata"] = usage
    return (
        _chunk([CALL_PART, RESPONSE_PART])
        + _chunk([{"text": "It reads tokens."}])
        + f"data: {json.dumps(last)}\r\n\r\n"
    ).encode()


async def call(server: LoopbackServer, model: str, request: RequestMessages) -> Any:
    server.replies.append(Reply(grounded_stream()))
    llm = GeminiLLM(ModelSpec("google", model, server.base_url + "/v1beta"), "g-key")
    try:
        return await collect(await llm.call(CallContext("c1", "s1"), request))
    finally:
        await llm.aclose()


async def test_the_search_is_offered_kept_and_replayed_as_it_came(
    server: LoopbackServer,
) -> None:
    model = "gemini-3-pro-preview"
    tools = (READ_TOOL, SEARCH_TOOL)
    request = RequestMessages("Be brief.", (user("what changed in the parser?"),), tools)
    events = await call(server, model, request)
    check_grammar(events)
    message = done_of(events).message
    searched, answered, text, grounding = message.content
    assert isinstance(searched, ProviderBlock) and json.loads(searched.raw) == CALL_PART
    assert isinstance(answered, ProviderBlock) and json.loads(answered.raw) == RESPONSE_PART
    assert text == TextContent("It reads tokens. See the notes.")
    assert isinstance(grounding, ProviderBlock)
    assert json.loads(grounding.raw) == {"groundingMetadata": GROUNDING}
    # Offered as Google Search beside the functions, WebSearch not declared.
    first = check_request("gemini", server.received[0].body, model)
    assert first["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": READ_TOOL.name,
                    "description": READ_TOOL.description,
                    "parametersJsonSchema": READ_TOOL.parameters,
                }
            ]
        },
        {"google_search": {}},
    ]
    assert first["toolConfig"] == {"includeServerSideToolInvocations": True}
    # The search's references, for the card and `show`.
    [found] = searches(message.content)
    assert (found.call_id, found.query) == ("gs_7f3a", QUERY)
    assert found.references == (
        ("docs.example", GROUNDING["groundingChunks"][0]["web"]["uri"], ""),
        ("changes.example", GROUNDING["groundingChunks"][1]["web"]["uri"], ""),
    )
    # Stored and loaded again, then sent back twice: the parts as they came,
    # the metadata left out, the same bytes each time.
    stored = message_from_json(json.loads(json.dumps(message_to_json(message))))
    assert stored == message
    follow = RequestMessages(
        "Be brief.", (*request.messages, stored, user("and the changelog?")), tools
    )
    await call(server, model, follow)
    await call(server, model, follow)
    assert server.received[1].body == server.received[2].body
    sent = check_request("gemini", server.received[1].body, model)
    replayed = sent["contents"][1]
    assert replayed["role"] == "model"
    assert replayed["parts"] == [CALL_PART, RESPONSE_PART, {"text": text.text}]
    assert b"groundingMetadata" not in server.received[1].body
    # Another model gets the answer's text alone (the parts carry this one's signature).
    await call(server, "gemini-3-flash-preview", follow)
    other = check_request("gemini", server.received[3].body, "gemini-3-flash-preview")
    assert other["contents"][1]["parts"] == [{"text": text.text}]


async def test_gemini_2_keeps_the_web_search_function(server: LoopbackServer) -> None:
    """Gemini 2 takes Google Search only without function declarations: the
    WebSearch tool stays a function the server's backend serves."""
    model = "gemini-2.5-flash"
    request = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL, SEARCH_TOOL))
    await call(server, model, request)
    body = check_request("gemini", server.received[0].body, model)
    [declared] = body["tools"]
    assert [d["name"] for d in declared["functionDeclarations"]] == ["read_file", "WebSearch"]
    assert "toolConfig" not in body


def test_another_api_never_gets_the_blocks() -> None:
    grounding = ProviderBlock("google-generative-ai", json.dumps({"groundingMetadata": GROUNDING}))
    searched = ProviderBlock("google-generative-ai", json.dumps(CALL_PART))

    answer = assistant(searched, TextContent("It reads tokens."), grounding)
    spec = ModelSpec("anthropic", "claude-sonnet-4-5", "u")
    body = build_anthropic(spec, RequestMessages(None, (user("q"), answer, user("more"))))
    assert body["messages"][1]["content"] == [{"type": "text", "text": "It reads tokens."}]
