"""Prices per model, and the cost of one call's usage.

Prices are US dollars per million tokens: input (not from a cache), output
(thinking included), cache read, cache write. A model missing here has no
price: its calls' cost is unknown (`Cost.priced` False), never a made-up 0;
`price = {...}` in a model's configuration section gives it one.

A table key names a model and its dated snapshots: `claude-sonnet-4-5` is
`claude-sonnet-4-5-20250929` too, and `gpt-4o` is `gpt-4o-2024-08-06`, but
`gpt-5` is not `gpt-5.6` and `claude-opus-4` is not `claude-opus-4-9`: a
release the table does not know has no price rather than its elder's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cursor_byok.llm.types import Cost, Usage


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0

    @property
    def dearest_prompt(self) -> float:
        """The most a prompt token can cost (read, written or neither)."""
        return max(self.input, self.cache_read, self.cache_write)


def _p(input_: float, output: float, cache_read: float, cache_write: float | None = None) -> Price:
    """A price whose cache writes cost what input does unless said."""
    return Price(input_, output, cache_read, input_ if cache_write is None else cache_write)


PRICES_CHECKED = "2026-12-06"
"""When the list prices below were last checked against the providers' pages.
Where a provider bills long prompts at a higher rate (Gemini Pro and GPT
above 200K-272K prompt tokens, Claude Haiku 5.5 above 100K), the table has
the base rate: configure `price` for a model used mostly that way."""

PRICES: dict[str, Price] = {
    # Anthropic (platform.claude.com/docs/en/about-claude/pricing): cache
    # write = the 5-minute write, 1.25x input.
    "claude-fable-5-1": _p(10.00, 50.00, 0.25, 12.50),
    "claude-fable-5": _p(10.00, 50.00, 1.00, 12.50),
    "claude-opus-5-5": _p(4.00, 20.00, 0.20, 5.00),
    "claude-opus-5": _p(5.00, 25.00, 0.50, 6.25),
    "claude-opus-4-8": _p(5.00, 25.00, 0.50, 6.25),
    "claude-opus-4-7": _p(5.00, 25.00, 0.50, 6.25),
    "claude-opus-4-6": _p(5.00, 25.00, 0.50, 6.25),
    "claude-opus-4-5": _p(5.00, 25.00, 0.50, 6.25),
    "claude-opus-4-1": _p(15.00, 75.00, 1.50, 18.75),
    "claude-opus-4": _p(15.00, 75.00, 1.50, 18.75),
    "claude-sonnet-5-5": _p(2.00, 10.00, 0.10, 2.50),
    "claude-sonnet-5": _p(2.00, 10.00, 0.20, 2.50),
    "claude-sonnet-4-6": _p(3.00, 15.00, 0.30, 3.75),
    "claude-sonnet-4-5": _p(3.00, 15.00, 0.30, 3.75),
    "claude-sonnet-4": _p(3.00, 15.00, 0.30, 3.75),
    "claude-3-7-sonnet": _p(3.00, 15.00, 0.30, 3.75),
    "claude-haiku-5-5": _p(0.10, 0.50, 0.01, 0.125),
    "claude-haiku-4-5": _p(1.00, 5.00, 0.10, 1.25),
    "claude-3-5-haiku": _p(0.80, 4.00, 0.08, 1.00),
    # OpenAI (developers.openai.com/api/docs/pricing, standard tier)
    "gpt-6.1-sol": _p(2.00, 10.00, 0.10, 2.50),
    "gpt-6.1-terra": _p(1.00, 5.00, 0.05, 1.25),
    "gpt-6-astra": _p(10.00, 50.00, 1.00, 12.50),
    "gpt-6-sol": _p(2.00, 10.00, 0.20, 2.50),
    "gpt-6-luna": _p(0.10, 0.50, 0.01, 0.125),
    "gpt-5.5-pro": _p(30.00, 180.00, 30.00),
    "gpt-5.5": _p(5.00, 30.00, 0.50),
    "gpt-5.4-pro": _p(30.00, 180.00, 30.00),
    "gpt-5.4-mini": _p(0.75, 4.50, 0.075),
    "gpt-5.4-nano": _p(0.20, 1.25, 0.02),
    "gpt-5.4": _p(2.50, 15.00, 0.25),
    "gpt-5.1": _p(1.25, 10.00, 0.125),
    "gpt-5-mini": _p(0.25, 2.00, 0.025),
    "gpt-5-nano": _p(0.05, 0.40, 0.005),
    "gpt-5": _p(1.25, 10.00, 0.125),
    "gpt-4.1-mini": _p(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _p(0.10, 0.40, 0.025),
    "gpt-4.1": _p(2.00, 8.00, 0.50),
    "gpt-4o-mini": _p(0.15, 0.60, 0.075),
    "gpt-4o": _p(2.50, 10.00, 1.25),
    "o4-mini": _p(1.10, 4.40, 0.275),
    "o3-mini": _p(1.10, 4.40, 0.55),
    "o3": _p(2.00, 8.00, 0.50),
    # Google (ai.google.dev/gemini-api/docs/pricing, prompts up to 200K);
    # cache read = the context-caching rate
    "gemini-3.5-flash": _p(1.50, 9.00, 0.15),
    "gemini-3.1-pro": _p(2.00, 12.00, 0.20),
    "gemini-3.1-flash-lite": _p(0.25, 1.50, 0.025),
    "gemini-3-pro": _p(2.00, 12.00, 0.20),
    "gemini-3-flash": _p(0.50, 3.00, 0.05),
    "gemini-2.5-pro": _p(1.25, 10.00, 0.125),
    "gemini-2.5-flash-lite": _p(0.10, 0.40, 0.01),
    "gemini-2.5-flash": _p(0.30, 2.50, 0.03),
    "gemini-2.0-flash": _p(0.10, 0.40, 0.025),
    # DeepSeek (api-docs.deepseek.com/quick_start/pricing): cache read =
    # cache hit, input = cache miss; deepseek-chat and deepseek-reasoner
    # were V4 Flash's names; V4 Pro at its regular rate (discounts come and go)
    "deepseek-v4-pro": _p(1.74, 3.48, 0.0145),
    "deepseek-v4-flash": _p(0.14, 0.28, 0.0028),
    "deepseek-chat": _p(0.14, 0.28, 0.0028),
    "deepseek-reasoner": _p(0.14, 0.28, 0.0028),
}

_SNAPSHOT = re.compile(r"(-\d{4}-?\d{2}-?\d{2}|-\d{4}|-latest|-preview[-.\w]*|-exp[-.\w]*)?")
"""What may follow a table key in a model id: a date (`-20250929`,
`-2024-08-06`, `-0125`), `-latest`, or a preview or experimental tag."""


def price_of(model: str) -> Price | None:
    """The table's price for a model id (a provider prefix such as
    `openai/` is dropped), or None when the table does not know it."""
    name = model.rsplit("/", 1)[-1].lower()
    found = PRICES.get(name)
    if found is not None:
        return found
    for key in sorted((k for k in PRICES if name.startswith(k)), key=len, reverse=True):
        if _SNAPSHOT.fullmatch(name[len(key) :]):
            return PRICES[key]
    return None


def with_cost(usage: Usage, model: str, price: Price | None = None) -> Usage:
    """`usage` with `cost` filled from `price`, else the price table; a model
    with neither is marked unpriced (its cost unknown, not zero)."""
    price = price if price is not None else price_of(model)
    if price is None:
        return replace(usage, cost=Cost(priced=False))
    per_token = 1e-6
    cost = Cost(
        input=usage.input * price.input * per_token,
        output=usage.output * price.output * per_token,
        cache_read=usage.cache_read * price.cache_read * per_token,
        cache_write=usage.cache_write * price.cache_write * per_token,
    )
    total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return replace(usage, cost=replace(cost, total=total))
