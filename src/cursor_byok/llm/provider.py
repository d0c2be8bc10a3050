"""The seam between the loop's runner and a provider: `LLM.call`.

`ModelSpec` says which model to call and how; `CallContext` carries what
varies per call but must not change the request bytes of a retry (the call id)
or is stable for a whole conversation (the session id used as cache key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

from cursor_byok.llm.events import ResponseStream
from cursor_byok.llm.models import Price
from cursor_byok.llm.types import RequestMessages

ReasoningEffort: TypeAlias = Literal["minimal", "low", "medium", "high"]


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model on one endpoint. `provider` names the vendor (it selects
    the compatibility record); the adapter class fixes the wire API."""

    provider: str
    model: str
    base_url: str
    max_tokens: int = 8192
    reasoning: ReasoningEffort | None = None
    thinking_budget: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    price: Price | None = None
    """Overrides the built-in price table for this model's cost."""


@dataclass(frozen=True, slots=True)
class CallContext:
    call_id: str = ""
    session_id: str | None = None


class LLM(Protocol):
    async def call(self, ctx: CallContext, request: RequestMessages) -> ResponseStream: ...


class ModelRouter(Protocol):
    """What the runner calls: one stateless call of the model the client
    chose, by name. A router picks the provider adapter for the name; it does
    not raise for upstream failures, which arrive as the stream's `ErrorEvent`."""

    async def call(
        self, model: str, ctx: CallContext, request: RequestMessages
    ) -> ResponseStream: ...
