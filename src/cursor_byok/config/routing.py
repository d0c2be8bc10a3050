"""Model routing: the model name a client asks for -> a provider adapter.

The router is what the runner calls. A name the configuration does not know
(e.g. one of Cursor's own models still selected in the picker) falls back to
the default model. When no model or no key is configured, the turn still
answers: the user reads what to set, as text, and the turn ends normally.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, cast

from cursor_byok.config.guards import Redactor, header_secrets, is_loopback_url
from cursor_byok.config.settings import Config, ModelConfig, ProviderConfig, resolve_key
from cursor_byok.llm.events import (
    ResponseStream,
)
from cursor_byok.llm.limits import LimitProblem
from cursor_byok.llm.notice import NoticeStream
from cursor_byok.llm.provider import LLM, CallContext, ModelSpec, ReasoningEffort
from cursor_byok.llm.types import RequestMessages
from cursor_byok.runtime.accounting import ModelTerms
from cursor_byok.transport.http.aux_rpcs import ModelEntry

if TYPE_CHECKING:
    from cursor_byok.llm.http import HTTPClient
    from cursor_byok.llm.providers.base import SSEAdapter

NO_MODEL_TEXT = (
    "cursor-byok has no model to call. Set one of ANTHROPIC_API_KEY, OPENAI_API_KEY, "
    "GEMINI_API_KEY or OPENAI_BASE_URL in the server's environment (or configure "
    "providers and models in its config file), then restart it."
)


def _needs_key(provider: ProviderConfig) -> bool:
    """Local OpenAI-compatible servers (Ollama, vLLM on loopback) need none."""
    return not (provider.api == "openai-chat" and is_loopback_url(provider.base_url))


class Router:
    """Implements the runner's `ModelRouter` over the configured providers."""

    def __init__(self, config: Config, env: Mapping[str, str] | None = None) -> None:
        self.config = config
        self._env = os.environ if env is None else env
        self._adapters: dict[str, LLM] = {}
        # One pooled HTTP client per provider, shared by its models: warm
        # connections (and HTTP/2 where the provider offers it) for all.
        self._clients: dict[str, HTTPClient] = {}
        self._terms: dict[str, ModelTerms] = {}
        """By configured model: asked before every call, and worked out from
        the model table and the configuration, neither of which changes."""

    def resolve(self, requested: str) -> ModelConfig | None:
        models = self.config.models
        if requested in models:
            return models[requested]
        for model in models.values():
            if model.model == requested:
                return model
        default = self.config.default_model
        return models.get(default) if default else None

    def model_name(self, requested: str) -> str | None:
        """The configured model that serves `requested` (None: no model)."""
        model = self.resolve(requested)
        return model.name if model else None

    def identity(self, requested: str) -> tuple[str, str, str] | None:
        """(api, provider, model) as the adapter serving `requested` names its
        answers: what a client's transcript is attributed to, so this adapter
        replays its reasoning signatures (None: no model serves it)."""
        model = self.resolve(requested)
        adapter = self._adapter(model) if model is not None else None
        spec = getattr(adapter, "spec", None)
        api = getattr(adapter, "api", None)
        if not isinstance(spec, ModelSpec) or not isinstance(api, str):
            return None
        return api, spec.provider, spec.model

    def entries(self) -> list[ModelEntry]:
        return [
            ModelEntry(m.name, m.context_window, m.thinking != "off")
            for m in self.config.models.values()
        ]

    def context_window(self, requested: str) -> int:
        model = self.resolve(requested)
        return model.context_window if model else 200_000

    def terms(self, requested: str) -> ModelTerms | None:
        """What serves `requested`, for usage and budgets (`runtime.accounting`):
        the configured model, its price (the configuration's, else the
        table's), its window and its output limit."""
        model = self.resolve(requested)
        if model is None:
            return None
        if (known := self._terms.get(model.name)) is not None:
            return known
        plan = model.plan(self.config.providers[model.provider].api)
        most = model.max_output if isinstance(plan, LimitProblem) else plan.max_output
        terms = ModelTerms(model.name, model.effective_price(), model.context_window, most)
        self._terms[model.name] = terms
        return terms

    def _adapter(self, model: ModelConfig) -> LLM | str:
        """The cached adapter, or the reason there is none."""
        cached = self._adapters.get(model.name)
        if cached is not None:
            return cached
        provider = self.config.providers[model.provider]
        key = resolve_key(provider, self._env)
        if key is None and _needs_key(provider):
            where = provider.api_key_env or "api_key in its config section"
            return (
                f"cursor-byok has no API key for provider {provider.name!r} (model "
                f"{model.name!r}). Set {where} in the server's environment and restart it."
            )
        plan = model.plan(provider.api)
        if isinstance(plan, LimitProblem):  # refused at start-up for a loaded file
            return f"cursor-byok cannot call model {model.name!r}: {plan.key}: {plan.message}"
        spec = ModelSpec(
            provider=provider.vendor or provider.name,
            model=model.model,
            base_url=provider.base_url,
            max_tokens=plan.max_output,
            reasoning=cast(ReasoningEffort | None, plan.level),
            thinking_budget=plan.budget,
            limits=model.limits(provider.api),
            headers=provider.headers,
            price=model.price,
        )
        secret = key.reveal() if key is not None else "none"
        client = self._clients.get(provider.name)
        if client is None:
            from cursor_byok.llm.http import make_client  # noqa: PLC0415

            client = self._clients[provider.name] = make_client(
                read_timeout=self.config.server.stall_timeout_s
            )
        # The key and the header values (which may be credentials too) are
        # cut out of what the provider's errors quote.
        headers = [s for value in provider.headers.values() for s in header_secrets(value)]
        redactor = Redactor([secret, *headers] if key is not None else headers)
        adapter = _adapter_class(provider.api)(spec, secret, client, redact=redactor or None)
        self._adapters[model.name] = adapter
        return adapter

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        chosen = self.resolve(model)
        if chosen is None:
            return NoticeStream(NO_MODEL_TEXT)
        adapter = self._adapter(chosen)
        if isinstance(adapter, str):
            return NoticeStream(adapter)
        # The adapter cuts its key out of the errors it passes on.
        return await adapter.call(ctx, request)

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()


_ADAPTERS: Mapping[str, str] = {
    "openai-chat": "openai_chat.OpenAIChatLLM",
    "openai-responses": "openai_responses.OpenAIResponsesLLM",
    "anthropic": "anthropic.AnthropicLLM",
    "gemini": "gemini.GeminiLLM",
}
"""Wire API -> adapter class in `cursor_byok.llm.providers`, imported on first
use: `serve` starts accepting before any adapter or the HTTP client is loaded."""


def _adapter_class(api: str) -> type[SSEAdapter]:
    module, _, name = _ADAPTERS[api].partition(".")
    found: type[SSEAdapter] = getattr(import_module(f"cursor_byok.llm.providers.{module}"), name)
    return found
