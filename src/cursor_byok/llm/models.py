"""Prices per model, and the cost of one call's usage.

Prices are US dollars per million tokens. A model missing here costs 0: cost
is informational and must never block a call. Matching is by longest prefix
so dated snapshots (`gpt-4o-2024-08-06`) find their family's price.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cursor_byok.llm.types import Cost, Usage


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0


PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "o3-mini": Price(1.10, 4.40, 0.55),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "o3": Price(2.00, 8.00, 0.50),
    # Anthropic (cache write = 5-minute write, 1.25x input)
    "claude-haiku-4-5": Price(1.00, 5.00, 0.10, 1.25),
    "claude-sonnet-4": Price(3.00, 15.00, 0.30, 3.75),
    "claude-opus-4": Price(15.00, 75.00, 1.50, 18.75),
    "claude-opus-4-5": Price(5.00, 25.00, 0.50, 6.25),
    # Google
    "gemini-2.0-flash": Price(0.10, 0.40, 0.025),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.03),
    "gemini-2.5-pro": Price(1.25, 10.00, 0.125),
    "gemini-3-pro": Price(2.00, 12.00, 0.20),
    # DeepSeek
    "deepseek-chat": Price(0.28, 0.42, 0.028),
    "deepseek-reasoner": Price(0.28, 0.42, 0.028),
}

_BY_LENGTH = sorted(PRICES, key=len, reverse=True)


def price_of(model: str) -> Price | None:
    name = model.rsplit("/", 1)[-1]
    for prefix in _BY_LENGTH:
        if name.startswith(prefix):
            return PRICES[prefix]
    return None


def with_cost(usage: Usage, model: str, price: Price | None = None) -> Usage:
    """`usage` with `cost` filled from `price`, else the price table (zeros
    when the model is unknown)."""
    price = price if price is not None else price_of(model)
    if price is None:
        return usage
    per_token = 1e-6
    cost = Cost(
        input=usage.input * price.input * per_token,
        output=usage.output * price.output * per_token,
        cache_read=usage.cache_read * price.cache_read * per_token,
        cache_write=usage.cache_write * price.cache_write * per_token,
    )
    total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return replace(usage, cost=replace(cost, total=total))
