"""Per-user counters for /metrics: calls, tokens, cost and budget refusals.

A team may have many users, and every labelled user adds a series to each
counter (eight in all), for as long as the process lives. So the first
`MAX_USER_LABELS` users a process sees are labelled by name, and every
later one counts under `other`: a scrape stays bounded at about 800 series
however many users there are, and the store's usage (`cursor-byok usage`)
has every user exactly. Counters are per process; Prometheus sums them.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry
from prometheus_client import Counter as _Counter

from cursor_byok.store.usage import CallUsage

MAX_USER_LABELS = 100
OTHER = "other"
TOKEN_KINDS = ("input", "output", "cache_read", "cache_write", "reasoning")


class UserCounters:
    """The per-user counters, and which users have a label of their own."""

    def __init__(self, registry: CollectorRegistry, cap: int = MAX_USER_LABELS) -> None:
        self.cap = cap
        self._labels: dict[int, str] = {}
        self.calls = _Counter(
            "cursor_byok_user_calls",
            "Model calls recorded per user (the first users seen by name, the rest as other)",
            ["user"],
            registry=registry,
        )
        self.tokens = _Counter(
            "cursor_byok_user_tokens",
            "Tokens per user and kind (input, output, cache_read, cache_write, reasoning)",
            ["user", "kind"],
            registry=registry,
        )
        self.cost = _Counter(
            "cursor_byok_user_cost_usd",
            "Cost in US dollars per user, of the calls whose model has a price",
            ["user"],
            registry=registry,
        )
        self.refused = _Counter(
            "cursor_byok_user_budget_refusals",
            "Model calls not made because the user's budget was used up",
            ["user"],
            registry=registry,
        )

    def label(self, user_id: int, name: str | None) -> str:
        """The user's label: their name while there is room, else `other`."""
        known = self._labels.get(user_id)
        if known is not None:
            return known
        if len(self._labels) >= self.cap:
            return OTHER
        if not name or name == OTHER:  # a user named "other" is not everyone else
            name = f"{name or 'user'} {user_id}"
        self._labels[user_id] = name
        return name

    def recorded(self, usage: CallUsage, name: str | None) -> None:
        user = self.label(usage.user_id, name)
        self.calls.labels(user).inc()
        counts = (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.reasoning)
        for kind, count in zip(TOKEN_KINDS, counts, strict=True):
            if count:
                self.tokens.labels(user, kind).inc(count)
        if usage.cost_usd:
            self.cost.labels(user).inc(usage.cost_usd)

    def refusal(self, user_id: int, name: str | None) -> None:
        self.refused.labels(self.label(user_id, name)).inc()
