"""What each model accepts: output cap, context window, and how it takes a
thinking setting. One table, and one rule for fitting a request inside it.

Providers count thinking inside the output limit (Anthropic `max_tokens`,
OpenAI `max_output_tokens`, Gemini `maxOutputTokens`), so the output sent is
the configured `max_output`, never `max_output` plus a budget. Anthropic also
requires `1024 <= budget_tokens < max_tokens`; Gemini 2.5 models each have a
budget range; Gemini 3 and the newer Claude models take a level instead of a
budget, and each takes only some levels. A model missing here gets the
defaults of its API and the configured numbers are trusted.

Matching is by longest prefix of the model id (after any `vendor/` part), so
dated snapshots find their family.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

ThinkingStyle: TypeAlias = Literal["budget", "level", "none"]
"""budget: a token count; level: a named effort; none: no setting accepted."""

THINKING_STYLES: tuple[ThinkingStyle, ...] = ("budget", "level", "none")
LEVEL_ORDER = ("minimal", "low", "medium", "high", "xhigh", "max")
"""Effort names from least to most; `xhigh` in the configuration means the
most the model offers when the model has no level of that name."""

LEVEL_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
DEFAULT_MAX_OUTPUT = 16_000
DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True, slots=True)
class ModelLimits:
    """`output_cap` bounds the whole output, thinking included. For the
    budget style, a budget lies in [min_budget, max_budget]; for the level
    style, `levels` lists the accepted names (empty: any is passed on)."""

    output_cap: int | None
    context_window: int
    thinking: ThinkingStyle
    levels: tuple[str, ...] = ()
    min_budget: int = 1
    max_budget: int | None = None
    images: bool = True
    """Whether the model takes images; a text-only one gets a note for each."""


_CLAUDE = 200_000
_GEMINI = 1_048_576
_OPENAI_LEVELS = ("minimal", "low", "medium", "high")

LIMITS: dict[str, ModelLimits] = {
    # Anthropic: budgets from 1024; the 4.6 models and later take an effort level.
    "claude-3-haiku": ModelLimits(4096, _CLAUDE, "none"),
    "claude-3-5-haiku": ModelLimits(8192, _CLAUDE, "none"),
    "claude-3-5-sonnet": ModelLimits(8192, _CLAUDE, "none"),
    "claude-3-7-sonnet": ModelLimits(64_000, _CLAUDE, "budget", min_budget=1024),
    "claude-sonnet-4": ModelLimits(64_000, _CLAUDE, "budget", min_budget=1024),
    "claude-sonnet-4-5": ModelLimits(64_000, _CLAUDE, "budget", min_budget=1024),
    "claude-sonnet-4-6": ModelLimits(64_000, _CLAUDE, "level", ("low", "medium", "high")),
    "claude-haiku-4-5": ModelLimits(64_000, _CLAUDE, "budget", min_budget=1024),
    "claude-opus-4": ModelLimits(32_000, _CLAUDE, "budget", min_budget=1024),
    "claude-opus-4-5": ModelLimits(64_000, _CLAUDE, "budget", min_budget=1024),
    "claude-opus-4-6": ModelLimits(128_000, _CLAUDE, "level", ("low", "medium", "high", "max")),
    "claude-opus-4-7": ModelLimits(
        128_000, _CLAUDE, "level", ("low", "medium", "high", "xhigh", "max")
    ),
    # OpenAI: reasoning effort names; the older chat models take none.
    "gpt-4o": ModelLimits(16_384, 128_000, "none"),
    "gpt-4o-mini": ModelLimits(16_384, 128_000, "none"),
    "gpt-4.1": ModelLimits(32_768, 1_047_576, "none"),
    "gpt-5": ModelLimits(128_000, 400_000, "level", _OPENAI_LEVELS),
    "gpt-5.1": ModelLimits(128_000, 400_000, "level", ("low", "medium", "high")),
    "o3": ModelLimits(100_000, 200_000, "level", ("low", "medium", "high")),
    "o4-mini": ModelLimits(100_000, 200_000, "level", ("low", "medium", "high")),
    # Google: Gemini 2.5 takes a budget in a per-model range, Gemini 3 a level.
    "gemini-2.0-flash": ModelLimits(8192, _GEMINI, "none"),
    "gemini-2.5-pro": ModelLimits(65_536, _GEMINI, "budget", min_budget=128, max_budget=32_768),
    "gemini-2.5-flash": ModelLimits(65_536, _GEMINI, "budget", max_budget=24_576),
    "gemini-2.5-flash-lite": ModelLimits(
        65_536, _GEMINI, "budget", min_budget=512, max_budget=24_576
    ),
    "gemini-3": ModelLimits(65_536, _GEMINI, "level"),
    "gemini-3-pro": ModelLimits(65_536, _GEMINI, "level", ("low", "high")),
    "gemini-3.1-pro": ModelLimits(65_536, _GEMINI, "level", ("low", "medium", "high")),
    "gemini-3-flash": ModelLimits(65_536, _GEMINI, "level", _OPENAI_LEVELS),
    "gemini-3.5-flash": ModelLimits(65_536, _GEMINI, "level", _OPENAI_LEVELS),
    # DeepSeek: the reasoner always thinks; neither model takes a setting, nor images.
    "deepseek-chat": ModelLimits(8192, 128_000, "none", images=False),
    "deepseek-reasoner": ModelLimits(65_536, 128_000, "none", images=False),
}

_BY_LENGTH = sorted(LIMITS, key=len, reverse=True)

API_DEFAULTS: dict[str, ModelLimits] = {
    "anthropic": ModelLimits(None, DEFAULT_CONTEXT_WINDOW, "budget", min_budget=1024),
    "gemini": ModelLimits(None, DEFAULT_CONTEXT_WINDOW, "budget"),
    "openai-chat": ModelLimits(None, DEFAULT_CONTEXT_WINDOW, "level"),
    "openai-responses": ModelLimits(None, DEFAULT_CONTEXT_WINDOW, "level"),
}


def known_limits(model: str) -> ModelLimits | None:
    name = model.rsplit("/", 1)[-1]
    for prefix in _BY_LENGTH:
        if name.startswith(prefix):
            return LIMITS[prefix]
    return None


def _native_apis(model: str) -> tuple[str, ...]:
    name = model.rsplit("/", 1)[-1]
    if name.startswith("claude"):
        return ("anthropic",)
    if name.startswith("gemini"):
        return ("gemini",)
    return ("openai-chat", "openai-responses")


def limits_of(api: str, model: str) -> ModelLimits:
    """The table's entry, else the defaults of the API (nothing capped).

    Caps are the model's own wherever it is served; how it takes thinking is
    its own API's: behind another one (an OpenAI-compatible router serving a
    Claude model) the router's way applies."""
    default = API_DEFAULTS.get(api, API_DEFAULTS["openai-chat"])
    known = known_limits(model)
    if known is None:
        return default
    if api in _native_apis(model):
        return known
    return replace(
        default,
        output_cap=known.output_cap,
        context_window=known.context_window,
        images=known.images,
    )


# -- fitting a request -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThinkingPlan:
    """What a request carries: the output limit (thinking included) and at
    most one of a budget or a level."""

    max_output: int
    budget: int | None = None
    level: str | None = None


@dataclass(frozen=True, slots=True)
class LimitProblem:
    """Why no valid request can be made; `key` is the configuration key to change."""

    key: str
    message: str


def _level(limits: ModelLimits, model: str, level: str) -> str | LimitProblem:
    if not limits.levels or level in limits.levels:
        return level
    if level == "xhigh":
        return max(limits.levels, key=LEVEL_ORDER.index)
    return LimitProblem(
        "thinking",
        f"{model} takes the thinking levels {', '.join(limits.levels)} (got {level!r})",
    )


def _budget(
    limits: ModelLimits, model: str, max_output: int, level: str, budget: int | None
) -> int | LimitProblem:
    low, high = limits.min_budget, limits.max_budget
    if budget is not None:
        if budget < low or (high is not None and budget > high):
            span = f"{low} to {high}" if high is not None else f"at least {low}"
            return LimitProblem("thinking_budget", f"{model} takes a budget of {span}")
        if budget >= max_output:
            return LimitProblem(
                "thinking_budget",
                f"must be below max_output ({max_output}): thinking counts inside the output",
            )
        return budget
    # A budget derived from the level leaves at least half the output for the answer.
    derived = min(LEVEL_BUDGETS.get(level, LEVEL_BUDGETS["high"]), max_output // 2)
    if high is not None:
        derived = min(derived, high)
    if derived < low:
        return LimitProblem(
            "max_output",
            f"{max_output} leaves no room for thinking: {model} needs a budget of at least "
            f"{low} tokens, below max_output",
        )
    return derived


def plan_thinking(
    limits: ModelLimits,
    model: str,
    max_output: int,
    thinking: str,
    budget: int | None = None,
) -> ThinkingPlan | LimitProblem:
    """The one rule every request follows, or why the settings cannot be met.

    `thinking` is the configured level ("off" for none); `budget` an explicit
    budget in tokens."""
    if max_output <= 0:
        return LimitProblem("max_output", "must be positive")
    if limits.output_cap is not None and max_output > limits.output_cap:
        return LimitProblem(
            "max_output",
            f"{model} writes at most {limits.output_cap} output tokens, thinking included "
            f"(got {max_output}); lower max_output, or raise output_cap if the provider allows it",
        )
    if thinking == "off":
        if budget is not None:
            return LimitProblem("thinking_budget", 'needs thinking on (thinking is "off")')
        return ThinkingPlan(max_output)
    if limits.thinking == "none":
        return LimitProblem("thinking", f'{model} takes no thinking setting; use "off"')
    if limits.thinking == "level":
        if budget is not None:
            return LimitProblem("thinking_budget", f"{model} takes a thinking level, not a budget")
        level = _level(limits, model, thinking)
        return level if isinstance(level, LimitProblem) else ThinkingPlan(max_output, level=level)
    fitted = _budget(limits, model, max_output, thinking, budget)
    return fitted if isinstance(fitted, LimitProblem) else ThinkingPlan(max_output, budget=fitted)
