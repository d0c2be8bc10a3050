"""The retry policy: a provider's wait is honoured while it fits the budget;
one that does not fit ends the turn with a message saying when to retry."""

from __future__ import annotations

import calendar
import random

from cursor_byok.llm.events import ErrorEvent
from cursor_byok.runtime.model_call import RetryPolicy
from tests.factories import error_event


def limited(retry_after: float | None) -> ErrorEvent:
    message = error_event("Rate limit reached").message
    return ErrorEvent("error", message, 429, retryable=True, retry_after=retry_after)


def test_a_retry_after_that_fits_the_budget_is_waited_in_full() -> None:
    policy = RetryPolicy(max_delay=0.01, budget_s=30)
    assert policy.delay(1, 20.0, random.Random(1)) == 20.0
    assert policy.beyond_budget(limited(20.0), waited=5.0) is None
    assert policy.beyond_budget(limited(None), waited=100.0) is None


def test_a_retry_after_beyond_the_budget_says_who_asked_and_when_to_retry() -> None:
    now = calendar.timegm((2026, 1, 2, 10, 0, 0))
    ended = RetryPolicy(budget_s=30).beyond_budget(limited(60.0), waited=0.0, now=now)
    assert ended is not None and not ended.retryable and ended.status == 429
    provider = ended.message.provider
    assert ended.message.error_message == (
        f"{provider} asked to wait 60 s before another try (HTTP 429: Rate limit reached); "
        "that is more than the retry budget of 30 s, so the turn ended. "
        "Try again after 10:01:00 UTC."
    )
    # What was already waited counts against the budget.
    assert RetryPolicy(budget_s=30).beyond_budget(limited(20.0), waited=15.0) is not None
