"""The price table and a call's cost: the known models and their dated
snapshots are priced, a release the table does not know is not (its cost
is unknown, never a zero shown as fact), and that survives storage."""

from __future__ import annotations

import json

import pytest

from cursor_byok.llm.models import PRICES, PRICES_CHECKED, Price, price_of, with_cost
from cursor_byok.llm.serialize import message_bytes, message_from_json
from cursor_byok.llm.types import AssistantMessage, TextContent, Usage

USAGE = Usage(input=1_000_000, output=100_000, cache_read=2_000_000, cache_write=10_000)


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-opus-4-7", "claude-opus-4-7"),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("openai/gpt-5.4-mini", "gpt-5.4-mini"),
        ("gemini-3-pro-preview", "gemini-3-pro"),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash-lite"),
        ("deepseek-reasoner", "deepseek-reasoner"),
    ],
)
def test_a_known_model_and_its_snapshots_have_its_price(model: str, key: str) -> None:
    assert price_of(model) is PRICES[key]


@pytest.mark.parametrize(
    "model", ["gpt-5.6", "claude-opus-4-9", "claude-sonnet-4.5", "llama-3.3-70b", "o3-pro"]
)
def test_a_release_the_table_does_not_know_has_no_price(model: str) -> None:
    """Not its elder's: `claude-opus-4-9` is not priced as `claude-opus-4`
    ($15, three times the newer Opus), `gpt-5.6` not as `gpt-5`."""
    assert price_of(model) is None


def test_the_table_says_when_it_was_checked() -> None:
    assert PRICES_CHECKED == "2026-12-06"
    assert price_of("claude-sonnet-4-6") == Price(3.0, 15.0, 0.30, 3.75)
    assert price_of("claude-opus-4-5") == Price(5.0, 25.0, 0.50, 6.25)
    assert price_of("gpt-5.5") == Price(5.0, 30.0, 0.50, 5.0)
    assert price_of("gemini-3.1-pro") == Price(2.0, 12.0, 0.20, 2.0)
    assert price_of("deepseek-v4-flash") == Price(0.14, 0.28, 0.0028, 0.14)


def test_a_cost_is_each_kind_of_token_at_its_rate() -> None:
    cost = with_cost(USAGE, "claude-sonnet-4-6").cost
    assert cost.priced
    assert (cost.input, cost.output, cost.cache_read, cost.cache_write) == pytest.approx(
        (3.0, 1.5, 0.6, 0.0375)
    )
    assert cost.total == pytest.approx(5.1375)


def test_a_configured_price_wins_over_the_table() -> None:
    cost = with_cost(USAGE, "claude-sonnet-4-6", Price(1.0, 2.0, 0.5, 1.0)).cost
    assert cost.total == pytest.approx(1.0 + 0.2 + 1.0 + 0.01)


def test_an_unpriced_cost_is_unknown_and_stays_so_once_stored() -> None:
    usage = with_cost(USAGE, "my-local-model")
    assert not usage.cost.priced and usage.cost.total == 0.0
    message = AssistantMessage((TextContent("hi"),), "openai-chat", "vllm", "m", usage=usage)
    stored = json.loads(message_bytes(message))
    assert stored["usage"]["cost"]["priced"] is False
    loaded = message_from_json(stored)
    assert isinstance(loaded, AssistantMessage) and not loaded.usage.cost.priced


def test_a_priced_message_is_stored_byte_for_byte_as_before() -> None:
    """Stored histories hash their messages: a priced one gains no field."""
    message = AssistantMessage((TextContent("hi"),), "anthropic", "anthropic", "m")
    assert b"priced" not in message_bytes(message)
