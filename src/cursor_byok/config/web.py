"""The `[web]` table: which search backend the server asks, whether it
fetches pages for the model, and within which limits.

Without the table nothing is offered: no search, no fetch. A search key is
never written in the file: the table names the environment variable that
holds it. Apart from config/settings.py so each stays short; the types it
fills live in runtime/web (imported here without any HTTP client).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from cursor_byok.config.guards import TOO_SHORT, too_short
from cursor_byok.config.reader import ConfigError, Locator, no_leftovers, or_default, positive, take
from cursor_byok.runtime.web.addresses import PrivateHosts
from cursor_byok.runtime.web.limits import FetchLimits, SearchLimits

if TYPE_CHECKING:  # the backends load aiohttp's stack; imported when one is made
    from cursor_byok.runtime.web.search import SearchBackend
    from cursor_byok.transport.dialect.tool_base import Tool

SearchKind = Literal["searxng", "tavily"]
SEARCH_KINDS = ("searxng", "tavily", "none")
DEFAULT_KEY_ENV = "TAVILY_API_KEY"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FETCH_LIMITS = {
    "fetch_timeout_s": ("timeout_s", "seconds"),
    "fetch_first_byte_s": ("first_byte_s", "seconds"),
    "fetch_max_bytes": ("max_bytes", "bytes"),
    "fetch_max_chars": ("max_chars", "characters"),
}


@dataclass(frozen=True, slots=True)
class WebConfig:
    search: SearchKind | None = None
    """The search backend; None: WebSearch is not offered."""
    search_url: str | None = None
    """SearXNG's address, or another Tavily endpoint than the public one."""
    search_key_env: str | None = None
    """The variable that holds Tavily's key (TAVILY_API_KEY by default)."""
    search_results: int = 8
    provider_search: bool = False
    """Where the model's API has a web search of its own, use it instead
    (Anthropic, OpenAI Responses); the backend serves the other APIs."""
    fetch: bool = False
    """Whether WebFetch is offered: the server then reaches the web for the model."""
    fetch_limits: FetchLimits = field(default_factory=FetchLimits)

    @property
    def search_limits(self) -> SearchLimits:
        return SearchLimits(max_results=self.search_results)

    @property
    def key_env(self) -> str | None:
        """The environment variable of the search key, for Tavily."""
        return (self.search_key_env or DEFAULT_KEY_ENV) if self.search == "tavily" else None


def web_key(web: WebConfig, env: Mapping[str, str] | None = None) -> str | None:
    """The search key from its environment variable; None without one."""
    env = os.environ if env is None else env
    name = web.key_env
    value = env.get(name, "").strip() if name else ""
    return value or None


def search_backend(web: WebConfig, env: Mapping[str, str] | None = None) -> SearchBackend | None:
    """The configured backend, ready to search; None when there is none or
    its key is missing (`cursor-byok check` says which)."""
    from cursor_byok.runtime.web.backends import (  # noqa: PLC0415
        TAVILY_URL,
        SearxngSearch,
        TavilySearch,
    )

    if web.search == "searxng" and web.search_url:
        return SearxngSearch(web.search_url)
    key = web_key(web, env)
    if web.search == "tavily" and key is not None:
        return TavilySearch(key, web.search_url or TAVILY_URL)
    return None


def server_tools(web: WebConfig, env: Mapping[str, str] | None = None) -> tuple[Tool, ...]:
    """The tools the table turns on, for the server to offer: WebSearch with
    its backend, WebFetch within its limits (each run still needs its client
    to allow them)."""
    from cursor_byok.transport.dialect.web_tools import WebFetch, WebSearch  # noqa: PLC0415

    tools: list[Tool] = []
    backend = search_backend(web, env)
    if backend is not None or web.provider_search:
        tools.append(WebSearch(backend, web.search_limits, provider=web.provider_search))
    if web.fetch:
        tools.append(WebFetch(web.fetch_limits))
    return tuple(tools)


def _url(doc: dict[str, Any], where: Locator, table: str) -> str | None:
    url = take(doc, "search_url", str, where, table)
    if url is not None and not re.match(r"^https?://[^/\s]+", url):
        raise where.error(table, "search_url", "must be an http:// or https:// URL")
    return url.rstrip("/") if url else None


def _fetch_limits(doc: dict[str, Any], where: Locator, table: str) -> FetchLimits:
    defaults = FetchLimits()
    values = {
        name: positive(doc, key, getattr(defaults, name), unit, where, table)
        for key, (name, unit) in _FETCH_LIMITS.items()
    }
    redirects = or_default(take(doc, "fetch_max_redirects", int, where, table), 5)
    if redirects < 0:
        raise where.error(table, "fetch_max_redirects", "must be 0 or more")
    hosts = take(doc, "private_hosts", list, where, table) or []
    if not all(isinstance(host, str) for host in hosts):
        raise where.error(table, "private_hosts", "must be a list of host names or networks")
    try:
        private = PrivateHosts.parse(hosts)
    except ValueError as error:
        raise where.error(table, "private_hosts", str(error)) from error
    return FetchLimits(**values, max_redirects=redirects, private_hosts=private)


def parse_web(doc: dict[str, Any], where: Locator, env: Mapping[str, str]) -> WebConfig:
    """The `[web]` table; every bad value named with its line."""
    table = "web"
    for literal in ("search_key", "api_key", "key"):
        if literal in doc:
            raise where.error(
                table,
                literal,
                "a key is never written in the file: put it in an environment "
                "variable and name that variable in search_key_env",
            )
    search = take(doc, "search", str, where, table) or "none"
    if search not in SEARCH_KINDS:
        raise where.error(
            table, "search", f"must be one of {', '.join(SEARCH_KINDS)} (got {search!r})"
        )
    url = _url(doc, where, table)
    if search == "searxng" and url is None:
        raise where.error(table, "search", 'search = "searxng" needs search_url, its address')
    key_env = take(doc, "search_key_env", str, where, table)
    if key_env is not None and search != "tavily":
        raise where.error(table, "search_key_env", 'only search = "tavily" takes a key')
    if key_env is not None and not _ENV_NAME.match(key_env):
        raise where.error(table, "search_key_env", "must be an environment variable's name")
    results = positive(doc, "search_results", 8, "results", where, table)
    provider = bool(take(doc, "provider_search", bool, where, table))
    fetch = bool(take(doc, "fetch", bool, where, table))
    limits = _fetch_limits(doc, where, table)
    no_leftovers(doc, where, table)
    web = WebConfig(
        search=cast(SearchKind, search) if search != "none" else None,
        search_url=url,
        search_key_env=key_env,
        search_results=results,
        provider_search=provider,
        fetch=fetch,
        fetch_limits=limits,
    )
    key = web_key(web, env)
    if key is not None and too_short([key]):
        raise ConfigError(f"{web.key_env} ([web] search key): {TOO_SHORT}")
    return web
