"""The search backends against real servers on loopback that answer as
SearXNG's JSON API and Tavily's do: results become references (the
service's own answer first), errors say what the service said, 429 and 5xx
are retryable, a key never shows in a message."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from cursor_byok.runtime.web.backends import SearxngSearch, TavilySearch
from cursor_byok.runtime.web.limits import SearchLimits
from cursor_byok.runtime.web.search import SUMMARY_TITLE, Reference, SearchError
from tests.runtime.web.sites import Site

KEY = "tvly-planted-key-0123456789"
SEARXNG_ANSWER = {
    "query": "aiohttp resolver",
    "number_of_results": 3,
    "results": [
        {
            "url": "https://docs.aiohttp.org/en/stable/client_reference.html",
            "title": "Client Reference",
            "content": "AbstractResolver ... resolve(host, port, family)",
            "engine": "duckduckgo",
        },
        {"url": "https://example.org/b", "title": "", "content": "untitled"},
        {"title": "no url, dropped", "content": "x"},
        {"url": "https://example.org/c", "title": "C", "content": "c" * 50},
    ],
    "answers": ["aiohttp takes a resolver per connector."],
    "unresponsive_engines": [],
}


class Replies:
    """What the fake service answers next, and what it was asked."""

    def __init__(self) -> None:
        self.next: list[web.Response] = []
        self.asked: list[dict[str, Any]] = []

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json() if request.method == "POST" else None
        self.asked.append(
            {
                "query": dict(request.query),
                "auth": request.headers.get("Authorization"),
                "body": body,
            }
        )
        return self.next.pop(0)


def answer(doc: Any, status: int = 200) -> web.Response:
    return web.json_response(doc, status=status)


@pytest.fixture
async def service() -> AsyncIterator[tuple[Site, Replies]]:
    replies = Replies()
    site = await Site({"/search": replies.handle, "POST /search": replies.handle}).start()
    yield site, replies
    await site.stop()


async def test_searxng_results_become_references_with_its_answer_first(
    service: tuple[Site, Replies],
) -> None:
    site, replies = service
    replies.next.append(answer(SEARXNG_ANSWER))
    found = await SearxngSearch(site.url("/")).search(
        "aiohttp resolver", SearchLimits(max_chunk_chars=20)
    )
    assert found == [
        Reference(SUMMARY_TITLE, "", "aiohttp takes a reso [cut]"),
        Reference(
            "Client Reference",
            "https://docs.aiohttp.org/en/stable/client_reference.html",
            "AbstractResolver ... [cut]",
        ),
        Reference("https://example.org/b", "https://example.org/b", "untitled"),
        Reference("C", "https://example.org/c", "c" * 20 + " [cut]"),
    ]
    assert replies.asked[0]["query"] == {"q": "aiohttp resolver", "format": "json"}


async def test_searxng_keeps_at_most_max_results(service: tuple[Site, Replies]) -> None:
    site, replies = service
    replies.next.append(answer({**SEARXNG_ANSWER, "answers": []}))
    found = await SearxngSearch(site.url("")).search("q", SearchLimits(max_results=2))
    assert [r.url for r in found] == [
        "https://docs.aiohttp.org/en/stable/client_reference.html",
        "https://example.org/b",
    ]


async def test_searxng_without_the_json_format_says_where_to_enable_it(
    service: tuple[Site, Replies],
) -> None:
    site, replies = service
    replies.next.append(web.Response(status=403, text="Forbidden"))
    with pytest.raises(SearchError) as raised:
        await SearxngSearch(site.url("")).search("q", SearchLimits())
    assert raised.value.message == (
        "SearXNG answered HTTP 403: Forbidden "
        "(does its settings.yml list json under search.formats?)"
    )
    assert (raised.value.status, raised.value.retryable) == (403, False)


async def test_searxng_whose_engines_all_failed_is_a_retryable_error(
    service: tuple[Site, Replies],
) -> None:
    site, replies = service
    replies.next.append(
        answer({"results": [], "answers": [], "unresponsive_engines": [["google", "timeout"]]})
    )
    with pytest.raises(SearchError) as raised:
        await SearxngSearch(site.url("")).search("q", SearchLimits())
    assert raised.value.message == "SearXNG's engines did not answer: google timeout"
    assert raised.value.retryable


@pytest.mark.parametrize(
    ("status", "body", "message", "retryable"),
    [
        (
            429,
            {"detail": {"error": "Rate limit exceeded"}},
            "Tavily answered HTTP 429: Rate limit exceeded",
            True,
        ),
        (500, "oops", "Tavily answered HTTP 500: oops", True),
        (503, {"message": "maintenance"}, "Tavily answered HTTP 503: maintenance", True),
        (
            401,
            {"detail": {"error": "Unauthorized: missing or invalid API key."}},
            "Tavily answered HTTP 401: Unauthorized: missing or invalid API key.",
            False,
        ),
        (
            432,
            {"detail": {"error": "This request exceeds your plan's set usage limit."}},
            "Tavily answered HTTP 432: This request exceeds your plan's set usage limit.",
            False,
        ),
        (400, {"detail": f"bad key {KEY}"}, "Tavily answered HTTP 400: bad key ***", False),
    ],
)
async def test_tavily_errors_say_what_the_service_said(
    service: tuple[Site, Replies], status: int, body: Any, message: str, retryable: bool
) -> None:
    site, replies = service
    text = body if isinstance(body, str) else json.dumps(body)
    replies.next.append(web.Response(status=status, text=text, content_type="application/json"))
    with pytest.raises(SearchError) as raised:
        await TavilySearch(KEY, site.url("")).search("q", SearchLimits())
    assert (raised.value.message, raised.value.status, raised.value.retryable) == (
        message,
        status,
        retryable,
    )
    assert KEY not in str(raised.value)


async def test_tavily_sends_the_key_as_a_bearer_and_reads_results(
    service: tuple[Site, Replies],
) -> None:
    site, replies = service
    replies.next.append(
        answer(
            {
                "query": "q",
                "answer": "Short answer.",
                "results": [
                    {
                        "title": "A",
                        "url": "https://a.example/",
                        "content": "text of a",
                        "score": 0.9,
                    },
                    {
                        "title": "B",
                        "url": "https://b.example/",
                        "content": "text of b",
                        "score": 0.5,
                    },
                ],
                "response_time": "0.9",
            }
        )
    )
    found = await TavilySearch(KEY, site.url("")).search("q", SearchLimits(max_results=30))
    assert found == [
        Reference(SUMMARY_TITLE, "", "Short answer."),
        Reference("A", "https://a.example/", "text of a"),
        Reference("B", "https://b.example/", "text of b"),
    ]
    asked = replies.asked[0]
    assert asked["auth"] == f"Bearer {KEY}"
    assert asked["body"] == {
        "query": "q",
        "max_results": 20,
        "search_depth": "basic",
        "include_answer": True,
    }
    assert KEY not in repr(TavilySearch(KEY))


async def test_an_answer_that_is_no_json_or_too_large_is_an_error(
    service: tuple[Site, Replies],
) -> None:
    site, replies = service
    replies.next.append(web.Response(text="<html>login</html>", content_type="text/html"))
    with pytest.raises(SearchError, match="SearXNG answered with something other than JSON"):
        await SearxngSearch(site.url("")).search("q", SearchLimits())
    replies.next.append(answer({"results": [], "padding": "x" * 5000}))
    with pytest.raises(SearchError, match="larger than the limit"):
        await SearxngSearch(site.url("")).search("q", SearchLimits(max_response_bytes=1000))


async def test_a_service_that_is_down_or_slow_is_retryable() -> None:
    async def slow(request: web.Request) -> web.Response:
        import asyncio  # noqa: PLC0415

        await asyncio.sleep(30)
        return answer({})

    site = await Site({"/search": slow}).start()
    try:
        with pytest.raises(SearchError) as raised:
            await SearxngSearch(site.url("")).search("q", SearchLimits(timeout_s=0.2))
        assert raised.value.message == "SearXNG did not answer within 0.2 s"
        assert raised.value.retryable
    finally:
        await site.stop()
    with pytest.raises(SearchError) as raised:
        await SearxngSearch(site.url("")).search("q", SearchLimits())
    assert raised.value.message.startswith("SearXNG could not be reached: ")
    assert raised.value.retryable
