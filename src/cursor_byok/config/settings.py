"""Configuration: one TOML file plus environment variables.

Every error names the file, the line and the key, so a user can fix it
without reading code. Keys are never printed: `Secret` hides its value in
every `repr`/`str`, and only the code that sends a request reveals it.

With no file at all, providers are made from the usual environment
variables (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`,
`OPENAI_BASE_URL`), each with a few sensible default models.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast, get_args

import platformdirs

from cursor_byok.config.guards import TOO_SHORT, header_secrets, too_short
from cursor_byok.config.reader import (
    ConfigError,
    Locator,
    no_leftovers,
    or_default,
    take,
)
from cursor_byok.config.secret import Secret as Secret
from cursor_byok.config.server import APP_NAME as APP_NAME
from cursor_byok.config.server import DEFAULT_HOST as DEFAULT_HOST
from cursor_byok.config.server import DEFAULT_PORT as DEFAULT_PORT
from cursor_byok.config.server import ServerConfig as ServerConfig
from cursor_byok.config.server import parse_server
from cursor_byok.config.subagents import SubagentsConfig, parse_subagents
from cursor_byok.config.web import WebConfig, parse_web, web_key
from cursor_byok.llm.limits import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_OUTPUT,
    THINKING_STYLES,
    LimitProblem,
    ModelLimits,
    ThinkingPlan,
    ThinkingStyle,
    known_limits,
    limits_of,
    plan_thinking,
)
from cursor_byok.llm.models import Price, price_of
from cursor_byok.store.database import PostgresURL

ApiKind: TypeAlias = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]
ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]

CONFIG_ENV = "CURSOR_BYOK_CONFIG"
TOKEN_ENV = "CURSOR_BYOK_TOKEN"
KEY_ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL")


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    name: str
    api: ApiKind
    base_url: str
    api_key: Secret | None = None
    api_key_env: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Sent with every request; they may carry credentials, so their values
    are secrets (`Config.secrets`)."""
    vendor: str | None = None
    """For OpenAI-compatible servers: whose quirks to expect (deepseek,
    openrouter, vllm, ollama, groq, moonshot, qwen); defaults to the name."""


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """A model as the client sees it (`name`) and as the provider knows it."""

    name: str
    provider: str
    model: str
    context_window: int = 128_000
    max_output: int = 16_000
    thinking: ThinkingLevel = "off"
    price: Price | None = None
    """None: the built-in price table (`llm.models`), by model id."""
    output_cap: int | None = None
    thinking_style: ThinkingStyle | None = None
    thinking_budget: int | None = None
    """Overrides of the model table (`llm.limits`); None: the table's value."""
    images: bool | None = None
    """Whether the model takes images (False: text-only, each image becomes
    a note); None: the model table's value, else yes."""

    def effective_price(self) -> Price | None:
        return self.price if self.price is not None else price_of(self.model)

    def limits(self, api: str) -> ModelLimits:
        limits = limits_of(api, self.model)
        if self.output_cap is not None:
            limits = replace(limits, output_cap=self.output_cap)
        if self.thinking_style is not None:
            limits = replace(limits, thinking=self.thinking_style)
        if self.images is not None:
            limits = replace(limits, images=self.images)
        return replace(limits, context_window=self.context_window)

    def plan(self, api: str) -> ThinkingPlan | LimitProblem:
        """The output limit and thinking setting of every request to this model."""
        return plan_thinking(
            self.limits(api), self.model, self.max_output, self.thinking, self.thinking_budget
        )


@dataclass(frozen=True, slots=True)
class Config:
    server: ServerConfig
    providers: Mapping[str, ProviderConfig]
    models: Mapping[str, ModelConfig]
    default_model: str | None
    source: Path | None = None
    web: WebConfig = field(default_factory=WebConfig)
    subagents: SubagentsConfig = field(default_factory=SubagentsConfig)

    def secrets(self, env: Mapping[str, str] | None = None) -> list[str]:
        """Every credential value (from the file or the environment), for the
        log redaction filter: provider keys and header values, the access
        token, and the database password in each form the URL gives it."""
        keys = (resolve_key(p, env) for p in self.providers.values())
        found = [key.reveal() for key in keys if key is not None]
        for provider in self.providers.values():
            found += [s for value in provider.headers.values() for s in header_secrets(value)]
        if self.server.access_token is not None:
            found.append(self.server.access_token.reveal())
        if isinstance(self.server.database, PostgresURL):
            found += self.server.database.secrets
        found.append(web_key(self.web, env) or "")
        return [s for s in found if s]


# -- defaults from the environment ------------------------------------------------


def _defaults(provider: str, api: ApiKind, models: list[tuple[str, int, int]]) -> list[ModelConfig]:
    return [ModelConfig(name, provider, name, context, output) for name, context, output in models]


def _from_environment(
    env: Mapping[str, str],
) -> tuple[dict[str, ProviderConfig], list[ModelConfig]]:
    providers: dict[str, ProviderConfig] = {}
    models: list[ModelConfig] = []
    if env.get("ANTHROPIC_API_KEY"):
        providers["anthropic"] = ProviderConfig(
            "anthropic", "anthropic", "https://api.anthropic.com", api_key_env="ANTHROPIC_API_KEY"
        )
        models += _defaults(
            "anthropic",
            "anthropic",
            [
                ("claude-sonnet-4-6", 200_000, 64_000),
                ("claude-opus-4-6", 200_000, 32_000),
                ("claude-haiku-4-5", 200_000, 64_000),
            ],
        )
    if env.get("OPENAI_API_KEY") and not env.get("OPENAI_BASE_URL"):
        providers["openai"] = ProviderConfig(
            "openai", "openai-responses", "https://api.openai.com/v1", api_key_env="OPENAI_API_KEY"
        )
        models += _defaults(
            "openai",
            "openai-responses",
            [
                ("gpt-5.1", 400_000, 128_000),
                ("gpt-5-mini", 400_000, 128_000),
            ],
        )
    if env.get("OPENAI_BASE_URL"):
        base = env["OPENAI_BASE_URL"].rstrip("/")
        providers["openai-compatible"] = ProviderConfig(
            "openai-compatible",
            "openai-chat",
            base,
            api_key_env="OPENAI_API_KEY" if env.get("OPENAI_API_KEY") else None,
        )
        name = env.get("OPENAI_MODEL", "default")
        models.append(ModelConfig(name, "openai-compatible", name))
    if env.get("GEMINI_API_KEY"):
        providers["gemini"] = ProviderConfig(
            "gemini",
            "gemini",
            "https://generativelanguage.googleapis.com",
            api_key_env="GEMINI_API_KEY",
        )
        models += _defaults(
            "gemini",
            "gemini",
            [
                ("gemini-3-pro-preview", 1_000_000, 64_000),
                ("gemini-3.5-flash", 1_000_000, 64_000),
            ],
        )
    return providers, models


# -- the file -------------------------------------------------------------------------


def _secret(
    doc: dict[str, Any], where: Locator, table: str, env: Mapping[str, str]
) -> tuple[Secret | None, str | None]:
    literal = take(doc, "api_key", str, where, table)
    env_name = take(doc, "api_key_env", str, where, table)
    if literal is not None and env_name is not None:
        raise where.error(table, "api_key", "set api_key or api_key_env, not both")
    if literal and too_short([literal.strip()]):
        raise where.error(table, "api_key", TOO_SHORT)
    return (Secret(literal) if literal else None), env_name


def _provider(
    name: str, doc: dict[str, Any], where: Locator, env: Mapping[str, str]
) -> ProviderConfig:
    table = f"providers.{name}"
    api = take(doc, "api", str, where, table)
    if api not in get_args(ApiKind):
        raise where.error(
            table, "api", f"must be one of {', '.join(get_args(ApiKind))} (got {api!r})"
        )
    base_url = take(doc, "base_url", str, where, table)
    if not base_url or not re.match(r"^https?://", base_url):
        raise where.error(table, "base_url", "must be an http:// or https:// URL")
    api_key, api_key_env = _secret(doc, where, table, env)
    headers = take(doc, "headers", dict, where, table) or {}
    for header, value in headers.items():
        if not isinstance(value, str):
            raise where.error(table, "headers", f"header {header!r} must be a string")
        if too_short(header_secrets(value)):
            raise where.error(table, "headers", f"{header!r} is {TOO_SHORT}")
    vendor = take(doc, "vendor", str, where, table)
    no_leftovers(doc, where, table)
    return ProviderConfig(
        name, cast(ApiKind, api), base_url.rstrip("/"), api_key, api_key_env, headers, vendor
    )


def _model(
    name: str, doc: dict[str, Any], where: Locator, providers: Mapping[str, Any]
) -> ModelConfig:
    table = f"models.{name}"
    provider = take(doc, "provider", str, where, table)
    if provider is None:
        raise where.error(table, None, "missing key 'provider'")
    if provider not in providers:
        names = ", ".join(sorted(providers)) or "none"
        raise where.error(table, "provider", f"unknown provider {provider!r} (known: {names})")
    model = take(doc, "model", str, where, table) or name
    known = known_limits(model)
    cap = take(doc, "output_cap", int, where, table)
    default_cap = cap if cap is not None else (known.output_cap if known else None)
    context = or_default(
        take(doc, "context_window", int, where, table),
        known.context_window if known else DEFAULT_CONTEXT_WINDOW,
    )
    output = or_default(
        take(doc, "max_output", int, where, table),
        min(DEFAULT_MAX_OUTPUT, default_cap or DEFAULT_MAX_OUTPUT),
    )
    for key, value in (("context_window", context), ("max_output", output), ("output_cap", cap)):
        if value is not None and value <= 0:
            raise where.error(table, key, "must be positive")
    if output > context:
        raise where.error(table, "max_output", f"exceeds context_window ({context})")
    thinking = take(doc, "thinking", str, where, table) or "off"
    if thinking not in get_args(ThinkingLevel):
        raise where.error(table, "thinking", f"must be one of {', '.join(get_args(ThinkingLevel))}")
    style = take(doc, "thinking_style", str, where, table)
    if style is not None and style not in THINKING_STYLES:
        raise where.error(table, "thinking_style", f"must be one of {', '.join(THINKING_STYLES)}")
    budget = take(doc, "thinking_budget", int, where, table)
    images = take(doc, "images", bool, where, table)
    price_doc = take(doc, "price", dict, where, table)
    price = None if price_doc is None else _price(price_doc, where, table)
    no_leftovers(doc, where, table)
    config = ModelConfig(
        name,
        provider,
        model,
        context,
        output,
        cast(ThinkingLevel, thinking),
        price,
        cap,
        cast(ThinkingStyle | None, style),
        budget,
        images,
    )
    # A model whose every request would be rejected is refused now, not per turn.
    plan = config.plan(providers[provider].api)
    if isinstance(plan, LimitProblem):
        raise where.error(table, plan.key, plan.message)
    return config


def _price(doc: dict[str, Any], where: Locator, table: str) -> Price:
    """US dollars per million tokens. `input` and `output` are required (a
    price left out would count as free); a cache rate left out costs what
    input does, the most it may cost."""
    prices: dict[str, float] = {}
    for key in ("input", "output", "cache_read", "cache_write"):
        value = doc.pop(key, None)
        if value is None and key in ("input", "output"):
            raise where.error(table, "price", f"{key} is required (US dollars per million tokens)")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise where.error(table, "price", f"{key} must be a non-negative number")
        prices[key] = float(value)
    for key in doc:
        raise where.error(table, "price", f"unknown price {key!r}")
    input_ = prices["input"]
    return Price(
        input_,
        prices["output"],
        prices.get("cache_read", input_),
        prices.get("cache_write", input_),
    )


def default_config_path(env: Mapping[str, str]) -> Path | None:
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    candidate = Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"
    return candidate if candidate.is_file() else None


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read and validate the configuration; raise ConfigError naming the spot."""
    env = os.environ if env is None else env
    path = path if path is not None else default_config_path(env)
    doc: dict[str, Any] = {}
    where = Locator(Path("<environment>"), "")
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(f"{path}: cannot read the configuration: {error.strerror}") from error
        where = Locator(path, text)
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{path}: invalid TOML: {error}") from error
    server = parse_server(dict(doc.pop("server", {})), where, env)
    web = parse_web(dict(doc.pop("web", {})), where, env)
    subagents_doc = dict(doc.pop("subagents", {}))
    default_model = doc.pop("default_model", None)
    providers_doc = doc.pop("providers", {})
    models_doc = doc.pop("models", {})
    no_leftovers(doc, where, None)
    providers = {
        name: _provider(name, dict(body), where, env) for name, body in providers_doc.items()
    }
    models = {name: _model(name, dict(body), where, providers) for name, body in models_doc.items()}
    if not providers:
        env_providers, env_models = _from_environment(env)
        providers = env_providers
        models = {m.name: m for m in env_models} | models
    if server.access_token is None and env.get(TOKEN_ENV):
        if too_short([env[TOKEN_ENV]]):
            raise ConfigError(f"{TOKEN_ENV}: {TOO_SHORT}")
        server = replace(server, access_token=Secret(env[TOKEN_ENV]))
    for provider in providers.values():
        key = resolve_key(provider, env)
        if provider.api_key is None and key is not None and too_short([key.reveal()]):
            raise ConfigError(f"{provider.api_key_env} (providers.{provider.name}): {TOO_SHORT}")
    if default_model is not None:
        if not isinstance(default_model, str) or default_model not in models:
            known = ", ".join(models) or "none"
            raise where.error(None, "default_model", f"not a configured model (known: {known})")
    elif models:
        default_model = next(iter(models))
    subagents = parse_subagents(subagents_doc, where, models)
    return Config(server, providers, models, default_model, path, web, subagents)


def resolve_key(provider: ProviderConfig, env: Mapping[str, str] | None = None) -> Secret | None:
    """The provider's key: from the file, else from its environment variable."""
    env = os.environ if env is None else env
    if provider.api_key is not None:
        value = provider.api_key.reveal()
    elif provider.api_key_env and env.get(provider.api_key_env):
        value = env[provider.api_key_env]
    else:
        return None
    # A stray newline or space from copy and paste would make the HTTP
    # client reject the header, quoting the key in its error message.
    value = value.strip()
    return Secret(value) if value else None
