"""Golden output limits and thinking settings, per API and model family:
thinking counted inside the output limit, a budget or a level as the model
takes it, never both, and never above the model's cap."""

from __future__ import annotations

import json

import pytest

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.types import RequestMessages, TextContent, ToolResultMessage, UserMessage
from tests.factories import tool_call
from tests.llm.conversation import reply
from tests.llm.provider_rules import check_request

REQUEST = RequestMessages(None, (UserMessage("hi"),))


def spec(model: str, max_tokens: int, **kw: object) -> ModelSpec:
    return ModelSpec("p", model, "http://x", max_tokens, **kw)  # type: ignore[arg-type]


def test_anthropic_budget_lies_inside_max_tokens() -> None:
    body = anthropic.build_request(spec("claude-sonnet-4-5", 32000, reasoning="medium"), REQUEST)
    assert body["max_tokens"] == 32000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}


def test_anthropic_budget_is_cut_to_leave_room_for_the_answer() -> None:
    body = anthropic.build_request(spec("claude-haiku-4-5", 4000, reasoning="high"), REQUEST)
    assert body["max_tokens"] == 4000
    assert 1024 <= body["thinking"]["budget_tokens"] < body["max_tokens"]


def test_anthropic_explicit_budget_never_reaches_max_tokens() -> None:
    body = anthropic.build_request(spec("claude-haiku-4-5", 2000, thinking_budget=5000), REQUEST)
    assert body["thinking"]["budget_tokens"] == 1999


def test_anthropic_leaves_thinking_out_when_no_budget_fits() -> None:
    body = anthropic.build_request(spec("claude-haiku-4-5", 1000, reasoning="low"), REQUEST)
    assert "thinking" not in body and body["max_tokens"] == 1000


def test_anthropic_max_tokens_never_exceeds_the_models_cap() -> None:
    body = anthropic.build_request(spec("claude-opus-4-1", 40192, reasoning="medium"), REQUEST)
    assert body["max_tokens"] == 32000
    assert body["thinking"]["budget_tokens"] < 32000


def test_anthropic_level_models_get_adaptive_thinking_and_an_effort() -> None:
    model = spec("claude-sonnet-4-6", 32000, reasoning="medium")
    body = anthropic.build_request(model, REQUEST)
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "medium"}
    assert "anthropic-beta" not in AnthropicLLM(model, "k").headers()
    budgeted = AnthropicLLM(spec("claude-sonnet-4-5", 32000, reasoning="low"), "k")
    assert budgeted.headers()["anthropic-beta"] == "interleaved-thinking-2025-05-14"


def test_anthropic_models_without_thinking_get_none() -> None:
    body = anthropic.build_request(spec("claude-3-5-haiku-latest", 8192, reasoning="high"), REQUEST)
    assert "thinking" not in body and "output_config" not in body


@pytest.mark.parametrize(
    ("model", "reasoning", "expected"),
    [
        ("gemini-3-pro-preview", "high", {"thinkingLevel": "high"}),
        ("gemini-3-flash-preview", "minimal", {"thinkingLevel": "minimal"}),
        ("gemini-3.5-flash", "medium", {"thinkingLevel": "medium"}),
        ("gemini-2.5-flash", "medium", {"thinkingBudget": 8192}),
        ("gemini-2.5-pro", "high", {"thinkingBudget": 16384}),
    ],
)
def test_gemini_takes_a_level_or_a_budget_by_model(
    model: str, reasoning: str, expected: dict[str, object]
) -> None:
    body = gemini.build_request(spec(model, 60000, reasoning=reasoning), REQUEST)
    config = body["generationConfig"]
    assert config["maxOutputTokens"] == 60000
    assert config["thinkingConfig"] == {"includeThoughts": True, **expected}


def test_gemini_never_sends_a_level_the_model_does_not_take_or_a_budget_to_gemini_3() -> None:
    pro = gemini.build_request(spec("gemini-3-pro-preview", 8000, reasoning="minimal"), REQUEST)
    assert "thinkingConfig" not in pro["generationConfig"]
    budget = gemini.build_request(spec("gemini-3-pro-preview", 8000, thinking_budget=2048), REQUEST)
    assert "thinkingBudget" not in str(budget)
    old = gemini.build_request(spec("gemini-2.0-flash", 50000, reasoning="high"), REQUEST)
    assert old["generationConfig"] == {"maxOutputTokens": 8192}


def test_openai_models_without_reasoning_get_no_effort_and_a_capped_limit() -> None:
    chat = openai_chat.build_request(
        ModelSpec("openai", "gpt-4o", "u", 50000, reasoning="high"), REQUEST
    )
    assert "reasoning_effort" not in chat and chat["max_completion_tokens"] == 16384
    responses = openai_responses.build_request(spec("gpt-4.1", 50000, reasoning="low"), REQUEST)
    assert "reasoning" not in responses and responses["max_output_tokens"] == 32768


def test_openai_reasoning_models_get_an_effort_they_take() -> None:
    body = openai_responses.build_request(spec("gpt-5-mini", 20000, reasoning="minimal"), REQUEST)
    assert body["reasoning"] == {"effort": "minimal", "summary": "auto"}
    o3 = openai_responses.build_request(spec("o3", 20000, reasoning="xhigh"), REQUEST)
    assert o3["reasoning"]["effort"] == "high"


def test_anthropic_answers_a_tool_loop_begun_without_thinking_without_thinking() -> None:
    """The calls came from another model: their assistant message cannot start
    with a thinking block, which Anthropic requires while thinking is on."""
    other = reply("openai-responses", "openai", "gpt-5", TextContent("Reading."), tool_call("c1"))
    history = (
        UserMessage("read"),
        other,
        ToolResultMessage("c1", "read_file", (TextContent("x"),)),
    )
    model = spec("claude-sonnet-4-5", 16000, reasoning="low")
    body = anthropic.build_request(model, RequestMessages(None, history))
    assert "thinking" not in body
    check_request("anthropic", json.dumps(body).encode())
    later = (
        *history,
        reply(anthropic.API, "p", "claude-sonnet-4-5", TextContent("ok")),
        UserMessage("next"),
    )
    assert "thinking" in anthropic.build_request(model, RequestMessages(None, later))


def test_a_model_behind_another_api_takes_thinking_the_way_that_api_does() -> None:
    """Claude through OpenRouter's chat API: Claude's cap, OpenRouter's effort."""
    routed = ModelSpec("openrouter", "anthropic/claude-opus-4-1", "u", 50000, reasoning="high")
    body = openai_chat.build_request(routed, REQUEST)
    assert body["reasoning"] == {"effort": "high"}
    assert body["max_tokens"] == 32000
