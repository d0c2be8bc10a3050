"""Each provider's documented request rules, checked on a request body as
sent. A test runs a turn through the server and hands the next request's
bytes here: anything a provider would answer with 400 fails the test with
the rule's name."""

from __future__ import annotations

import base64
import io
import json
import re
from collections import Counter
from typing import Any

from PIL import Image

from cursor_byok.llm.images import RULES, sniff_mime
from cursor_byok.llm.limits import known_limits

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ALL_FOUR = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
IMAGE_TYPES = {
    "anthropic-messages": ALL_FOUR,
    "openai-chat": ALL_FOUR,
    "openai-responses": ALL_FOUR,
    # PNG, JPEG, WebP, HEIC, HEIF: a GIF is refused as an invalid argument.
    "google-generative-ai": frozenset({"image/png", "image/jpeg", "image/webp"}),
}
"""The image types each API documents (kept apart from the code's table)."""


def check_request(api: str, raw: bytes, model: str = "") -> dict[str, Any]:
    """The parsed body, after every rule of `api` held (`model`: Gemini's,
    which travels in the URL)."""
    body: dict[str, Any] = json.loads(raw)
    if api == "gemini":
        check_gemini(body, model)
    else:
        {
            "anthropic": check_anthropic,
            "openai-chat": check_chat,
            "openai-responses": check_responses,
        }[api](body)
    return body


MAX_SIDE = {"anthropic-messages": 8000}
"""Pixels on either side of one image: Anthropic rejects larger ones."""
MANY_IMAGES = {"anthropic-messages": (20, 2000)}
"""Anthropic: in a request of more than 20 images, at most 2000 px a side."""


def _images(api: str, images: list[tuple[str, str]]) -> None:
    """Every image (declared type, base64 data) is one the API takes: its
    declared type is its real one, and it is within the size, dimension and
    count limits (its dimensions read from its header by Pillow)."""
    rules = RULES[api]
    assert len(images) <= rules.max_count, f"more than {rules.max_count} images"
    assert sum(len(d) for _, d in images) <= rules.max_total_chars, "too many image bytes"
    side = MAX_SIDE.get(api)
    many, many_side = MANY_IMAGES.get(api, (len(images), 0))
    if len(images) > many:
        side = many_side
    for mime, data in images:
        assert len(data) <= rules.max_chars, f"an image over {rules.max_chars} characters"
        raw = base64.b64decode(data, validate=True)
        real = sniff_mime(raw)
        assert real is not None, "image data that is no PNG, JPEG, GIF or WebP image"
        assert mime == real, f"an image declared {mime} that is {real}"
        assert mime in IMAGE_TYPES[api], f"an image of a type the API does not take: {mime}"
        if side is not None:
            width, height = Image.open(io.BytesIO(raw)).size
            assert max(width, height) <= side, f"an image of {width}x{height}, above {side} px"


def _data_url(url: str) -> tuple[str, str]:
    head, _, data = url.partition(",")
    assert head.startswith("data:") and head.endswith(";base64"), f"not a data URL: {head}"
    return head[5 : -len(";base64")], data


def _cap(model: str, sent: int) -> None:
    limits = known_limits(model)
    if limits is not None and limits.output_cap is not None:
        assert sent <= limits.output_cap, f"output limit {sent} above {model}'s cap"


# -- Anthropic Messages ------------------------------------------------------------


def check_anthropic(body: dict[str, Any]) -> None:
    _cap(body["model"], body["max_tokens"])
    thinking = body.get("thinking")
    if thinking and thinking["type"] == "enabled":
        budget = thinking["budget_tokens"]
        assert 1024 <= budget < body["max_tokens"], "budget_tokens must be >= 1024 and < max_tokens"
        assert "output_config" not in body
    messages = body["messages"]
    assert messages and messages[0]["role"] == "user", "the first message must be a user message"
    images = []
    for message in messages:
        for block in message["content"]:
            nested = block.get("content") if block["type"] == "tool_result" else None
            if isinstance(nested, list):
                kinds = {part["type"] for part in nested}
                assert kinds <= {"text", "image"}, f"tool_result content of kinds {kinds}"
            for part in [block, *(nested if isinstance(nested, list) else [])]:
                if part["type"] == "text":
                    assert part["text"], "text content blocks must be non-empty"
                if part["type"] == "image":
                    assert message["role"] == "user", "an image outside a user message"
                    assert part["source"]["type"] == "base64"
                    images.append((part["source"]["media_type"], part["source"]["data"]))
    _images("anthropic-messages", images)
    markers = 0
    for index, message in enumerate(messages):
        blocks = message["content"]
        markers += sum("cache_control" in b for b in blocks)
        if message["role"] != "assistant":
            continue
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        for block in blocks:
            if block["type"] == "tool_use":
                assert ANTHROPIC_ID.match(block["id"]), f"bad tool_use id {block['id']!r}"
            if block["type"] == "thinking":
                assert block.get("signature"), "a thinking block needs its signature"
            if block["type"] == "redacted_thinking":
                assert block.get("data"), "a redacted_thinking block needs its data"
        _anthropic_search_blocks(blocks)
        if not uses:
            continue
        assert index + 1 < len(messages), "tool_use must be answered by tool_result blocks"
        reply = messages[index + 1]["content"]
        assert messages[index + 1]["role"] == "user"
        results = [b for b in reply if b["type"] == "tool_result"]
        leading = reply[: len(results)]
        assert leading == results, "tool_result blocks must come first in the user message"
        assert [b["tool_use_id"] for b in results] == uses, "one tool_result per tool_use, in order"
    if thinking:
        last = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
        if last and any(b["type"] == "tool_use" for b in last["content"]):
            first = last["content"][0]["type"]
            assert first in ("thinking", "redacted_thinking"), "thinking turn must lead with it"
    markers += sum("cache_control" in b for b in body.get("system", []))
    markers += sum("cache_control" in t for t in body.get("tools", []))
    for tool in body.get("tools", []):
        if "type" in tool:  # a server tool: only the web search is offered
            assert tool["type"] == "web_search_20250305" and tool["name"] == "web_search"
            assert "input_schema" not in tool, "a server tool takes no input_schema"
        else:
            assert tool["input_schema"]["type"] == "object", "a client tool needs its schema"
    assert markers <= 4, "at most 4 cache_control breakpoints"


SERVER_TOOL_ID = re.compile(r"^srvtoolu_[a-zA-Z0-9_]+$")


def _anthropic_search_blocks(blocks: list[dict[str, Any]]) -> None:
    """Anthropic's web search blocks in an assistant message, as its API
    takes them back: each `server_tool_use` (web_search, with its query) is
    answered in the same message by the `web_search_tool_result` naming it,
    whose results each carry their `encrypted_content` untouched, and no
    result names a search that was not used."""
    used: list[str] = []
    for block in blocks:
        if block["type"] == "server_tool_use":
            assert SERVER_TOOL_ID.match(block["id"]), f"bad server_tool_use id {block['id']!r}"
            assert block["name"] == "web_search", "a server tool other than web_search"
            assert isinstance(block["input"].get("query"), str), "web_search input needs its query"
            used.append(block["id"])
        if block["type"] == "web_search_tool_result":
            assert block["tool_use_id"] in used, "a web_search_tool_result before its use"
            used.remove(block["tool_use_id"])
            content = block["content"]
            if isinstance(content, dict):
                assert content["type"] == "web_search_tool_result_error", "bad search error"
                continue
            for result in content:
                assert result["type"] == "web_search_result"
                assert result["url"] and result["title"] is not None
                assert result["encrypted_content"], "a search result without encrypted_content"
    assert used == [], "a server_tool_use without its web_search_tool_result"


# -- OpenAI Chat Completions ----------------------------------------------------------


def check_chat(body: dict[str, Any]) -> None:
    field = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
    _cap(body["model"], body[field])
    messages = body["messages"]
    images = []
    for message in messages:
        parts = message.get("content")
        if message["role"] == "tool":
            assert isinstance(parts, str) or all(p["type"] == "text" for p in parts), (
                "a tool message carries text only"
            )
        for part in parts if isinstance(parts, list) else []:
            if part["type"] == "image_url":
                assert message["role"] == "user", "image_url parts go in user messages only"
                images.append(_data_url(part["image_url"]["url"]))
    _images("openai-chat", images)
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        assert message["role"] != "tool", "a tool message must answer the assistant before it"
        calls = message.get("tool_calls") or []
        if not calls:
            continue
        if body["model"].startswith("deepseek-reasoner"):
            assert isinstance(message.get("reasoning_content"), str), (
                "reasoning_content must be passed back on tool-call turns"
            )
        for call in calls:
            json.loads(call["function"]["arguments"])
        answers = messages[index : index + len(calls)]
        assert [m["role"] for m in answers] == ["tool"] * len(calls), (
            "each tool_call needs a tool message right after the assistant message"
        )
        assert Counter(m["tool_call_id"] for m in answers) == Counter(c["id"] for c in calls)
        index += len(calls)


# -- OpenAI Responses -------------------------------------------------------------------


def check_responses(body: dict[str, Any]) -> None:
    _cap(body["model"], body["max_output_tokens"])
    items = body["input"]
    images = []
    for item in items:
        parts = item.get("content") if item.get("type", "message") == "message" else None
        output = item.get("output")
        if item.get("type") == "function_call_output" and isinstance(output, list):
            kinds = {part["type"] for part in output}
            assert kinds <= {"input_text", "input_image", "input_file"}, (
                f"function_call_output items of kinds {kinds}"
            )
        parts = parts if isinstance(parts, list) else output
        for part in parts if isinstance(parts, list) else []:
            if part["type"] == "input_image":
                assert part.get("detail", "auto") in ("low", "high", "auto")
                images.append(_data_url(part["image_url"]))
    _images("openai-responses", images)
    open_calls: list[str] = []
    seen: set[str] = set()
    for position, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "function_call":
            assert item["call_id"] not in seen, "duplicate call_id"
            seen.add(item["call_id"])
            open_calls.append(item["call_id"])
            json.loads(item["arguments"])
        elif kind == "function_call_output":
            assert item["call_id"] in open_calls, "function_call_output before or without its call"
            open_calls.remove(item["call_id"])
        elif kind == "reasoning":
            assert body.get("store") is not False or item.get("encrypted_content"), (
                "with store false, a reasoning item comes back only with its encrypted_content"
            )
            following = items[position + 1] if position + 1 < len(items) else {}
            assert following.get("type") in ("function_call", "message", "web_search_call"), (
                "a reasoning item must be followed by the item it produced"
            )
        elif kind == "web_search_call":
            assert re.match(r"^ws_[A-Za-z0-9_]+$", item["id"]), "a web_search_call needs its id"
            assert item["status"] in ("completed", "failed"), "only a finished search goes back"
            action = item["action"]
            assert action["type"] in ("search", "open_page", "find_in_page"), "unknown action"
        elif item.get("role") == "user":
            assert not open_calls, "every function_call needs its output before the next input"
    assert not open_calls, "every function_call needs a function_call_output"
    for tool in body.get("tools", []):
        if tool["type"] != "function":  # a hosted tool: only the web search is offered
            assert tool == {"type": "web_search"}, f"unexpected hosted tool {tool}"
    assert set(body.get("include", [])) <= {
        "reasoning.encrypted_content",
        "web_search_call.action.sources",
    }, "an include the API does not know"


# -- Gemini --------------------------------------------------------------------------------


def check_gemini(body: dict[str, Any], model: str = "") -> None:
    config = body.get("generationConfig", {})
    thinking = config.get("thinkingConfig", {})
    assert not ("thinkingLevel" in thinking and "thinkingBudget" in thinking), (
        "thinkingLevel and thinkingBudget cannot be sent together"
    )
    limits = known_limits(model) if model else None
    if limits is not None:
        _cap(model, config["maxOutputTokens"])
        if limits.thinking == "level":
            assert "thinkingBudget" not in thinking, f"{model} takes thinkingLevel"
            if limits.levels and "thinkingLevel" in thinking:
                assert thinking["thinkingLevel"] in limits.levels
    _gemini_search(body, model)
    contents = body["contents"]
    nested = [
        part
        for c in contents
        for p in c["parts"]
        if "functionResponse" in p
        for part in p["functionResponse"].get("parts", [])
    ]
    if nested:
        major = re.match(r"gemini-(\d+)", model)
        assert major is not None and int(major.group(1)) >= 3, (
            "functionResponse.parts is taken from Gemini 3 on"
        )
        assert all(set(part) == {"inlineData"} for part in nested), "inline media only"
    images = [
        (p["inlineData"]["mimeType"], p["inlineData"]["data"])
        for p in [*(p for c in contents for p in c["parts"]), *nested]
        if "inlineData" in p
    ]
    _images("google-generative-ai", images)
    for index, content in enumerate(contents):
        if any("functionResponse" in p for p in content["parts"]):
            before = contents[index - 1] if index else {"parts": []}
            assert any("functionCall" in p for p in before["parts"]), (
                "a functionResponse turn must follow the functionCall turn"
            )
        calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
        if not calls:
            continue
        assert content["role"] == "model"
        assert index + 1 < len(contents), "a functionCall must be answered"
        reply = contents[index + 1]
        assert reply["role"] == "user"
        assert all("functionResponse" in p for p in reply["parts"]), (
            "the turn after a functionCall holds only functionResponses"
        )
        responses = [p["functionResponse"] for p in reply["parts"]]
        assert len(responses) == len(calls), "one functionResponse per functionCall, in one turn"
        assert [r["name"] for r in responses] == [c["name"] for c in calls]
        if all("id" in c for c in calls):
            assert [r.get("id") for r in responses] == [c["id"] for c in calls]


PART_KINDS = frozenset(
    {"text", "inlineData", "functionCall", "functionResponse", "toolCall", "toolResponse"}
)
"""What a part may hold (besides `thought` and `thoughtSignature`)."""


def _gemini_search(body: dict[str, Any], model: str) -> None:
    """Google Search grounding: `google_search` beside function declarations
    only from Gemini 3 on, with `includeServerSideToolInvocations`; the
    search's `toolCall` / `toolResponse` parts go back in model turns, each
    response after its call; grounding metadata is no part."""
    tools = body.get("tools", [])
    for tool in tools:
        assert set(tool) <= {"functionDeclarations", "google_search"}, f"unknown tool {tool}"
    search = any("google_search" in tool for tool in tools)
    functions = any("functionDeclarations" in tool for tool in tools)
    major = re.match(r"gemini-(\d+)", model)
    if search and functions:
        assert major is not None and int(major.group(1)) >= 3, (
            "google_search beside function declarations is taken from Gemini 3 on"
        )
        assert body.get("toolConfig", {}).get("includeServerSideToolInvocations") is True, (
            "combining built-in tools and functions needs includeServerSideToolInvocations"
        )
    called: set[str] = set()
    for content in body["contents"]:
        for part in content["parts"]:
            kinds = set(part) - {"thought", "thoughtSignature"}
            assert len(kinds) == 1 and kinds <= PART_KINDS, f"not a part: {sorted(part)}"
            if "toolCall" in part:
                assert content["role"] == "model", "a toolCall part is the model's"
                called.add(part["toolCall"]["id"])
            if "toolResponse" in part:
                assert content["role"] == "model", "a toolResponse part goes with its call"
                assert part["toolResponse"]["id"] in called, "a toolResponse without its toolCall"
