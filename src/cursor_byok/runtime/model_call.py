"""Reading one model call: attempts, retries, and a stream that misbehaves.

A call is retried with the identical request only while nothing of the
failed attempt was passed on (a `start` is not passed on: it shows nothing).
A provider that asks for a longer pause than the whole retry budget (a 429
with `retry-after: 600`) is not retried in vain: the call ends at once with
a message that says when to try again.
Whatever goes wrong (an adapter that raises, a stream that ends without a
terminal event) still ends the call with an error event, never a hang.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    PassesOn,
    ResponseEvent,
    ResponseStream,
    StartEvent,
)
from cursor_byok.llm.provider import CallContext, ModelRouter
from cursor_byok.llm.types import AssistantMessage, RequestMessages
from cursor_byok.runtime.accounting import Accounting
from cursor_byok.runtime.observe import CallWatch, Metrics
from cursor_byok.store.forks import root_of
from cursor_byok.store.owners import owner_of

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of one model call, only while nothing of the failed attempt
    reached the client: capped exponential backoff with full jitter. A
    provider's own `retry-after` is honoured in full while it fits in
    `budget_s`, the most one call waits in total across its retries."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    budget_s: float = 30.0

    def delay(self, attempt: int, hint: float | None, rng: random.Random) -> float:
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        wait = rng.uniform(0, ceiling)
        return max(wait, hint) if hint is not None else wait

    def beyond_budget(
        self, event: ErrorEvent, waited: float, now: float | None = None
    ) -> ErrorEvent | None:
        """The error that ends the call when the provider's wait does not fit
        in what is left of the budget; None when it fits (or none was asked)."""
        hint = event.retry_after
        if hint is None or waited + hint <= self.budget_s:
            return None
        when = time.gmtime((time.time() if now is None else now) + hint)
        provider = event.message.provider or "the provider"
        status = f"HTTP {event.status}: " if event.status is not None else ""
        text = (
            f"{provider} asked to wait {hint:g} s before another try ({status}"
            f"{event.message.error_message or 'no detail'}); that is more than the retry "
            f"budget of {self.budget_s:g} s, so the turn ended. "
            f"Try again after {time.strftime('%H:%M:%S', when)} UTC."
        )
        return replace(event, message=replace(event.message, error_message=text), retryable=False)


@dataclass(frozen=True, slots=True)
class ModelCall:
    conversation_id: str
    call_id: str
    model: str
    request: RequestMessages

    @property
    def user_id(self) -> int:
        """Whose turn it is: the conversation's key says (`store.owners`),
        so a turn resumed after a restart or on another process knows too."""
        return owner_of(self.conversation_id)


_TERMINAL = (DoneEvent, ErrorEvent)

PARTIAL_WAIT_S = 1.0
"""How long a stopped stream may take to hand over its partial response."""


@dataclass(slots=True)
class CallReader:
    """Reads calls for the runner; `deliver` takes every event passed on,
    `retrying(call_id, attempt)` records a new attempt before it starts."""

    llm: ModelRouter
    retry: RetryPolicy
    rng: random.Random
    metrics: Metrics | None
    retrying: Callable[[str, int], Awaitable[None]]
    accounting: Accounting | None = None
    """Checks the budget before the call, and is told how long it took."""

    async def read(self, call: ModelCall, deliver: Callable[[ResponseEvent], None]) -> None:
        """Read `call` to its terminal event; never raises but for cancellation.
        A call its user's budget does not admit is not made: its end is the
        refusal."""
        try:
            accounting = self.accounting
            refused = None
            if accounting is not None:
                refused = await accounting.admit(call.conversation_id, call.call_id, call.model)
            if refused is not None:
                deliver(refused)
                return
            await self._attempts(call, deliver)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the last line of defence: the call must end
            log.exception("call %s failed outside the stream", call.call_id)
            deliver(local_error(f"the model call failed: {type(error).__name__}: {error}"))

    async def _attempts(self, call: ModelCall, deliver: Callable[[ResponseEvent], None]) -> None:
        watch = CallWatch(self.metrics, call.conversation_id, call.call_id, call.model)
        attempt = 0
        waited = 0.0
        while True:
            attempt += 1
            if attempt > 1:
                await self.retrying(call.call_id, attempt)
            wait = await self._attempt(call, attempt, waited, watch, deliver)
            if wait is None:
                return
            waited += wait
            await asyncio.sleep(wait)

    async def _attempt(
        self,
        call: ModelCall,
        attempt: int,
        waited: float,
        watch: CallWatch,
        deliver: Callable[[ResponseEvent], None],
    ) -> float | None:
        """One attempt: None once the call is over, else the wait before the next."""
        timed = self.metrics.stages.add if self.metrics is not None else None
        # A branch is named to the provider as its root: one prompt cache.
        session = root_of(call.conversation_id)
        context = CallContext(call.call_id, session, timed, call.user_id)
        stream = await self.llm.call(call.model, context, call.request)
        passed_on = False
        if isinstance(stream, PassesOn):

            def take(event: ResponseEvent) -> None:
                """A delta passed on in the step that read it (`PassesOn`)."""
                nonlocal passed_on
                watch.see(event)
                passed_on = True
                deliver(event)

            stream.pass_on(take)
        try:
            while True:
                # Read here, not in a helper: one coroutine less per delta.
                # A stream that ends without a terminal event, or an adapter
                # bug, still ends the call as an error, never as a hang.
                try:
                    event = await stream.recv()
                except StopAsyncIteration:
                    event = local_error("the model stream ended without a final event")
                except Exception as error:  # an adapter bug: the call ends as an error
                    log.exception("model stream raised")
                    event = local_error(f"the model stream failed: {type(error).__name__}: {error}")
                terminal = isinstance(event, _TERMINAL)  # a delta is tested once only
                if terminal and isinstance(event, ErrorEvent) and not passed_on:
                    retried = self._retry(call, attempt, waited, watch, event)
                    if not isinstance(retried, ErrorEvent):
                        return retried
                    event = retried
                watch.see(event)
                if terminal and self.accounting is not None:
                    self.accounting.timed(call.call_id, *watch.times_ms())
                passed_on = passed_on or not isinstance(event, StartEvent)
                deliver(event)
                if terminal:
                    return None
        except asyncio.CancelledError:
            await _pass_partial(stream, call.call_id, deliver)
            raise
        finally:
            await _close(stream, call.call_id)

    def _retry(
        self, call: ModelCall, attempt: int, waited: float, watch: CallWatch, event: ErrorEvent
    ) -> float | ErrorEvent:
        """The wait before another attempt, or the error that ends the call
        (a provider's wait beyond the budget says when to try again)."""
        retry = event.reason == "error" and event.retryable and attempt < self.retry.max_attempts
        if not retry:
            return event
        ended = self.retry.beyond_budget(event, waited)
        if ended is not None:
            return ended
        if self.accounting is not None:
            error = event.message.error_message or f"HTTP {event.status}"
            self.accounting.retried(call.call_id, *watch.times_ms(), error)
        watch.retrying(event)
        wait = self.retry.delay(attempt, event.retry_after, self.rng)
        log.warning(
            "call %s attempt %d failed (%s); retrying in %.2fs",
            call.call_id,
            attempt,
            event.message.error_message,
            wait,
        )
        return wait


async def _pass_partial(
    stream: ResponseStream, call_id: str, deliver: Callable[[ResponseEvent], None]
) -> None:
    """A stopped call: close the stream and pass on its last word, the
    `aborted` event with the partial response (the loop keeps what streamed
    of a canceled turn and ignores it otherwise)."""
    await _close(stream, call_id)
    try:
        event = await asyncio.wait_for(stream.recv(), PARTIAL_WAIT_S)
    except (StopAsyncIteration, TimeoutError):
        return
    except Exception:  # the stream's last word is a courtesy; the cancel stands
        log.warning("call %s: no partial response after the stop", call_id, exc_info=True)
        return
    if isinstance(event, ErrorEvent) and event.reason == "aborted":
        deliver(event)


async def _close(stream: ResponseStream, call_id: str) -> None:
    try:
        await stream.aclose()
    except Exception:  # closing is best effort; the call's outcome is already known
        log.warning("call %s: closing the stream failed", call_id, exc_info=True)


def local_error(text: str) -> ErrorEvent:
    """An error event the server writes itself (no provider answered it)."""
    message = AssistantMessage(
        content=(), api="", provider="", model="", stop_reason="error", error_message=text
    )
    return ErrorEvent("error", message)
