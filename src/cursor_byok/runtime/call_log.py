"""The rows of a model call's attempts (`store.call_rows`), made when the
call ends, from what its reader timed and the event that ended it.

A call retried after a failure has a row per attempt: each failed one
`retried`, the last `ok`, `error` or `canceled`. A call stopped by a cancel
(before its stream said how much it used) has its tokens as zero and its
cost unknown, and no time to first token.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from cursor_byok.llm.events import DoneEvent, ErrorEvent
from cursor_byok.llm.notice import SERVER
from cursor_byok.loop.inputs import Input, LLMEvent
from cursor_byok.loop.records import CallEnded
from cursor_byok.loop.state import ConversationState
from cursor_byok.store.call_rows import CallOutcome, ModelCallRow
from cursor_byok.store.usage import CallUsage

_OUTCOMES: dict[str, CallOutcome] = {"committed": "ok", "failed": "error", "canceled": "canceled"}


@dataclass(frozen=True, slots=True)
class CallEnd:
    """What a commit records of the call it ends (`runtime.accounting`):
    the usage to add to its user's day, and a row per attempt."""

    usage: CallUsage | None = None
    attempts: tuple[ModelCallRow, ...] = ()


@dataclass(frozen=True, slots=True)
class Attempt:
    """A failed attempt that was retried: when it started, how long it took."""

    started_ms: int
    ttft_ms: int | None
    duration_ms: int
    error: str


def attempt_rows(
    ended: CallEnded,
    input_: Input,
    state: ConversationState,
    whose: tuple[int, str],
    started_ms: int,
    timed: tuple[int | None, int],
    retried: Sequence[Attempt],
) -> list[ModelCallRow]:
    """The rows of the call `ended` ends: `whose` is its (user, model), the
    last attempt started at `started_ms` and took `timed` (ttft, duration) as
    its reader measured; `state` is the conversation after its end."""
    user, model = whose
    event = _end_event(input_, ended.call_id)
    if event is not None and event.message.provider == SERVER and not retried:
        return []  # never sent: a budget's refusal or a server's notice
    step = len(state.messages) - (1 if ended.assistant is not None else 0)
    base = ModelCallRow(
        ended.call_id, 0, state.conversation_id, state.turn_id, step, model, user, 0, None, 0
    )
    rows = [
        _with(
            base,
            number,
            attempt.started_ms,
            attempt.ttft_ms,
            attempt.duration_ms,
            "retried",
            attempt.error,
        )
        for number, attempt in enumerate(retried, 1)
    ]
    last = len(retried) + 1
    outcome = _OUTCOMES[ended.outcome]
    if event is None:  # ended by a cancel: its stream's usage never came
        duration = max(0, int(time.time() * 1000) - started_ms)
        rows.append(_with(base, last, started_ms, None, duration, outcome, ended.error))
        return rows
    usage = event.message.usage
    ttft, duration = timed
    row = _with(base, last, started_ms, ttft, duration, outcome, ended.error)
    rows.append(
        replace(
            row,
            input=usage.input,
            output=usage.output,
            cache_read=usage.cache_read,
            cache_write=usage.cache_write,
            reasoning=usage.reasoning,
            cost_usd=usage.cost.total if usage.cost.priced else None,
        )
    )
    return rows


def _end_event(input_: Input, call_id: str) -> DoneEvent | ErrorEvent | None:
    """The event that ended the call, when `input_` carries it (a cancel
    ends a call without one)."""
    if isinstance(input_, LLMEvent) and input_.call_id == call_id:
        event = input_.event
        if isinstance(event, DoneEvent | ErrorEvent):
            return event
    return None


def _with(
    base: ModelCallRow,
    attempt: int,
    started_ms: int,
    ttft_ms: int | None,
    duration_ms: int,
    outcome: CallOutcome,
    error: str | None = None,
) -> ModelCallRow:
    return replace(
        base,
        attempt=attempt,
        started_at_ms=started_ms,
        ttft_ms=ttft_ms,
        duration_ms=duration_ms,
        outcome=outcome,
        error=error,
    )
