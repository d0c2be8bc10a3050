"""A refusal or a content filter is an answer, not an outage: the stream ends
with `done` and a note, so the turn ends normally (the protocol notes: an
error end makes Cursor drop the turn's partial UI). The note is streamed but
is not part of the final message: the server wrote it, not the model."""

from __future__ import annotations

import json
from collections.abc import Mapping

from cursor_byok.llm.events import DoneEvent, TextDelta
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.providers.gemini import GeminiLLM
from cursor_byok.llm.providers.openai_chat import OpenAIChatLLM
from cursor_byok.llm.types import RequestMessages, TextContent, UserMessage
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.streams import check_grammar, collect

REQUEST = RequestMessages(None, (UserMessage("hi", 1),))


def sse(*events: tuple[str | None, Mapping[str, object]]) -> bytes:
    out = b""
    for name, data in events:
        if name:
            out += f"event: {name}\n".encode()
        out += b"data: " + json.dumps(data).encode() + b"\n\n"
    return out


async def run(server: LoopbackServer, llm: object, body: bytes) -> tuple[DoneEvent, str]:
    """The final event and the text the client was shown."""
    server.replies.append(Reply(body))
    events = await collect(await llm.call(CallContext("c"), REQUEST))  # type: ignore[attr-defined]
    await llm.aclose()  # type: ignore[attr-defined]
    check_grammar(events)
    done = events[-1]
    assert isinstance(done, DoneEvent), done
    return done, "".join(e.delta for e in events if isinstance(e, TextDelta))


async def test_an_anthropic_refusal_ends_normally_with_a_note(server: LoopbackServer) -> None:
    body = sse(
        ("message_start", {"type": "message_start", "message": {"id": "m", "usage": {}}}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "I can't"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "refusal"},
                "usage": {"output_tokens": 3},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    )
    llm = AnthropicLLM(ModelSpec("anthropic", "claude-x", server.base_url), "k")
    done, shown = await run(server, llm, body)
    assert done.reason == "stop"
    texts = [b.text for b in done.message.content if isinstance(b, TextContent)]
    assert texts == ["I can't"]
    assert shown.startswith("I can't") and "refusal" in shown


async def test_a_chat_content_filter_ends_normally_with_a_note(server: LoopbackServer) -> None:
    chunk = {
        "id": "x",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "content_filter"}],
    }
    body = sse((None, chunk)) + b"data: [DONE]\n\n"
    llm = OpenAIChatLLM(ModelSpec("openai", "gpt-x", server.base_url), "k")
    done, shown = await run(server, llm, body)
    assert done.reason == "stop" and "content_filter" in shown
    assert done.message.content == ()


async def test_a_gemini_safety_stop_ends_normally_with_a_note(server: LoopbackServer) -> None:
    chunk = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Par"}]},
                "finishReason": "SAFETY",
                "index": 0,
            }
        ]
    }
    llm = GeminiLLM(ModelSpec("google", "gemini-x", server.base_url), "k")
    done, shown = await run(server, llm, sse((None, chunk)))
    assert done.reason == "stop" and done.message.text == "Par"
    assert "SAFETY" in shown
