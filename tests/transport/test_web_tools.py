"""WebSearch and WebFetch as tools, against real local sites: a backend's
429 or 5xx is tried once more and then said plainly on the card, another
4xx is not retried, the model reads the references as Title / URL /
Content blocks, and an answer that is no approval counts as a rejection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web

from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.state import ConversationState
from cursor_byok.runtime.web.backends import SearxngSearch
from cursor_byok.runtime.web.limits import SearchLimits
from cursor_byok.runtime.web.search import Reference
from cursor_byok.transport.dialect import web_tools
from cursor_byok.transport.dialect.server_tool import QueryWaits
from cursor_byok.transport.dialect.tool_base import ToolOutcome
from cursor_byok.transport.dialect.web_tools import WebFetch, WebSearch, search_text
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.runtime.web.sites import Site, loopback_allowed

FOUND = {"results": [{"title": "Docs", "url": "https://docs.example/", "content": "Text."}]}


class Approving:
    """The part of the session a run uses: every query answered with `answer`."""

    def __init__(self, answer: Callable[[pb.InteractionQuery], pb.InteractionResponse]) -> None:
        self.answer = answer
        self.sent: list[str] = []
        self.conversation_id = "c"
        self.state = ConversationState("c")

    mode = "agent"
    waits = QueryWaits()

    def now_ms(self) -> int:
        return 0

    def answers(self, query: str) -> bool:
        return True

    def send(self, message: pb.AgentServerMessage) -> None:
        self.sent.append(message.WhichOneof("message") or "")

    def started(self) -> None:
        self.sent.append("started")

    async def ask(self, query: pb.InteractionQuery, timeout_s: float) -> pb.InteractionResponse:
        self.sent.append(query.WhichOneof("query") or "")
        return self.answer(query)

    project_folder = ""

    async def write(self, path: str, text: str, timeout_s: float) -> pb.WriteResult | None:
        self.sent.append("write")
        return None


def approve(query: pb.InteractionQuery) -> pb.InteractionResponse:
    response = pb.InteractionResponse(id=query.id)
    kind = (query.WhichOneof("query") or "").replace("_query", "_response")
    getattr(response, kind).approved.SetInParent()
    return response


@asynccontextmanager
async def backend(statuses: list[int]) -> AsyncIterator[tuple[Site, WebSearch]]:
    """A SearXNG-like site answering each search with the next status."""

    async def search(_request: web.Request) -> web.Response:
        status = statuses.pop(0) if statuses else 200
        if status != 200:
            return web.json_response({"error": f"status {status}"}, status=status)
        return web.json_response(FOUND)

    site = await Site({"/search": search}).start()
    try:
        yield site, WebSearch(SearxngSearch(site.url("")), SearchLimits())
    finally:
        await site.stop()


@pytest.fixture(autouse=True)
def quick_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_tools, "RETRY_AFTER_S", 0.01)


SEARCH = ToolCall("call_1", "WebSearch", {"query": "parser"})


@pytest.mark.parametrize("status", [429, 503])
async def test_a_busy_backend_is_asked_once_more(status: int) -> None:
    async with backend([status]) as (site, tool):
        outcome = await tool.run(SEARCH, Approving(approve))
    assert len(site.hits) == 2
    assert outcome.card.web_search_tool_call.result.success.references[0].title == "Docs"
    assert outcome.outcome.is_error is False


async def test_a_backend_busy_twice_is_an_error_the_card_and_model_read() -> None:
    async with backend([429, 429]) as (site, tool):
        outcome = await tool.run(SEARCH, Approving(approve))
    assert len(site.hits) == 2
    error = outcome.card.web_search_tool_call.result.error.error
    assert error == "SearXNG answered HTTP 429: status 429"
    assert outcome.outcome == ToolOutcome(f"The search failed: {error}", True)


async def test_another_client_error_is_not_retried() -> None:
    async with backend([400]) as (site, tool):
        outcome = await tool.run(SEARCH, Approving(approve))
    assert len(site.hits) == 1
    assert "HTTP 400" in outcome.card.web_search_tool_call.result.error.error


async def test_a_search_without_a_term_asks_nothing() -> None:
    async with backend([]) as (site, tool):
        context = Approving(approve)
        outcome = await tool.run(ToolCall("call_2", "WebSearch", {}), context)
    assert context.sent == [] and site.hits == []
    assert "search_term" in outcome.card.web_search_tool_call.result.error.error


def test_the_model_reads_each_reference_as_a_block() -> None:
    found = [Reference("A", "https://a/", "one"), Reference("B", "https://b/", "two")]
    assert search_text(found) == (
        "Title: A\nURL: https://a/\nContent: one\n\n---\n\nTitle: B\nURL: https://b/\nContent: two"
    )
    assert search_text([]) == "The search found nothing."


async def test_an_answer_that_is_no_approval_is_a_rejection() -> None:
    def wrong(query: pb.InteractionQuery) -> pb.InteractionResponse:
        response = pb.InteractionResponse(id=query.id)
        response.web_search_request_response.approved.SetInParent()  # the search's, not the fetch's
        return response

    tool = WebFetch(loopback_allowed())
    context: Any = Approving(wrong)
    fetch = ToolCall("call_3", "WebFetch", {"url": "http://127.0.0.1:1/"})
    outcome = await tool.run(fetch, context)
    rejected = outcome.card.web_fetch_tool_call.result.rejected
    assert rejected.reason == "the client answered something other than an approval"
    assert outcome.outcome.is_error


async def test_without_a_backend_a_search_on_another_api_says_why() -> None:
    """Provider search with no backend: an API without a search of its own
    calls the tool, which says there is nothing to search with."""
    tool = WebSearch(None, SearchLimits(), provider=True)
    assert tool.definition().native == "web_search"
    context = Approving(approve)
    outcome = await tool.run(SEARCH, context)
    assert outcome.card.web_search_tool_call.result.error.error == web_tools.NO_BACKEND
    assert context.sent == [], "nothing to approve"
