"""How request builders honour a `HistoryRepair`: what precedes it goes out
as plain text, what follows it as usual, and the marker itself never."""

from __future__ import annotations

import json

import pytest

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.serialize import message_from_json, message_to_json
from cursor_byok.llm.transform import IMAGE_LEFT_OUT, Target, prepare_history
from cursor_byok.llm.types import (
    AssistantMessage,
    HistoryRepair,
    ImageContent,
    Message,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import tool_call
from tests.llm.conversation import PNG, reply
from tests.llm.provider_rules import check_request

REPAIR = HistoryRepair("messages.1.content.0: invalid signature", timestamp=8)


def repaired(api: str, provider: str, model: str) -> tuple[Message, ...]:
    made = reply(
        api,
        provider,
        model,
        ThinkingContent("plan", "sig-bad"),
        TextContent("Reading."),
        tool_call("t|1", "a.txt"),
    )
    after = reply(api, provider, model, ThinkingContent("new plan", "sig-ok"), tool_call("t2"))
    return (
        UserMessage((TextContent("look"), ImageContent(PNG, "image/png")), timestamp=1),
        made,
        ToolResultMessage("t|1", "read_file", (TextContent("body"),), timestamp=3),
        REPAIR,
        UserMessage("try again", timestamp=9),
        after,
        ToolResultMessage("t2", "read_file", (TextContent("more"),), timestamp=10),
    )


def test_history_before_the_repair_is_plain_text_and_after_it_untouched() -> None:
    messages = repaired("x", "p", "m")
    out = prepare_history(messages, Target("x", "p", "m"))
    assert out[0] == UserMessage(f"look\n{IMAGE_LEFT_OUT}", timestamp=1)
    assert isinstance(out[1], AssistantMessage)
    assert out[1].content == (TextContent('Reading.\n[called read_file {"path": "a.txt"}]'),)
    assert out[2] == UserMessage("[result of read_file]\nbody", timestamp=3)
    assert out[3:] == list(messages[4:])
    assert not any(isinstance(m, HistoryRepair) for m in out)


def test_only_the_last_repair_counts_and_rendering_is_stable() -> None:
    messages = (*repaired("x", "p", "m"), REPAIR, UserMessage("again", timestamp=11))
    target = Target("x", "p", "m")
    out = prepare_history(messages, target)
    assert all(isinstance(m, UserMessage | AssistantMessage) for m in out)
    assert not any(
        isinstance(b, ToolCall) for m in out if isinstance(m, AssistantMessage) for b in m.content
    )
    assert prepare_history(messages, target) == out


def test_a_repair_survives_storage() -> None:
    assert message_from_json(message_to_json(REPAIR)) == REPAIR
    assert message_to_json(REPAIR) == {"role": "repair", "reason": REPAIR.reason, "timestamp": 8}


BUILDERS = [
    (
        "anthropic",
        anthropic.API,
        ModelSpec("anthropic", "claude-sonnet-4-5", "u", 8000, reasoning="low"),
        anthropic.build_request,
    ),
    (
        "openai-chat",
        openai_chat.API,
        ModelSpec("deepseek", "deepseek-reasoner", "u", 8000),
        openai_chat.build_request,
    ),
    (
        "openai-responses",
        openai_responses.API,
        ModelSpec("openai", "gpt-5-mini", "u", 8000, reasoning="low"),
        openai_responses.build_request,
    ),
    (
        "gemini",
        gemini.API,
        ModelSpec("google", "gemini-3-pro-preview", "u", 8000, reasoning="high"),
        gemini.build_request,
    ),
]


@pytest.mark.parametrize(("kind", "api", "spec", "build"), BUILDERS, ids=[b[0] for b in BUILDERS])
def test_every_api_renders_a_repaired_history_its_provider_accepts(
    kind: str, api: str, spec: ModelSpec, build: object
) -> None:
    request = RequestMessages("Be brief.", repaired(api, spec.provider, spec.model))
    assert callable(build)
    body = build(spec, request)
    raw = json.dumps(body).encode()
    check_request(kind, raw, spec.model)
    assert b"sig-bad" not in raw and b"t|1" not in raw and b"t_1" not in raw
    assert b"[called read_file" in raw and b"t2" in raw  # the call after it keeps its form
