"""The `[web]` table: nothing offered without it, each value read and
checked, every bad value named with its line, the search key read from
the environment only and kept out of logs."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from cursor_byok.config.reader import ConfigError
from cursor_byok.config.settings import load_config
from cursor_byok.config.web import WebConfig, search_backend, server_tools, web_key
from cursor_byok.runtime.web.backends import SearxngSearch, TavilySearch
from cursor_byok.runtime.web.limits import FetchLimits

KEY = "tvly-planted-key-0123456789"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_without_the_table_nothing_is_offered(tmp_path: Path) -> None:
    web = load_config(
        write(
            tmp_path,
            'default_model = "x"\n[models.x]\nprovider = "p"\n'
            '[providers.p]\napi = "anthropic"\nbase_url = "https://a"\n',
        ),
        env={},
    ).web
    assert (web.search, web.fetch) == (None, False)
    assert web.fetch_limits == FetchLimits()
    assert search_backend(web, {}) is None
    assert load_config(None, env={}).web == web
    assert server_tools(web, {}) == ()


def test_searxng_and_fetch_with_every_limit(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[web]
search = "searxng"
search_url = "http://127.0.0.1:8888/"
search_results = 5
fetch = true
fetch_timeout_s = 12.5
fetch_first_byte_s = 4
fetch_max_bytes = 1048576
fetch_max_chars = 50000
fetch_max_redirects = 0
private_hosts = ["wiki.corp.example", "*.lab.example", "10.20.0.0/16"]
""",
    )
    web = load_config(path, env={}).web
    assert (web.search, web.search_url, web.search_results, web.fetch) == (
        "searxng",
        "http://127.0.0.1:8888",
        5,
        True,
    )
    limits = web.fetch_limits
    assert (limits.timeout_s, limits.first_byte_s, limits.max_bytes) == (12.5, 4.0, 1048576)
    assert (limits.max_chars, limits.max_redirects) == (50000, 0)
    assert limits.private_hosts.allows(ipaddress.ip_address("10.20.1.1"), None)
    assert limits.private_hosts.allows_name("ci.lab.example")
    assert web.search_limits.max_results == 5
    assert search_backend(web, {}) == SearxngSearch("http://127.0.0.1:8888")
    search, fetch = server_tools(web, {})
    assert (search.name, fetch.name) == ("WebSearch", "WebFetch")
    assert fetch.limits == limits  # type: ignore[attr-defined]
    assert search.backend == SearxngSearch("http://127.0.0.1:8888")  # type: ignore[attr-defined]


def test_a_tavily_search_without_its_key_offers_no_search(tmp_path: Path) -> None:
    web = WebConfig(search="tavily", fetch=True)
    assert [tool.name for tool in server_tools(web, {})] == ["WebFetch"]
    assert [tool.name for tool in server_tools(web, {"TAVILY_API_KEY": "k" * 32})] == [
        "WebSearch",
        "WebFetch",
    ]


def test_tavily_reads_its_key_from_the_environment_and_keeps_it_secret(tmp_path: Path) -> None:
    path = write(tmp_path, '[web]\nsearch = "tavily"\n')
    config = load_config(path, env={"TAVILY_API_KEY": f" {KEY}\n"})
    assert web_key(config.web, {"TAVILY_API_KEY": KEY}) == KEY
    assert search_backend(config.web, {"TAVILY_API_KEY": KEY}) == TavilySearch(KEY)
    assert search_backend(config.web, {}) is None  # no key: not offered
    assert KEY in config.secrets({"TAVILY_API_KEY": KEY})
    assert KEY not in repr(config)

    path = write(tmp_path, '[web]\nsearch = "tavily"\nsearch_key_env = "MY_SEARCH_KEY"\n')
    web = load_config(path, env={}).web
    assert web.key_env == "MY_SEARCH_KEY"
    assert search_backend(web, {"MY_SEARCH_KEY": KEY}) == TavilySearch(KEY)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('search = "bing"', r":2: web.search: must be one of searxng, tavily, none \(got 'bing'\)"),
        ('search = "searxng"', r':2: web.search: search = "searxng" needs search_url'),
        ('search = "searxng"\nsearch_url = "ftp://x"', r":3: web.search_url: must be an http"),
        ('search_url = "localhost:8888"', r":2: web.search_url: must be an http"),
        ('search = "tavily"\nsearch_key = "tvly-x"', r":3: web.search_key: a key is never written"),
        (
            'search = "searxng"\nsearch_url = "http://s"\nsearch_key_env = "K"',
            r':4: web.search_key_env: only search = "tavily" takes a key',
        ),
        ('search = "tavily"\nsearch_key_env = "not a name"', r":3: web.search_key_env: must be an"),
        ("fetch_timeout_s = -1", r":2: web.fetch_timeout_s: must be a positive number of seconds"),
        ("fetch_max_bytes = 0", r":2: web.fetch_max_bytes: must be a positive number of bytes"),
        ("fetch_max_chars = 1.5", r":2: web.fetch_max_chars: expected an integer"),
        ("fetch_max_redirects = -1", r":2: web.fetch_max_redirects: must be 0 or more"),
        ("search_results = 0", r":2: web.search_results: must be a positive number of results"),
        ('fetch = "yes"', r":2: web.fetch: expected true or false"),
        ('private_hosts = ["10.0.0.0/33"]', r":2: web.private_hosts: '10.0.0.0/33' is neither"),
        ("private_hosts = [1]", r":2: web.private_hosts: must be a list of host names"),
        ("fetch_limit = 3", r":2: web.fetch_limit: unknown key"),
    ],
)
def test_bad_values_are_named_with_their_line(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_config(write(tmp_path, f"[web]\n{text}\n"), env={})


def test_a_search_key_too_short_to_cut_from_logs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"TAVILY_API_KEY \(\[web\] search key\)"):
        load_config(write(tmp_path, '[web]\nsearch = "tavily"\n'), env={"TAVILY_API_KEY": "ab"})


def test_provider_search_offers_the_apis_own_search_with_the_backend_for_the_rest(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        '[web]\nprovider_search = true\nsearch = "searxng"\nsearch_url = "http://127.0.0.1:8888"\n',
    )
    web = load_config(path, env={}).web
    [search] = server_tools(web, {})
    assert search.definition().native == "web_search"
    assert search.backend == SearxngSearch("http://127.0.0.1:8888")  # type: ignore[attr-defined]
    alone = load_config(write(tmp_path, "[web]\nprovider_search = true\n"), env={}).web
    [search] = server_tools(alone, {})
    assert search.backend is None  # type: ignore[attr-defined]
    assert server_tools(load_config(write(tmp_path, "[web]\n"), env={}).web, {}) == ()
