"""A client's transcript as each provider API receives it, through the whole
server (router, real adapter, store) against a loopback provider: the
requests pass the API's rules, the transcript's reasoning is replayed to the
model that serves it with its signatures, and the next request renders the
transcript the same way (its prefix cache hits)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import OfficialCli, user_message
from tests.e2e.provider_turns import ModelUnderTest, server_for
from tests.e2e.test_official_cli import clean
from tests.e2e.test_transcripts import CONTEXT, TRANSCRIPT, opening
from tests.llm import wire_streams as wire
from tests.llm.loopback import Reply
from tests.llm.provider_rules import check_request

Stream = Callable[[list[wire.Block]], bytes]
CASES: list[tuple[ModelUnderTest, Stream, str]] = [
    (ModelUnderTest("anthropic", "claude-sonnet-4-5", thinking="low"), wire.anthropic, "messages"),
    (ModelUnderTest("openai-chat", "gpt-4.1", vendor="openai"), wire.chat, "messages"),
    (ModelUnderTest("openai-responses", "gpt-5-mini"), wire.responses, "input"),
    (ModelUnderTest("gemini", "gemini-2.5-flash"), wire.gemini, "contents"),
]


def without_cache_marks(value: Any) -> Any:
    """Anthropic's cache breakpoints move to the newest message on each call."""
    if isinstance(value, dict):
        return {k: without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_marks(v) for v in value]
    return value


@pytest.mark.parametrize(("model", "stream", "key"), CASES, ids=[c[0].api for c in CASES])
async def test_each_api_gets_the_transcript_and_the_next_request_renders_it_the_same(
    tmp_path: Path, model: ModelUnderTest, stream: Stream, key: str
) -> None:
    replies = [Reply(stream([wire.Text("Done.")])), Reply(stream([wire.Text("Sure.")]))]
    async with server_for(model, replies, tmp_path) as server:
        cli = OfficialCli(server.url, "proto", server.workspace, CONTEXT)
        try:
            clean(await cli.run(opening("Now make it print bye.", *TRANSCRIPT), "m"))
            clean(await cli.run(user_message("Thanks.", CONTEXT), "m"))
        finally:
            await cli.close()
        received = server.provider.received
    first = check_request(model.api, received[0].body, model.model)
    second = check_request(model.api, received[1].body, model.model)
    sent = json.dumps(first[key])
    for part in ("What does main.py print?", "call-1", 'print(\\"hi\\")', "Now make it print bye."):
        assert part in sent, part
    shown = len(first[key]) - 1  # all but the user's message, which gets the newest marks
    assert without_cache_marks(second[key][:shown]) == without_cache_marks(first[key][:shown])
    if model.api == "anthropic":  # the serving model's own: replayed with their signatures
        turn = next(m for m in first["messages"] if m["role"] == "assistant")
        assert turn["content"][:2] == [
            {"type": "thinking", "thinking": "Read the file first.", "signature": "sig-1"},
            {"type": "redacted_thinking", "data": "opaque-2"},
        ]


def kinds_of(message: Any) -> set[str]:
    """The names of the one-of a transcript message type declares."""
    oneof = next(iter(message.DESCRIPTOR.oneofs))
    return {field.name for field in oneof.fields}


def test_the_transcript_above_uses_every_kind_the_protocol_declares() -> None:
    """So the cases above see each kind of message and content."""
    used = {m.WhichOneof("message") for m in TRANSCRIPT}
    said = {c.WhichOneof("content") for m in TRANSCRIPT for c in m.assistant.content}
    asked = {c.WhichOneof("content") for m in TRANSCRIPT for c in m.user.content}
    assert used == kinds_of(pb.ConversationHistoryMessage)
    assert said == kinds_of(pb.ConversationHistoryAssistantContent)
    assert asked == kinds_of(pb.ConversationHistoryUserContent)
