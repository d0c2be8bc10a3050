"""WebSearch and WebFetch through the real server, against both test
clients in each codec: the server asks the client's approval (search before
its card, fetch after), fetches a page from a local site (opened by the
private allow-list, as a team opens its intranet) or asks a local
SearXNG-like JSON API, and gives the model the result; a rejection, a
private address and an unanswered query each end the call with words the
model reads. The tools are offered only with [web] turned on, the run's
request-context switch on, and a client that draws the card and answers
the query (never WebFetch to the Nov-2025 CLI)."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from cursor_byok.cli.main import main
from cursor_byok.llm.types import ProviderBlock, TextContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.web.backends import SearxngSearch
from cursor_byok.runtime.web.limits import SearchLimits
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.tool_base import Tool
from cursor_byok.transport.dialect.web_tools import WebFetch, WebSearch
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e import official_cli
from tests.e2e.independent_cli import CODECS, OfficialCli, Run
from tests.e2e.test_official_cli import answer, call, uses
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM
from tests.runtime.web.sites import Site, loopback_allowed

IDE = {"x-cursor-client-type": "ide", "x-cursor-client-version": "3.14.7"}
PAGE = (
    "<html><head><title>Guide</title><script>track()</script></head>"
    "<body><h1>Install</h1><p>Run <code>pip install parser</code>.</p></body></html>"
)
RESULTS = {
    "results": [
        {
            "title": "Parser docs",
            "url": "https://docs.example/parser",
            "content": "The parser reads tokens one by one.",
        },
        {"title": "Changelog", "url": "https://docs.example/changes", "content": "2.0: faster."},
    ]
}


@dataclass
class WebRig:
    url: str
    service: Service
    llm: ScriptedLLM
    site: Site
    closed: asyncio.Event

    def request(self, index: int) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.llm.requests[index][1])
        return loaded

    def offered(self, index: int) -> set[str]:
        return {tool["name"] for tool in self.request(index)["tools"]}

    def tool_result(self, index: int) -> dict[str, Any]:
        """The last tool result the model read in request `index`."""
        messages = self.request(index)["messages"]
        found: dict[str, Any] = [m for m in messages if m["role"] == "toolResult"][-1]
        return found

    def tool_text(self, index: int) -> str:
        return "".join(part["text"] for part in self.tool_result(index)["content"])


async def _page(_request: web.Request) -> web.Response:
    return web.Response(text=PAGE, content_type="text/html")


async def _search(_request: web.Request) -> web.Response:
    return web.json_response(RESULTS)


@asynccontextmanager
async def web_rig(
    tmp_path: Path,
    scripts: list[Any],
    tools: str = "search fetch",
    approval_s: float = 60.0,
    provider_search: bool = False,
) -> AsyncIterator[WebRig]:
    """A server whose [web] turns on the `tools` named, against a local site."""
    closed = asyncio.Event()

    async def slow(request: web.Request) -> web.StreamResponse:
        """A page that drips in until the fetcher hangs up (`closed`)."""
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        await response.prepare(request)
        try:
            for _ in range(400):
                await response.write(b"<p>more</p>")
                await asyncio.sleep(0.05)
        except ConnectionError:
            closed.set()
        return response

    site = await Site({"/page": _page, "/search": _search, "/slow": slow}).start()
    made: list[Tool] = []
    if "search" in tools:
        backend = SearxngSearch(site.url(""))
        made.append(WebSearch(backend, SearchLimits(), approval_s, provider=provider_search))
    if "fetch" in tools:
        made.append(WebFetch(loopback_allowed(), approval_s))
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM(scripts)
    service = build_service(
        store, llm, retry=RetryPolicy(1, 0.001, 0.01), heartbeat_s=0.3, server_tools=made
    )
    try:
        async with serving(service) as url:
            yield WebRig(url, service, llm, site, closed)
    finally:
        store.close()
        await site.stop()


def web_action(cli: OfficialCli, text: str, search: bool, fetch: bool) -> pb.ConversationAction:
    action = cli.user_action(text)
    context = action.user_message_action.request_context
    context.web_search_enabled, context.web_fetch_enabled = search, fetch
    return action


async def newer_turn(
    rig: WebRig, codec: str, tmp_path: Path, text: str, rejects: str | None = None, **cli: Any
) -> Run:
    """One turn of a newer client (IDE 3.x) with both switches on."""
    async with OfficialCli(rig.url, codec, tmp_path) as client:
        client.client_headers = IDE
        client.rejects_web = rejects
        for name, value in cli.items():
            setattr(client, name, value)
        return await client.start("conv-web", "m", web_action(client, text, True, True)).finish()


def cards(run: Run, member: str) -> list[tuple[str, pb.ToolCall]]:
    """(kind, card) of every started/completed card of the ToolCall `member`."""
    return [
        (kind, message.tool_call)
        for kind, message in run.events
        if kind in ("tool_call_started", "tool_call_completed")
        and message.tool_call.HasField(member)
    ]


def order(run: Run, member: str, query: str) -> list[str]:
    """The cards of `member` and the queries of `query`, in arrival order."""
    seen = []
    for kind, message in run.events:
        if kind == "interaction_query" and message.WhichOneof("query") == query:
            seen.append("query")
        elif kind in ("tool_call_started", "tool_call_completed") and message.tool_call.HasField(
            member
        ):
            seen.append(kind.removeprefix("tool_call_"))
    return seen


def completed(run: Run, member: str) -> Any:
    [(_, card)] = [(k, c) for k, c in cards(run, member) if k == "tool_call_completed"]
    return getattr(card, member)


# -- fetch ---------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_an_approved_fetch_shows_its_card_asks_then_reads_the_page(
    tmp_path: Path, codec: str
) -> None:
    async with web_rig(tmp_path, []) as rig:
        url = rig.site.url("/page")
        rig.llm.scripts += [uses(call("call_f1", "WebFetch", url=url)), answer("Done.")]
        run = await newer_turn(rig, codec, tmp_path, "read the guide", answer_after_s=1.0)
    assert run.errors == [] and run.end is not None and run.end.ok
    assert order(run, "web_fetch_tool_call", "web_fetch_request_query") == [
        "started",
        "query",
        "completed",
    ]
    [query] = run.of("interaction_query")
    asked = query.web_fetch_request_query
    assert (asked.args.url, asked.args.tool_call_id, asked.skip_approval) == (url, "call_f1", False)
    kinds = [kind for kind, _ in run.events]
    asked_at = kinds.index("interaction_query")
    between = kinds[asked_at : kinds.index("tool_call_completed", asked_at)]
    assert "heartbeat" in between, "heartbeats while the user decides"
    success = completed(run, "web_fetch_tool_call").result.success
    assert success.url == url and "# Install" in success.markdown
    assert "track()" not in success.markdown
    assert rig.site.hits == ["/page"]
    text = rig.tool_text(1)
    assert text.startswith(f"# Content from {url}\n\n# Install")
    assert rig.tool_result(1)["isError"] is False


@pytest.mark.parametrize("codec", CODECS)
async def test_a_rejected_fetch_fetches_nothing_and_the_model_is_told(
    tmp_path: Path, codec: str
) -> None:
    async with web_rig(tmp_path, []) as rig:
        url = rig.site.url("/page")
        rig.llm.scripts += [uses(call("call_f2", "WebFetch", url=url)), answer("Fine.")]
        run = await newer_turn(rig, codec, tmp_path, "read the guide", rejects="Not that site")
    assert run.errors == [] and run.end is not None and run.end.ok
    assert completed(run, "web_fetch_tool_call").result.rejected.reason == "Not that site"
    assert rig.site.hits == []
    assert "did not approve fetching" in rig.tool_text(1)
    assert "Not that site" in rig.tool_text(1)
    assert rig.tool_result(1)["isError"] is True


@pytest.mark.parametrize("codec", CODECS)
async def test_a_fetch_of_a_private_address_is_refused_with_the_reason_on_the_card(
    tmp_path: Path, codec: str
) -> None:
    async with web_rig(tmp_path, []) as rig:
        url = "http://10.0.0.5/admin"
        rig.llm.scripts += [uses(call("call_f3", "WebFetch", url=url)), answer("Blocked.")]
        run = await newer_turn(rig, codec, tmp_path, "read the admin page")
    assert run.errors == [] and run.end is not None and run.end.ok
    error = completed(run, "web_fetch_tool_call").result.error
    assert error.url == url
    assert error.error.startswith("refused:") and "private" in error.error
    assert error.error in rig.tool_text(1)


async def test_an_unanswered_fetch_ends_as_a_rejection_the_model_is_told(tmp_path: Path) -> None:
    async with web_rig(tmp_path, [], approval_s=0.5) as rig:
        url = rig.site.url("/page")
        rig.llm.scripts += [uses(call("call_f4", "WebFetch", url=url)), answer("Later.")]
        run = await newer_turn(rig, "proto", tmp_path, "read the guide", answer_after_s=None)
    assert run.end is not None and run.end.ok
    reason = completed(run, "web_fetch_tool_call").result.rejected.reason
    assert reason == "no approval came within 0.5 s"
    assert reason in rig.tool_text(1) and rig.site.hits == []


async def test_a_cancel_stops_a_fetch_under_way(tmp_path: Path) -> None:
    async with web_rig(tmp_path, []) as rig:
        url = rig.site.url("/slow")
        rig.llm.scripts += [uses(call("call_f5", "WebFetch", url=url))]
        async with OfficialCli(rig.url, "proto", tmp_path) as client:
            client.client_headers = IDE
            action = web_action(client, "read it", True, True)
            handle = client.start("conv-cancel", "m", action)
            await handle.until(lambda _run: "/slow" in rig.site.hits)
            cancel = pb.ConversationAction()
            cancel.cancel_action.reason = "user"
            handle.append_action(cancel)
            run = await handle.finish()
            await asyncio.wait_for(rig.closed.wait(), 10)
    assert run.end is not None and not run.end.ok
    assert [d.details.detail for d in run.end.details] == ["User aborted request"]


# -- search --------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_an_approved_search_asks_first_then_shows_the_references(
    tmp_path: Path, codec: str
) -> None:
    async with web_rig(tmp_path, []) as rig:
        search = call("call_s1", "WebSearch", search_term="parser tokens")
        rig.llm.scripts += [uses(search), answer("Found it.")]
        run = await newer_turn(rig, codec, tmp_path, "how does the parser work?")
    assert run.errors == [] and run.end is not None and run.end.ok
    assert order(run, "web_search_tool_call", "web_search_request_query") == [
        "query",
        "started",
        "completed",
    ]
    [query] = run.of("interaction_query")
    args = query.web_search_request_query.args
    assert (args.search_term, args.tool_call_id) == ("parser tokens", "call_s1")
    references = completed(run, "web_search_tool_call").result.success.references
    assert [(r.title, r.url) for r in references] == [
        ("Parser docs", "https://docs.example/parser"),
        ("Changelog", "https://docs.example/changes"),
    ]
    assert rig.site.hits == ["/search?q=parser+tokens&format=json"]
    assert rig.tool_text(1) == (
        "Title: Parser docs\nURL: https://docs.example/parser\n"
        "Content: The parser reads tokens one by one.\n\n---\n\n"
        "Title: Changelog\nURL: https://docs.example/changes\nContent: 2.0: faster."
    )


@pytest.mark.parametrize("codec", CODECS)
async def test_the_nov_2025_cli_rejects_every_search(tmp_path: Path, codec: str) -> None:
    """Its TUI answers "User Rejected" (the CLI never sets the switch itself;
    a request context that does is taken at its word)."""
    async with web_rig(tmp_path, []) as rig:
        search = call("call_s2", "WebSearch", search_term="parser tokens")
        rig.llm.scripts += [uses(search), answer("OK.")]
        cli = official_cli.OfficialCli(rig.url, codec, tmp_path)
        cli.context.web_search_enabled = cli.context.web_fetch_enabled = True
        try:
            turn = await cli.run(official_cli.user_message("search", cli.context), "m")
        finally:
            await cli.close()
    assert turn.violations == [] and turn.error is None
    assert [q.WhichOneof("query") for q in turn.queries] == ["web_search_request_query"]
    assert "WebFetch" not in rig.offered(0), "the Nov-2025 CLI draws no fetch card"
    [started, done] = [c for c in turn.cards if c.WhichOneof("message") != "partial_tool_call"]
    assert started.WhichOneof("message") == "tool_call_started"
    card = done.tool_call_completed.tool_call.web_search_tool_call
    assert card.result.rejected.reason == "User Rejected"
    assert turn.order.index("interaction_query") < turn.order.index("tool_call_started")
    assert rig.site.hits == []
    assert "did not approve the web search" in rig.tool_text(1)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_search_rejected_by_a_newer_client(tmp_path: Path, codec: str) -> None:
    async with web_rig(tmp_path, []) as rig:
        search = call("call_s3", "WebSearch", search_term="parser tokens")
        rig.llm.scripts += [uses(search), answer("OK.")]
        run = await newer_turn(rig, codec, tmp_path, "search", rejects="No searching")
    assert run.errors == [] and run.end is not None and run.end.ok
    assert order(run, "web_search_tool_call", "web_search_request_query") == [
        "query",
        "started",
        "completed",
    ]
    assert completed(run, "web_search_tool_call").result.rejected.reason == "No searching"
    assert rig.site.hits == []


# -- what is offered -----------------------------------------------------------------------


async def offered_to(
    tmp_path: Path, tools: str, headers: dict[str, str], switches: Sequence[bool | None]
) -> set[str]:
    """The web tools one run is offered."""
    async with web_rig(tmp_path, [answer("Hi.")], tools=tools) as rig:
        async with OfficialCli(rig.url, "proto", tmp_path) as client:
            client.client_headers = headers
            action = client.user_action("hi")
            context = action.user_message_action.request_context
            search, fetch = switches
            if search is not None:
                context.web_search_enabled = search
            if fetch is not None:
                context.web_fetch_enabled = fetch
            run = await client.start("conv-offer", "m", action).finish()
        assert run.end is not None and run.end.ok
        return rig.offered(0) & {"WebSearch", "WebFetch"}


NOV_2025: dict[str, str] = {}


@pytest.mark.parametrize(
    ("tools", "headers", "switches", "expected"),
    [
        ("search fetch", IDE, (True, True), {"WebSearch", "WebFetch"}),
        ("", IDE, (True, True), set()),
        ("search fetch", IDE, (None, None), set()),
        ("search fetch", IDE, (False, True), {"WebFetch"}),
        ("search fetch", IDE, (True, False), {"WebSearch"}),
        ("fetch", IDE, (True, True), {"WebFetch"}),
        ("search fetch", NOV_2025, (True, True), {"WebSearch"}),
    ],
    ids=[
        "both",
        "no-web-table",
        "no-switches",
        "search-off",
        "fetch-off",
        "no-backend",
        "nov-2025-cli",
    ],
)
async def test_the_web_tools_are_offered_only_when_everything_allows_them(
    tmp_path: Path,
    tools: str,
    headers: dict[str, str],
    switches: tuple[bool | None, bool | None],
    expected: set[str],
) -> None:
    assert await offered_to(tmp_path, tools, headers, switches) == expected


# -- show ----------------------------------------------------------------------------------


async def test_show_prints_the_searches_and_fetches(tmp_path: Path) -> None:
    async with web_rig(tmp_path, []) as rig:
        url = rig.site.url("/page")
        rig.llm.scripts += [
            uses(call("call_s9", "WebSearch", search_term="parser tokens")),
            uses(call("call_f9", "WebFetch", url=url)),
            uses(call("call_f10", "WebFetch", url="http://10.0.0.5/")),
            answer("Done."),
        ]
        run = await newer_turn(rig, "proto", tmp_path, "look it up")
    assert run.errors == [] and run.end is not None and run.end.ok
    out = io.StringIO()
    assert main(["show", "conv-web", "--database", str(tmp_path / "db.sqlite3")], out=out) == 0
    shown = out.getvalue()
    assert 'assistant  Let me check.  -> WebSearch "parser tokens"' in shown
    assert "tool       WebSearch: 2 results" in shown
    assert f'-> WebFetch "{url}"' in shown
    assert f"tool       WebFetch: {url} (" in shown
    assert "tool       WebFetch (error): The fetch of http://10.0.0.5/ failed: refused:" in shown


# -- the provider's own search -------------------------------------------------------------


async def test_a_search_the_provider_ran_is_drawn_as_a_search_card(tmp_path: Path) -> None:
    """With `provider_search` the model's API searches itself (Anthropic's
    blocks here): no approval can be asked first, the client sees the search
    card with the provider's results, and show prints the search."""
    use: dict[str, Any] = {"type": "server_tool_use", "id": "srvtoolu_01A", "name": "web_search"}
    use["input"] = {"query": "parser tokens"}
    found = {"type": "web_search_result", "url": "https://docs.example/parser"}
    found |= {"title": "Parser docs", "encrypted_content": "Eqg=", "page_age": "2 days ago"}
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01A", "content": [found]}
    blocks = [ProviderBlock("anthropic-messages", json.dumps(b)) for b in (use, result)]
    message = replace(assistant(*blocks, TextContent("It reads tokens.")), api="anthropic-messages")
    async with web_rig(tmp_path, [stream_of(message)], provider_search=True) as rig:
        run = await newer_turn(rig, "proto", tmp_path, "how does the parser work?")
    assert run.errors == [] and run.end is not None and run.end.ok
    assert run.of("interaction_query") == []
    assert order(run, "web_search_tool_call", "web_search_request_query") == [
        "started",
        "completed",
    ]
    card = completed(run, "web_search_tool_call")
    assert (card.args.search_term, card.args.tool_call_id) == ("parser tokens", "srvtoolu_01A")
    [reference] = card.result.success.references
    assert (reference.title, reference.url) == ("Parser docs", "https://docs.example/parser")
    [tool] = [t for t in rig.request(0)["tools"] if t["name"] == "WebSearch"]
    assert tool["native"] == "web_search", "adapters with a search of their own use it"
    assert rig.site.hits == []
    out = io.StringIO()
    assert main(["show", "conv-web", "--database", str(tmp_path / "db.sqlite3")], out=out) == 0
    assert 'web search "parser tokens" by the provider' in out.getvalue()
