"""`cursor-byok check` reports the `[web]` table after the providers: the
search backend answers one real query (here a SearXNG-like server on
loopback), a missing key names its variable, the fetch's limits and
allow-list are listed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.cli.test_check import GOOD_KEY, cli, ok_reply
from tests.llm.loopback import LoopbackServer
from tests.runtime.web.sites import Site


@pytest.fixture
async def provider() -> AsyncIterator[LoopbackServer]:
    reply = ok_reply()  # first: it skips without ../shared, before a socket is open
    server = LoopbackServer()
    await server.start()
    server.replies = [reply]
    yield server
    await server.stop()


def config(path: Path, provider: LoopbackServer, web_table: str) -> Path:
    path.write_text(
        f"""
[providers.main]
api = "anthropic"
base_url = "{provider.base_url}"
api_key = "{GOOD_KEY}"
[models.claude]
provider = "main"
model = "claude-haiku-4-5"
[web]
{web_table}
"""
    )
    return path


async def test_the_search_backend_is_asked_and_the_fetch_listed(
    provider: LoopbackServer, tmp_path: Path
) -> None:
    async def search(request: web.Request) -> web.Response:
        assert request.query["format"] == "json"
        result = {"url": "https://example.org/", "title": "Example", "content": "text"}
        return web.json_response({"results": [result], "answers": []})

    searxng = await Site({"/search": search}).start()
    try:
        table = (
            f'search = "searxng"\nsearch_url = "{searxng.url("")}"\nfetch = true\n'
            'private_hosts = ["wiki.corp.example"]'
        )
        code, out, err = await cli(
            "--config", str(config(tmp_path / "c.toml", provider, table)), "check"
        )
    finally:
        await searxng.stop()
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[-1] == "1 provider answered"
    assert lines[-3].startswith("web search  searxng  ok      1 references in ")
    assert lines[-2] == (
        "web fetch   on       ok      30 s, first byte 10 s, 5 MiB, 100000 characters, "
        "5 redirects; private hosts: wiki.corp.example"
    )
    assert searxng.hits == ["/search?q=cursor-byok&format=json"]


async def test_a_search_without_its_key_fails_naming_the_variable(
    provider: LoopbackServer, tmp_path: Path
) -> None:
    table = 'search = "tavily"\nsearch_key_env = "MY_TAVILY_KEY"'
    code, out, err = await cli(
        "--config", str(config(tmp_path / "c.toml", provider, table)), "check"
    )
    assert code == 1, out + err
    assert "web search  tavily   FAILED  no key: set MY_TAVILY_KEY in the environment" in out
