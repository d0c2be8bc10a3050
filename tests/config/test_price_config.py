"""A model's price in the configuration: it overrides the built-in table for
the model's cost and for what its calls may hold against a budget; it needs
input and output (a rate left out would count as free), and a cache rate
left out costs what input does."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursor_byok.config.reader import ConfigError
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.models import Price, price_of
from cursor_byok.runtime.accounting import ModelTerms

BASE = """\
[providers.a]
api = "anthropic"
base_url = "https://api.anthropic.com"
api_key = "sk-ant-planted-secret"

[models.sonnet]
provider = "a"
model = "claude-sonnet-4-6"
context_window = 200000
max_output = 32000
"""


def configured(tmp_path: Path, extra: str = "") -> Router:
    path = tmp_path / "config.toml"
    path.write_text(BASE + extra)
    return Router(load_config(path, env={}), env={})


def test_without_a_price_the_table_s_serves_and_bounds_a_call(tmp_path: Path) -> None:
    terms = configured(tmp_path).terms("sonnet")
    assert terms == ModelTerms("sonnet", price_of("claude-sonnet-4-6"), 200_000, 32_000)
    # a full window written to the cache, then the whole output
    assert terms.most_cost_usd() == pytest.approx(200_000 * 3.75e-6 + 32_000 * 15e-6)


def test_a_configured_price_overrides_the_table(tmp_path: Path) -> None:
    router = configured(tmp_path, "price = { input = 1, output = 2, cache_read = 0.1 }\n")
    terms = router.terms("sonnet")
    # cache writes were left out: they cost what input does
    assert terms is not None and terms.price == Price(1.0, 2.0, 0.1, 1.0)
    assert terms.most_cost_usd() == pytest.approx(200_000 * 1e-6 + 32_000 * 2e-6)
    # by its provider's id too, as a client may name it
    assert router.terms("claude-sonnet-4-6") == terms


def test_a_model_neither_the_table_nor_the_file_prices_has_no_price(tmp_path: Path) -> None:
    path = tmp_path / "local.toml"
    path.write_text(
        '[providers.l]\napi = "openai-chat"\nbase_url = "http://127.0.0.1:1/v1"\n'
        '[models.local]\nprovider = "l"\nmodel = "my-finetune"\n'
    )
    local = Router(load_config(path, env={}), env={}).terms("local")
    assert local is not None and local.price is None and local.most_cost_usd() == 0.0


@pytest.mark.parametrize(
    ("price", "error"),
    [
        ("{ input = 3 }", "output is required"),
        ("{ output = 15 }", "input is required"),
        ("{ input = -1, output = 1 }", "input must be a non-negative number"),
        ("{ input = 1, output = 1, batch = 1 }", "unknown price 'batch'"),
    ],
)
def test_a_price_missing_a_rate_is_refused_with_its_line(
    tmp_path: Path, price: str, error: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BASE + f"price = {price}\n")
    with pytest.raises(ConfigError, match=rf":11: models\.sonnet\.price: {error}"):
        load_config(path, env={})
