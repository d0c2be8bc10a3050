"""The model table's limits in the configuration: a model whose requests a
provider would reject is refused at start-up, naming the line and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursor_byok.config.reader import ConfigError
from cursor_byok.config.settings import ModelConfig, load_config
from cursor_byok.llm.limits import ThinkingPlan
from tests.cli.test_cli import cli

PROVIDERS = """\
[providers.a]
api = "anthropic"
base_url = "https://a"
[providers.g]
api = "gemini"
base_url = "https://g"
[providers.o]
api = "openai-responses"
base_url = "https://o"
"""


def load(tmp_path: Path, model: str) -> ModelConfig:
    path = tmp_path / "config.toml"
    path.write_text(PROVIDERS + "[models.m]\n" + model)
    return load_config(path, env={}).models["m"]


def refused(tmp_path: Path, model: str, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        load(tmp_path, model)


# Lines: the model table starts on line 10 ("[models.m]"); its keys follow.


def test_max_output_above_the_models_cap_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "a"\nmodel = "claude-opus-4-1"\nmax_output = 40192\n',
        r"config\.toml:13: models\.m\.max_output: claude-opus-4-1 writes at most 32000",
    )


def test_a_raised_output_cap_lets_a_larger_max_output_through(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        'provider = "a"\nmodel = "claude-opus-4-1"\nmax_output = 40000\noutput_cap = 40000\n',
    )
    assert loaded.max_output == 40000


def test_a_non_positive_output_cap_is_refused(tmp_path: Path) -> None:
    refused(tmp_path, 'provider = "a"\noutput_cap = 0\n', r":12: models\.m\.output_cap: must be")


def test_max_output_above_the_context_window_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "o"\ncontext_window = 1000\nmax_output = 2000\n',
        r":13: models\.m\.max_output: exceeds context_window",
    )


def test_thinking_on_a_model_that_takes_no_setting_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "o"\nmodel = "gpt-4o"\nthinking = "high"\n',
        r':13: models\.m\.thinking: gpt-4o takes no thinking setting; use "off"',
    )


def test_a_level_the_model_does_not_take_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "g"\nmodel = "gemini-3-pro-preview"\nthinking = "minimal"\n',
        r":13: models\.m\.thinking: gemini-3-pro-preview takes the thinking levels low, high",
    )


def test_a_budget_not_below_max_output_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "a"\nmodel = "claude-haiku-4-5"\nmax_output = 8000\nthinking = "high"\n'
        "thinking_budget = 8000\n",
        r":15: models\.m\.thinking_budget: must be below max_output \(8000\)",
    )


def test_a_budget_below_the_models_minimum_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "a"\nmodel = "claude-haiku-4-5"\nthinking = "low"\nthinking_budget = 512\n',
        r":14: models\.m\.thinking_budget: claude-haiku-4-5 takes a budget of at least 1024",
    )


def test_a_budget_above_the_models_range_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "g"\nmodel = "gemini-2.5-flash"\nmax_output = 60000\nthinking = "high"\n'
        "thinking_budget = 30000\n",
        r":15: models\.m\.thinking_budget: gemini-2\.5-flash takes a budget of 1 to 24576",
    )


def test_a_budget_for_a_model_that_takes_a_level_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "g"\nmodel = "gemini-3-flash"\nthinking = "low"\nthinking_budget = 2048\n',
        r":14: models\.m\.thinking_budget: gemini-3-flash takes a thinking level, not a budget",
    )


def test_a_budget_with_thinking_off_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "a"\nthinking_budget = 2048\n',
        r":12: models\.m\.thinking_budget: needs thinking on",
    )


def test_max_output_too_small_for_any_budget_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path,
        'provider = "a"\nmodel = "claude-sonnet-4-5"\nmax_output = 1500\nthinking = "high"\n',
        r":13: models\.m\.max_output: 1500 leaves no room for thinking",
    )


def test_an_unknown_thinking_style_is_refused(tmp_path: Path) -> None:
    refused(
        tmp_path, 'provider = "a"\nthinking_style = "auto"\n', r":12: models\.m\.thinking_style"
    )


def test_known_models_get_their_table_defaults(tmp_path: Path) -> None:
    model = load(tmp_path, 'provider = "a"\nmodel = "claude-3-5-haiku-20241022"\n')
    assert (model.max_output, model.context_window) == (8192, 200_000)
    gemini = load(tmp_path, 'provider = "g"\nmodel = "gemini-2.5-pro"\n')
    assert gemini.context_window == 1_048_576


def test_the_plan_counts_thinking_inside_max_output(tmp_path: Path) -> None:
    """The README's example: 32,000 with a medium level is sent as 32,000,
    with the budget inside it, never 32,000 + 8,192."""
    model = load(
        tmp_path,
        'provider = "a"\nmodel = "claude-sonnet-4-5"\nmax_output = 32000\nthinking = "medium"\n',
    )
    assert model.plan("anthropic") == ThinkingPlan(32000, budget=8192)
    small = load(
        tmp_path,
        'provider = "a"\nmodel = "claude-sonnet-4-5"\nmax_output = 4000\nthinking = "high"\n',
    )
    assert small.plan("anthropic") == ThinkingPlan(4000, budget=2000)


def test_a_style_override_lets_an_unknown_model_take_a_level(tmp_path: Path) -> None:
    model = load(
        tmp_path,
        'provider = "a"\nmodel = "claude-next"\nthinking_style = "level"\nthinking = "high"\n',
    )
    assert model.plan("anthropic") == ThinkingPlan(16000, level="high")


def test_xhigh_means_the_most_the_model_offers(tmp_path: Path) -> None:
    model = load(tmp_path, 'provider = "a"\nmodel = "claude-opus-4-6"\nthinking = "xhigh"\n')
    assert model.plan("anthropic") == ThinkingPlan(16000, level="max")


def test_serve_refuses_such_a_model_at_start_up(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        PROVIDERS + '[models.m]\nprovider = "a"\nmodel = "claude-opus-4-1"\nmax_output = 40192\n'
    )
    done = cli("--config", str(path), "serve", "--database", str(tmp_path / "db.sqlite3"))
    assert done.returncode == 2
    assert f"{path}:13: models.m.max_output: claude-opus-4-1 writes at most 32000" in done.stderr


def test_a_model_can_be_declared_text_only_or_image_taking(tmp_path: Path) -> None:
    """`images` overrides the model table: a text-only model gets a note
    for each image instead of a request its provider would refuse."""
    assert load(tmp_path, 'provider = "o"\nmodel = "gpt-4.1"\n').limits("openai-chat").images
    text_only = load(tmp_path, 'provider = "o"\nmodel = "gpt-4.1"\nimages = false\n')
    assert not text_only.limits("openai-chat").images
    reader = load(tmp_path, 'provider = "o"\nmodel = "deepseek-chat"\n')
    assert not reader.limits("openai-chat").images  # the table knows it
    told = load(tmp_path, 'provider = "o"\nmodel = "deepseek-chat"\nimages = true\n')
    assert told.limits("openai-chat").images
    refused(tmp_path, 'provider = "o"\nimages = "no"\n', r"models\.m\.images: expected")
