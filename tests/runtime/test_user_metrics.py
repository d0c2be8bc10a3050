"""Per-user counters in /metrics stay bounded: the first users a process
sees have a label of their own, every later one counts as `other`."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from cursor_byok.runtime.user_metrics import UserCounters
from cursor_byok.store.usage import CallUsage


def call(user_id: int, cost: float | None = 0.25) -> CallUsage:
    return CallUsage(f"call-{user_id}", user_id, "m", "2026-12-06", 10, 5, cost_usd=cost)


def test_past_the_cap_users_share_one_label_and_the_series_stay_bounded() -> None:
    registry = CollectorRegistry()
    counters = UserCounters(registry, cap=3)
    for user_id in range(1, 501):
        counters.recorded(call(user_id), f"user-{user_id}")
    counters.refusal(900, "late")
    scraped = generate_latest(registry).decode()
    labels = {
        line.split('user="')[1].split('"')[0]
        for line in scraped.splitlines()
        if line.startswith("cursor_byok_user_calls_total{")
    }
    assert labels == {"user-1", "user-2", "user-3", "other"}
    assert 'cursor_byok_user_calls_total{user="other"} 497.0' in scraped
    assert 'cursor_byok_user_budget_refusals_total{user="other"} 1.0' in scraped
    totals = [line for line in scraped.splitlines() if line.startswith("cursor_byok_user_")]
    totals = [line for line in totals if "_total{" in line]
    # per label: calls, input and output tokens, cost; and the one refusal
    assert len(totals) == 4 * 4 + 1


def test_a_labelled_user_keeps_their_label_and_an_unknown_cost_adds_no_dollars() -> None:
    registry = CollectorRegistry()
    counters = UserCounters(registry, cap=1)
    counters.recorded(call(7, cost=None), "ana")
    counters.recorded(call(7, cost=None), None)
    counters.recorded(call(8), "other")
    scraped = generate_latest(registry).decode()
    assert 'cursor_byok_user_calls_total{user="ana"} 2.0' in scraped
    assert 'cursor_byok_user_cost_usd_total{user="ana"}' not in scraped
    assert 'cursor_byok_user_calls_total{user="other"} 1.0' in scraped


def test_a_user_named_other_is_not_everyone_else() -> None:
    counters = UserCounters(CollectorRegistry(), cap=5)
    assert counters.label(4, "other") == "other 4"
