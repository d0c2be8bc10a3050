"""`cursor-byok check`: does each configured provider answer?

One tiny real request per provider, sent through the `Router` and the same
adapter the server uses, so a pass here means a turn's model call would get
through: base URL, key, model id and wire format all agree. The request is a
single user message with a small output cap and thinking off, to cost next to
nothing. Keys are never printed; an error text is scrubbed of every key
before it is shown, in case a provider echoes one back.

The `[web]` table is reported after the providers: the search backend is
asked one real query (a Tavily search costs one credit), and the fetch's
limits and allow-list are listed (fetching needs no service to answer).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cursor_byok.cli.base import CHECK_TIMEOUT_S
from cursor_byok.config.guards import Redactor
from cursor_byok.config.settings import Config, ModelConfig, ProviderConfig, resolve_key
from cursor_byok.config.web import WebConfig, search_backend
from cursor_byok.llm.events import DoneEvent, ErrorEvent, ResponseStream
from cursor_byok.llm.notice import NoticeStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages, UserMessage

if TYPE_CHECKING:  # imported when a check runs
    from cursor_byok.config.routing import Router

CHECK_PROMPT = "Reply with the single word: ok"
CHECK_QUERY = "cursor-byok"
CHECK_MAX_OUTPUT = 16
DEFAULT_TIMEOUT_S = CHECK_TIMEOUT_S


@dataclass(frozen=True, slots=True)
class ProviderCheck:
    """The outcome for one provider. `detail` is the reply on success, the
    reason on failure; timings are None when nothing came back."""

    provider: str
    model: str | None
    ok: bool
    detail: str
    first_event_ms: float | None = None
    total_ms: float | None = None


def model_for(config: Config, provider: str) -> ModelConfig | None:
    """The model to try a provider with: the default model if it is served
    there, else the first configured model that uses the provider."""
    default = config.models.get(config.default_model or "")
    if default is not None and default.provider == provider:
        return default
    return next((m for m in config.models.values() if m.provider == provider), None)


def _cheap(model: ModelConfig) -> ModelConfig:
    # Thinking off: no budget fits in a check's few output tokens.
    return replace(model, max_output=CHECK_MAX_OUTPUT, thinking="off", thinking_budget=None)


def _missing_key(provider: ProviderConfig, config: Config) -> str:
    if provider.api_key_env:
        return f"no API key: set {provider.api_key_env} in the environment"
    where = f" in {config.source}" if config.source else ""
    return f"no API key: set api_key or api_key_env in [providers.{provider.name}]{where}"


async def _drain(stream: ResponseStream, started: float) -> ProviderCheck | tuple[float, str]:
    """Read to the terminal event; (first event ms, reply) or a failure."""
    first: float | None = None
    while True:
        try:
            event = await stream.recv()
        except StopAsyncIteration:
            return ProviderCheck("", None, False, "the stream ended without a result")
        now = (time.perf_counter() - started) * 1000
        first = now if first is None else first
        match event:
            case DoneEvent(message=message):
                return first, message.text
            case ErrorEvent(message=message, status=status):
                reason = message.error_message or "the provider reported an error"
                text = f"HTTP {status}: {reason}" if status is not None else reason
                return ProviderCheck("", None, False, text, first, now)


async def check_one(
    router: Router,
    provider: ProviderConfig,
    model: ModelConfig,
    config: Config,
    timeout: float,  # noqa: ASYNC109 - a slow provider is a result to report, not an error
) -> ProviderCheck:
    """One request to `provider` through `router`, timed; `timeout` bounds it."""
    request = RequestMessages(None, (UserMessage(CHECK_PROMPT),))
    started = time.perf_counter()
    stream: ResponseStream | None = None
    try:
        async with asyncio.timeout(timeout):
            stream = await router.call(model.name, CallContext(f"check-{provider.name}"), request)
            if isinstance(stream, NoticeStream):  # the router's answer when the key is missing
                return ProviderCheck(
                    provider.name, model.model, False, _missing_key(provider, config)
                )
            outcome = await _drain(stream, started)
    except TimeoutError:
        return ProviderCheck(provider.name, model.model, False, f"no answer within {timeout:g} s")
    finally:
        if stream is not None:
            await stream.aclose()
    if isinstance(outcome, ProviderCheck):
        return replace(outcome, provider=provider.name, model=model.model)
    first, reply = outcome
    total = (time.perf_counter() - started) * 1000
    return ProviderCheck(provider.name, model.model, True, reply, first, total)


async def check_all(
    config: Config,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,  # noqa: ASYNC109 - each provider's own bound
) -> list[ProviderCheck]:
    """Check every configured provider at once; results in configuration order."""
    env = os.environ if env is None else env
    chosen = {name: model_for(config, name) for name in config.providers}
    cheap = {m.name: _cheap(m) for m in chosen.values() if m is not None}
    from cursor_byok.config.routing import Router  # noqa: PLC0415

    router = Router(replace(config, models={**config.models, **cheap}), env)
    redact = Redactor(
        [k.reveal() for p in config.providers.values() if (k := resolve_key(p, env))]
        + config.secrets()
    )

    async def one(name: str) -> ProviderCheck:
        model = chosen[name]
        if model is None:
            return ProviderCheck(name, None, False, "no model is configured for this provider")
        result = await check_one(router, config.providers[name], cheap[model.name], config, timeout)
        return replace(result, detail=redact(result.detail))

    try:
        return list(await asyncio.gather(*(one(name) for name in config.providers)))
    finally:
        await router.aclose()


def render(results: Sequence[ProviderCheck]) -> list[str]:
    """One aligned line per provider, then a summary line."""
    width_p = max((len(r.provider) for r in results), default=0)
    width_m = max((len(r.model or "-") for r in results), default=0)
    lines = []
    for r in results:
        head = f"{r.provider:<{width_p}}  {r.model or '-':<{width_m}}"
        if r.ok:
            reply = " ".join(r.detail.split())[:40]
            lines.append(
                f"{head}  ok      first event {r.first_event_ms:.0f} ms, "
                f"total {r.total_ms:.0f} ms, reply {reply!r}"
            )
        else:
            lines.append(f"{head}  FAILED  {r.detail}")
    failed = sum(not r.ok for r in results)
    noun = "provider" if len(results) == 1 else "providers"
    lines.append(
        f"{failed} of {len(results)} {noun} failed" if failed else f"{len(results)} {noun} answered"
    )
    return lines


@dataclass(frozen=True, slots=True)
class WebCheck:
    """One line of the `[web]` report: the search backend's answer, or
    what the fetch is allowed."""

    ok: bool
    line: str


def _fetch_line(web: WebConfig) -> WebCheck:
    limits = web.fetch_limits
    hosts = ", ".join(limits.private_hosts.entries()) or "none"
    size = (
        f"{limits.max_bytes / 2**20:g} MiB"
        if limits.max_bytes >= 2**20
        else f"{limits.max_bytes} bytes"
    )
    return WebCheck(
        True,
        f"web fetch   on       ok      {limits.timeout_s:g} s, first byte "
        f"{limits.first_byte_s:g} s, {size}, {limits.max_chars} characters, "
        f"{limits.max_redirects} redirects; "
        f"private hosts: {hosts}",
    )


async def check_web(
    config: Config,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,  # noqa: ASYNC109 - the search's own bound
) -> list[WebCheck]:
    """The `[web]` report: nothing when nothing is configured."""
    from cursor_byok.runtime.web.search import SearchError  # noqa: PLC0415

    env = os.environ if env is None else env
    web = config.web
    found: list[WebCheck] = []
    if web.search is not None:
        head = f"web search  {web.search:<7}"
        backend = search_backend(web, env)
        if backend is None:
            found.append(
                WebCheck(False, f"{head}  FAILED  no key: set {web.key_env} in the environment")
            )
        else:
            started = time.perf_counter()
            limits = replace(web.search_limits, timeout_s=timeout)
            try:
                references = await backend.search(CHECK_QUERY, limits)
            except SearchError as error:
                detail = Redactor(config.secrets(env))(error.message)
                found.append(WebCheck(False, f"{head}  FAILED  {detail}"))
            else:
                ms = (time.perf_counter() - started) * 1000
                found.append(
                    WebCheck(True, f"{head}  ok      {len(references)} references in {ms:.0f} ms")
                )
    if web.fetch:
        found.append(_fetch_line(web))
    return found


async def check_config(
    config: Config,
    timeout: float = DEFAULT_TIMEOUT_S,  # noqa: ASYNC109 - each check's own bound
) -> tuple[list[ProviderCheck], list[WebCheck]]:
    """The providers and the `[web]` table, checked at once."""
    providers, web = await asyncio.gather(
        check_all(config, timeout=timeout), check_web(config, timeout=timeout)
    )
    return providers, web
