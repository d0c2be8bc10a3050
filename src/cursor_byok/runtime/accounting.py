"""Usage and budgets around every model call.

Before a call is made (`admit`, on the path every model call takes: a
turn's calls, a compaction's summary, a resumed or adopted call), a user
with a budget has the call's most possible cost reserved in the store, if
what they spent this period and what their other calls in flight hold is
below the budget; otherwise the call is not made and ends with an error
that names the budget, the spend and the reset. The most possible cost is
the model's context window at its dearest prompt rate plus its output limit
at the output rate: an upper bound, so concurrent calls can never add up to
more than one call past the budget.

When a call ends, what it used (from the response, priced by the adapter)
is recorded with the commit of its end (`ended`: its usage and a row per
attempt, then `Store.commit_input`), which also settles its reservation;
`landed` counts it in /metrics once that commit is in.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from cursor_byok.llm.events import DoneEvent, ErrorEvent
from cursor_byok.llm.models import Price
from cursor_byok.llm.notice import BUDGET, BUDGET_UNCHECKED, SERVER, server_error
from cursor_byok.loop.commands import Transition
from cursor_byok.loop.inputs import Input, LLMEvent
from cursor_byok.loop.records import CallEnded, Record
from cursor_byok.loop.state import ConversationState
from cursor_byok.runtime.call_log import Attempt, CallEnd, attempt_rows
from cursor_byok.runtime.observe import Metrics, logfmt
from cursor_byok.runtime.records import ThreadIO
from cursor_byok.store.base import Store, User
from cursor_byok.store.call_rows import ModelCallRow
from cursor_byok.store.owners import owner_of
from cursor_byok.store.periods import DEFAULT_PERIOD, day_of, period_end
from cursor_byok.store.usage import BudgetCheck, CallUsage

log = logging.getLogger(__name__)

RESERVATION_TTL_S = 3600.0
"""How long a call's reservation holds unless renewed: a process that died
mid-call leaves one behind, which stops counting after this (a call resumed
elsewhere takes it back first). A call still running renews its own every
half of this, so however long it runs its hold stays."""
USER_TTL_S = 10.0
"""How long a process trusts what it read of a user (whether they have a
budget; the budget itself is read fresh with every reservation)."""
MAX_CALLS = 10_000
"""Calls remembered between their start and their recorded end, at most."""


@dataclass(frozen=True, slots=True)
class ModelTerms:
    """What a requested model name is served by, for accounting: the
    configured model (usage is kept under its name), its price (None: none
    known), and its limits, which bound what one call can cost."""

    model: str
    price: Price | None
    context_window: int
    max_output: int

    def most_cost_usd(self) -> float:
        """The most one call can cost: a full window at the dearest prompt
        rate and the whole output limit (thinking counts inside it)."""
        if self.price is None:
            return 0.0
        prompt = self.context_window * self.price.dearest_prompt
        return (prompt + self.max_output * self.price.output) / 1e6


Pricing = Callable[[str], ModelTerms | None]
"""The terms of a requested model name (the configuration's router says);
None where no model serves it."""


@dataclass(slots=True)
class _Call:
    user: int
    model: str
    ttft_ms: int | None = None
    duration_ms: int = 0
    renewal: asyncio.TimerHandle | None = None
    started_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    """When the attempt being read started (wall clock, for its row)."""
    retried: list[Attempt] = field(default_factory=list)
    """The attempts that failed and were retried, for their rows."""


class Accounting:
    """The budget check before each call and the usage record after it."""

    def __init__(
        self,
        store: Store,
        io: ThreadIO,
        pricing: Pricing | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._store = store
        self._io = io
        self._pricing = pricing
        self._metrics = metrics
        self._users: dict[int, tuple[float, User | None]] = {}
        self._calls: dict[str, _Call] = {}
        self._releasing: dict[str, asyncio.Future[None]] = {}
        """Releases under way: a call admitted again waits for its own first."""

    async def admit(self, conversation_id: str, call_id: str, model: str) -> ErrorEvent | None:
        """None: make the call. Otherwise the error that ends it unmade: its
        user's budget is used up (or could not be checked)."""
        terms = self._pricing(model) if self._pricing is not None else None
        user_id = owner_of(conversation_id)
        self._remember(call_id, _Call(user_id, terms.model if terms else model))
        try:
            user = await self._user(user_id)
            if user is None or user.budget_usd is None:
                return None
            if (releasing := self._releasing.get(call_id)) is not None:
                await asyncio.wait({releasing})  # never drop the hold made next
            now_ms = int(time.time() * 1000)
            amount = terms.most_cost_usd() if terms else 0.0
            expires = now_ms + int(RESERVATION_TTL_S * 1000)
            reserve = self._store.reserve_budget
            check = await self._io(reserve, call_id, user_id, amount, now_ms, expires)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 (a budget not checked is not spent blind)
            log.warning("call %s: the budget check failed: %s", call_id, error)
            text = f"the budget could not be checked: {error}"
            return ErrorEvent("error", server_error(BUDGET_UNCHECKED, text))
        if check.admitted:
            self._renew_later(call_id)
            return None
        log.info(
            logfmt(
                "budget_refused",
                user=user.name,
                call_id=call_id,
                budget_usd=check.budget_usd,
                spent_usd=round(check.spent_usd, 6),
                held_usd=round(check.held_usd, 6),
            )
        )
        if self._metrics is not None:
            self._metrics.users.refusal(user_id, user.name)
        return ErrorEvent("error", server_error(BUDGET, refusal_text(user.name, check, now_ms)))

    def timed(self, call_id: str, ttft_ms: int | None, duration_ms: int) -> None:
        """The call's last attempt took this long (its reader says, at its end)."""
        call = self._calls.get(call_id)
        if call is not None:
            call.ttft_ms, call.duration_ms = ttft_ms, duration_ms

    def retried(self, call_id: str, ttft_ms: int | None, duration_ms: int, error: str) -> None:
        """The call's attempt failed and another starts now (its reader says)."""
        call = self._calls.get(call_id)
        if call is not None:
            call.retried.append(Attempt(call.started_ms, ttft_ms, duration_ms, error))
            call.started_ms = int(time.time() * 1000)

    def ended(self, conversation_id: str, input_: Input, step: Transition) -> CallEnd:
        """What the commit of `step` records of the call it ends, if any."""
        rows = self.attempts_of(input_, step.records, step.state.committed)
        return CallEnd(self.usage_of(conversation_id, input_, step.records), rows)

    def attempts_of(
        self, input_: Input, records: Sequence[Record], state: ConversationState
    ) -> tuple[ModelCallRow, ...]:
        """The rows of the attempts of the calls `records` end, to write with
        that end (`store.call_rows`); none for a call never made (a budget's
        refusal, a server's notice)."""
        rows: list[ModelCallRow] = []
        for record in records:
            if isinstance(record, CallEnded):
                call = self._calls.get(record.call_id)
                if call is not None:
                    rows += attempt_rows(
                        record,
                        input_,
                        state,
                        (call.user, call.model),
                        call.started_ms,
                        (call.ttft_ms, call.duration_ms),
                        call.retried,
                    )
        return tuple(rows)

    def usage_of(
        self, conversation_id: str, input_: Input, records: Sequence[Record]
    ) -> CallUsage | None:
        """What the call `input_` ends used, to record with that end; None
        for an input that ends no call, or a call no provider answered."""
        if not isinstance(input_, LLMEvent) or not isinstance(input_.event, DoneEvent | ErrorEvent):
            return None
        call_id = input_.call_id
        if not any(isinstance(r, CallEnded) and r.call_id == call_id for r in records):
            return None
        message = input_.event.message
        if message.provider in ("", SERVER):  # refused, a notice, a local failure
            self._forget(call_id)
            return None
        call = self._calls.get(call_id) or _Call(owner_of(conversation_id), message.model)
        usage = message.usage
        return CallUsage(
            call_id=call_id,
            user_id=call.user,
            model=call.model,
            day=day_of(int(time.time() * 1000)),
            input=usage.input,
            output=usage.output,
            cache_read=usage.cache_read,
            cache_write=usage.cache_write,
            reasoning=usage.reasoning,
            cost_usd=usage.cost.total if usage.cost.priced else None,
            ttft_ms=call.ttft_ms,
            duration_ms=call.duration_ms,
        )

    def landed(self, ended: CallEnd) -> None:
        """A commit is in: if it ended a call, count its usage in /metrics."""
        for row in ended.attempts:
            self._forget(row.call_id)
        usage = ended.usage
        if usage is None:
            return
        self._forget(usage.call_id)
        if self._metrics is not None:
            cached = self._users.get(usage.user_id)
            user = cached[1] if cached is not None else None
            self._metrics.users.recorded(usage, user.name if user is not None else None)

    def release(self, call_id: str) -> None:
        """The call will not be made after all (the commit that planned it
        did not land): give back what it holds, in the background (if that
        fails, the reservation expires)."""
        self._forget(call_id)
        task = asyncio.ensure_future(self._io(self._store.release_budget, call_id))
        task.add_done_callback(_logged)
        self._releasing[call_id] = task
        task.add_done_callback(partial(self._released, call_id))

    def _released(self, call_id: str, done: asyncio.Future[None]) -> None:
        if self._releasing.get(call_id) is done:
            del self._releasing[call_id]

    def _renew_later(self, call_id: str) -> None:
        """Keep a running call's reservation from expiring (`RESERVATION_TTL_S`)."""
        call = self._calls.get(call_id)
        if call is not None:
            loop = asyncio.get_running_loop()
            call.renewal = loop.call_later(RESERVATION_TTL_S / 2, self._renew, call_id)

    def _renew(self, call_id: str) -> None:
        expires = int((time.time() + RESERVATION_TTL_S) * 1000)
        task = asyncio.ensure_future(self._io(self._store.renew_budget, call_id, expires))
        task.add_done_callback(_logged)
        self._renew_later(call_id)

    def _forget(self, call_id: str) -> None:
        call = self._calls.pop(call_id, None)
        if call is not None and call.renewal is not None:
            call.renewal.cancel()

    async def _user(self, user_id: int) -> User | None:
        now = time.monotonic()
        cached = self._users.get(user_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        user = await self._io(self._store.user_by_id, user_id)
        self._users[user_id] = (now + USER_TTL_S, user)
        return user

    def _remember(self, call_id: str, call: _Call) -> None:
        self._forget(call_id)  # admitted again (a resumed call): one renewal
        if len(self._calls) >= MAX_CALLS:  # ends that never came (a crash of their commit)
            self._forget(next(iter(self._calls)))
        self._calls[call_id] = call


def refusal_text(name: str, check: BudgetCheck, now_ms: int) -> str:
    """What the user reads: the budget, what was spent, when it resets."""
    period = check.period or DEFAULT_PERIOD
    reset = period_end(period, now_ms)
    every = {"day": "daily", "week": "weekly", "month": "monthly"}[period]
    held = (
        f" (and ${check.held_usd:,.2f} is held for calls in flight)" if check.held_usd > 0 else ""
    )
    return (
        f"The {every} budget of user {name}, ${check.budget_usd or 0:,.2f}, is used up: "
        f"${check.spent_usd:,.2f} spent since {check.since_day} 00:00 UTC{held}. No model "
        f"call is made until it resets at {reset:%Y-%m-%d %H:%M} UTC."
    )


def _logged(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("a budget reservation was not updated (it expires): %s", done.exception())
