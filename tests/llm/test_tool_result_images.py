"""An image a tool returned reaches the model in each API's own form, sent
by the real adapter to the replay provider over a socket: inside Anthropic's
`tool_result`, as `input_image` in a Responses `function_call_output`, as a
user message right after the `tool` messages for Chat Completions (tool
messages are text only), inside `functionResponse.parts` for Gemini 3 and
in a user turn after the function responses before it. The request is
checked against each API's rules, and the rules are shown to catch each
wrong form."""

from __future__ import annotations

import base64
import functools
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from PIL import Image

from cursor_byok.llm.events import DoneEvent
from cursor_byok.llm.image_fit import tool_image
from cursor_byok.llm.images import MIB
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers import gemini, openai_chat
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.providers.gemini import GeminiLLM
from cursor_byok.llm.providers.openai_chat import OpenAIChatLLM
from cursor_byok.llm.providers.openai_responses import OpenAIResponsesLLM
from cursor_byok.llm.types import (
    ImageContent,
    Message,
    RequestMessages,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from tests import image_samples
from tests.factories import READ_TOOL, tool_call
from tests.llm import wire_streams as wire
from tests.llm.adapters import Adapter
from tests.llm.conversation import reply
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.provider_rules import check_request
from tests.llm.streams import collect
from tests.llm.test_image_fit import photo

PICTURE = image_samples.png(4, 4)
B64 = base64.b64encode(PICTURE).decode("ascii")
SAID = f"b.png: an image file of {len(PICTURE)} bytes"


def history(api: str, provider: str, model: str, picture: bytes = PICTURE) -> tuple[Message, ...]:
    """A read of a text file and of an image in one step, as the dialect
    records them: the image typed by its bytes."""
    calls = (tool_call("call_1", "a.txt"), tool_call("call_2", "b.png"))
    return (
        UserMessage("what do these show?", timestamp=1),
        reply(api, provider, model, TextContent("Reading."), *calls),
        ToolResultMessage("call_1", "read_file", (TextContent("hello"),), timestamp=2),
        ToolResultMessage(
            "call_2", "read_file", (TextContent(SAID), tool_image(picture)), timestamp=3
        ),
    )


@dataclass(frozen=True)
class Case:
    api: str
    """The configuration's API kind (what `check_request` takes)."""
    make: Callable[[str, str], Adapter]
    model: str
    stream: Callable[[list[wire.Block]], bytes]
    carried: Callable[[dict[str, Any]], list[tuple[str, ...]]]
    """What the request after the reads carries after the model's calls, in
    order: ("result", call id or output, text), ("image", mime, data), ("text", ...)."""

    def __str__(self) -> str:
        return f"{self.api}-{self.model}"


def anthropic_carried(body: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for block in body["messages"][-1]["content"]:
        content = block["content"]
        parts: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        out.append(("result", block["tool_use_id"], parts[0]["text"]))
        out.extend(
            ("image", p["source"]["media_type"], p["source"]["data"])
            for p in parts[1:]
            if p["type"] == "image"
        )
    return out


def chat_carried(body: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    roles = [m["role"] for m in body["messages"]]
    for message in body["messages"][roles.index("assistant") + 1 :]:
        if message["role"] == "tool":
            out.append(("result", message["tool_call_id"], message["content"]))
            continue
        for part in message["content"]:
            if part["type"] == "text":
                out.append(("text", part["text"]))
            else:
                head, _, data = part["image_url"]["url"].partition(",")
                out.append(("image", head.removeprefix("data:").removesuffix(";base64"), data))
    return out


def responses_carried(body: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for item in body["input"]:
        if item.get("type") != "function_call_output":
            continue
        output = item["output"]
        parts = [{"type": "input_text", "text": output}] if isinstance(output, str) else output
        out.append(("result", item["call_id"], parts[0]["text"]))
        for part in parts[1:]:
            head, _, data = part["image_url"].partition(",")
            out.append(("image", head.removeprefix("data:").removesuffix(";base64"), data))
    return out


def gemini_carried(body: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for content in body["contents"][2:]:
        for part in content["parts"]:
            if "functionResponse" in part:
                response = part["functionResponse"]
                out.append(("result", response["id"], response["response"]["output"]))
                out.extend(
                    ("image", p["inlineData"]["mimeType"], p["inlineData"]["data"])
                    for p in response.get("parts", [])
                )
            elif "inlineData" in part:
                out.append(("image", part["inlineData"]["mimeType"], part["inlineData"]["data"]))
            else:
                out.append(("text", part["text"]))
    return out


def _gemini_llm(model: str, url: str) -> Adapter:
    return GeminiLLM(ModelSpec("google", model, url + "/v1beta"), "g-key")


CASES = [
    Case(
        "anthropic",
        lambda model, url: AnthropicLLM(ModelSpec("anthropic", model, url), "sk-ant"),
        "claude-sonnet-4-5",
        wire.anthropic,
        anthropic_carried,
    ),
    Case(
        "openai-chat",
        lambda model, url: OpenAIChatLLM(ModelSpec("openai", model, url + "/v1"), "sk-test"),
        "gpt-4.1",
        wire.chat,
        chat_carried,
    ),
    Case(
        "openai-responses",
        lambda model, url: OpenAIResponsesLLM(ModelSpec("openai", model, url + "/v1"), "sk"),
        "gpt-5-mini",
        wire.responses,
        responses_carried,
    ),
    Case("gemini", _gemini_llm, "gemini-3-pro-preview", wire.gemini, gemini_carried),
    Case("gemini", _gemini_llm, "gemini-2.5-flash", wire.gemini, gemini_carried),
]

API_NAMES = {
    "anthropic": "anthropic-messages",
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "gemini": "google-generative-ai",
}

EXPECTED: dict[str, list[tuple[str, ...]]] = {
    "anthropic": [
        ("result", "call_1", "hello"),
        ("result", "call_2", SAID),
        ("image", "image/png", B64),
    ],
    "openai-chat": [
        ("result", "call_1", "hello"),
        ("result", "call_2", SAID),
        ("text", openai_chat.TOOL_IMAGES_NOTE),
        ("image", "image/png", B64),
    ],
    "openai-responses": [
        ("result", "call_1", "hello"),
        ("result", "call_2", SAID),
        ("image", "image/png", B64),
    ],
    "gemini-3-pro-preview": [
        ("result", "call_1", "hello"),
        ("result", "call_2", SAID),
        ("image", "image/png", B64),
    ],
    "gemini-2.5-flash": [
        ("result", "call_1", "hello"),
        ("result", "call_2", SAID),
        ("text", gemini.TOOL_IMAGES_NOTE),
        ("image", "image/png", B64),
    ],
}


async def _sent(server: LoopbackServer, case: Case, messages: tuple[Message, ...]) -> bytes:
    """The body the adapter sent for `messages`, once the answer was read."""
    server.replies = [Reply(case.stream([wire.Text("A grey square.")]))]
    adapter = case.make(case.model, server.base_url)
    try:
        stream = await adapter.call(
            CallContext(call_id="c", session_id=f"s-{case}"),
            RequestMessages("Be brief.", messages, (READ_TOOL,)),
        )
        events = await collect(stream)
    finally:
        await adapter.aclose()
    assert isinstance(events[-1], DoneEvent)
    return server.received[-1].body


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_each_api_gets_the_image_a_tool_returned_in_its_own_form(
    server: LoopbackServer, case: Case
) -> None:
    provider = "google" if case.api == "gemini" else case.api.split("-")[0]
    messages = history(API_NAMES[case.api], provider, case.model)
    raw = await _sent(server, case, messages)
    body = check_request(case.api, raw, case.model)
    assert case.carried(body) == EXPECTED.get(case.api, EXPECTED.get(case.model))
    # Sent again (a retry, or the next request's prefix), it renders byte for byte.
    assert await _sent(server, case, messages) == raw


BIG_PHOTO = functools.cache(lambda: photo(2400, 1600, "PNG"))


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_an_image_over_the_limits_is_sent_scaled_down(
    server: LoopbackServer, case: Case
) -> None:
    """A PNG of 2400x1600 pixels whose base64 is above Anthropic's 5 MB (and
    above its 2000 px in a request of many images) reaches every API scaled
    down and within its rules, never as a request the provider refuses;
    sent again, the same bytes."""
    big = BIG_PHOTO()
    assert len(base64.b64encode(big)) > 5 * MIB
    fitted = tool_image(big)
    assert isinstance(fitted, ImageContent)
    provider = "google" if case.api == "gemini" else case.api.split("-")[0]
    messages = history(API_NAMES[case.api], provider, case.model, big)
    raw = await _sent(server, case, messages)
    body = check_request(case.api, raw, case.model)
    [(_, mime, data)] = [c for c in case.carried(body) if c[0] == "image"]
    assert (mime, data) == (fitted.mime_type, fitted.data)
    assert Image.open(io.BytesIO(base64.b64decode(data))).size == (2000, 1333)
    assert await _sent(server, case, messages) == raw


async def test_a_gif_a_tool_returned_reaches_gemini_as_a_png(server: LoopbackServer) -> None:
    """Gemini takes PNG, JPEG and WebP: the GIF is stored as a PNG of its
    first frame when it enters the conversation, so every API takes it."""
    case = CASES[-1]
    raw = await _sent(
        server, case, history(API_NAMES[case.api], "google", case.model, image_samples.GIF)
    )
    body = check_request(case.api, raw, case.model)
    assert b"image/gif" not in raw
    [(_, mime, _data)] = [c for c in case.carried(body) if c[0] == "image"]
    assert mime == "image/png"


async def test_a_gif_stored_as_it_came_becomes_a_note_for_gemini(server: LoopbackServer) -> None:
    """A GIF kept as a GIF (history written before GIFs were converted)
    would fail the whole request: Gemini gets a note in its place."""
    case = CASES[-1]
    messages = history(API_NAMES[case.api], "google", case.model)
    gif = ImageContent(base64.b64encode(image_samples.GIF).decode("ascii"), "image/gif")
    last = messages[-1]
    assert isinstance(last, ToolResultMessage)
    messages = (*messages[:-1], replace(last, content=(TextContent(SAID), gif)))
    raw = await _sent(server, case, messages)
    body = check_request(case.api, raw, case.model)
    assert b"image/gif" not in raw
    assert "a GIF image, a type this model's API does not take" in json.dumps(body)


def test_bytes_that_are_no_image_become_a_note_in_the_result() -> None:
    note = tool_image(b"BM\x00\x00 a bitmap")
    assert isinstance(note, TextContent)
    assert note.text == (
        "[the tool returned an image that was left out: its 13 bytes are "
        "not a PNG, JPEG, GIF or WebP image]"
    )


# -- the rules catch the forms each API refuses ------------------------------------------


def _raises(api: str, body: dict[str, Any], model: str = "") -> str:
    with pytest.raises(AssertionError) as caught:
        check_request(api, json.dumps(body).encode(), model)
    return str(caught.value)


def test_the_rules_refuse_an_image_in_a_chat_tool_message() -> None:
    body = {
        "model": "gpt-4.1",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": "look"},
            {"role": "assistant", "tool_calls": [_chat_call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": [_image_url()]},
        ],
    }
    assert "a tool message carries text only" in _raises("openai-chat", body)


def test_the_rules_refuse_nested_images_before_gemini_3_and_gifs_anywhere() -> None:
    nested = {
        "generationConfig": {"maxOutputTokens": 100},
        "contents": [
            {"role": "user", "parts": [{"text": "look"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "read_file",
                            "response": {"output": "x"},
                            "parts": [{"inlineData": {"mimeType": "image/png", "data": B64}}],
                        }
                    }
                ],
            },
        ],
    }
    assert "from Gemini 3 on" in _raises("gemini", nested, "gemini-2.5-flash")
    check_request("gemini", json.dumps(nested).encode(), "gemini-3-pro-preview")
    gif = base64.b64encode(image_samples.GIF).decode()
    mixed = {
        "generationConfig": {"maxOutputTokens": 100},
        "contents": [
            {"role": "user", "parts": [{"inlineData": {"mimeType": "image/gif", "data": gif}}]}
        ],
    }
    assert "does not take: image/gif" in _raises("gemini", mixed, "gemini-2.5-flash")


def test_the_rules_refuse_images_mixed_into_a_gemini_function_response_turn() -> None:
    body = {
        "generationConfig": {"maxOutputTokens": 100},
        "contents": [
            {"role": "user", "parts": [{"text": "look"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "read_file", "response": {"output": "x"}}},
                    {"inlineData": {"mimeType": "image/png", "data": B64}},
                ],
            },
        ],
    }
    assert "holds only functionResponses" in _raises("gemini", body, "gemini-2.5-flash")


def test_the_rules_refuse_unknown_kinds_in_tool_outputs() -> None:
    anthropic = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "look"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c1", "name": "r", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "c1",
                        "content": [{"type": "image_url", "image_url": {"url": "x"}}],
                    }
                ],
            },
        ],
    }
    assert "tool_result content of kinds" in _raises("anthropic", anthropic)
    responses = {
        "model": "gpt-5-mini",
        "max_output_tokens": 100,
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "r", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [{"type": "image_url", "image_url": _data_url()}],
            },
        ],
    }
    assert "function_call_output items of kinds" in _raises("openai-responses", responses)


def _chat_call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "r", "arguments": "{}"}}


def _data_url() -> str:
    return f"data:image/png;base64,{B64}"


def _image_url() -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": _data_url()}}
