"""The seam between the loop's runner and a provider: `LLM.call`.

`ModelSpec` says which model to call and how; `CallContext` carries what
varies per call but must not change the request bytes of a retry (the call id)
or is stable for a whole conversation (the session id used as cache key).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

from cursor_byok.llm.events import ResponseStream
from cursor_byok.llm.limits import ModelLimits, ThinkingPlan, limits_of, plan_thinking
from cursor_byok.llm.models import Price
from cursor_byok.llm.types import RequestMessages

ReasoningEffort: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh", "max"]


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model on one endpoint. `provider` names the vendor (it selects
    the compatibility record); the adapter class fixes the wire API."""

    provider: str
    model: str
    base_url: str
    max_tokens: int = 8192
    """The output limit, thinking included (see `llm.limits`)."""
    reasoning: ReasoningEffort | None = None
    thinking_budget: int | None = None
    limits: ModelLimits | None = None
    """The model's cap and thinking style as configured; None: the model
    table's entry for `model` (`llm.limits`)."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Extra request headers; they may carry credentials, so no repr shows them."""
    price: Price | None = None
    """Overrides the built-in price table for this model's cost."""


def takes_images(spec: ModelSpec, api: str) -> bool:
    """Whether the model takes images, as configured or by the model table."""
    return (spec.limits or limits_of(api, spec.model)).images


def request_thinking(spec: ModelSpec, api: str) -> ThinkingPlan:
    """The output limit and thinking setting one request carries.

    The configuration is checked at start-up (`config`); this is the guard
    behind it for specs built any other way: the limit is cut to the model's
    cap, and a budget or level the model cannot take is left out rather than
    sent to be rejected. `api` is the configuration's API kind."""
    limits = spec.limits or limits_of(api, spec.model)
    cap = limits.output_cap
    max_output = min(spec.max_tokens, cap) if cap is not None else spec.max_tokens
    wanted = spec.reasoning or ("high" if spec.thinking_budget is not None else "off")
    budget: int | None = None
    if limits.thinking == "budget" and spec.thinking_budget is not None:
        budget = min(spec.thinking_budget, max_output - 1, limits.max_budget or max_output)
    plan = plan_thinking(limits, spec.model, max_output, wanted, budget)
    return plan if isinstance(plan, ThinkingPlan) else ThinkingPlan(max_output)


@dataclass(frozen=True, slots=True)
class CallContext:
    call_id: str = ""
    session_id: str | None = None
    timed: Callable[[str, int], None] | None = field(default=None, compare=False, repr=False)
    """Told how long building the request took, in nanoseconds per stage
    (`render`: the body's messages, `join`: its bytes); None: not timed."""
    user_id: int | None = None
    """The user whose turn makes the call (`store.owners`), for what is
    recorded per user (usage, budgets); None where no user is known."""


class LLM(Protocol):
    async def call(self, ctx: CallContext, request: RequestMessages) -> ResponseStream: ...


class ModelRouter(Protocol):
    """What the runner calls: one stateless call of the model the client
    chose, by name. A router picks the provider adapter for the name; it does
    not raise for upstream failures, which arrive as the stream's `ErrorEvent`."""

    async def call(
        self, model: str, ctx: CallContext, request: RequestMessages
    ) -> ResponseStream: ...
