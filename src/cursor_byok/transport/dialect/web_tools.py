"""`WebSearch` and `WebFetch`: the server reaches the web for the model, as
Cursor's own server does (protocol/agent-features.md §3), once the client
approves each use through an interaction query.

Search asks first and shows its card only once approved (the official
order): query 2 → `tool_call_started` → the backend → `tool_call_completed`
with the references; a rejection completes the card as `rejected`. Fetch
shows its card first: `tool_call_started` → query 9 (`skip_approval`
false) → the fetch (runtime/web: every hop checked) → the completed card
with the page's markdown (a page longer than the cap also whole in a file
of the client's, `output_location`: `web_fetch_file`), the refusal's
reason as `error`, or `rejected`.
No answer within `approval_s` is a rejection the model is told about. Both
are made from the `[web]` configuration (`cli/serve.py`) and offered only
where the client draws their card, answers their query and its request
context turns them on (`clients.Capabilities`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from cursor_byok.llm.types import JSONObject, ToolCall, ToolDefinition
from cursor_byok.runtime.web.limits import FetchLimits, SearchLimits
from cursor_byok.runtime.web.pages import WebPage, read_page
from cursor_byok.runtime.web.search import Reference, SearchBackend, SearchError
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool, ToolContext
from cursor_byok.transport.dialect.tool_base import ToolOutcome, cap, object_schema, str_arg
from cursor_byok.transport.dialect.web_fetch_file import keep_whole, where_the_rest_is
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

APPROVAL_S = 300.0
"""How long a use waits for the user's approval before it counts as rejected."""
RETRY_AFTER_S = 1.0
"""A search the backend refused with 429 or 5xx is tried once more after this."""
NO_ANSWER = "no approval came within {seconds:g} s"
NO_BACKEND = "this model's API has no search of its own and [web] names no search backend"


def _term(arguments: JSONObject) -> str:
    """The search term; models also write `query` or `searchTerm`."""
    for key in ("search_term", "query", "searchTerm"):
        if found := str_arg(arguments, key).strip():
            return found
    return ""


def _rejection(response: pb.InteractionResponse | None, field: str, seconds: float) -> str | None:
    """None when approved; else the reason the use was not approved."""
    if response is None:
        return NO_ANSWER.format(seconds=seconds)
    answer = getattr(response, field)
    if response.WhichOneof("result") == field and answer.WhichOneof("result") == "approved":
        return None
    if response.WhichOneof("result") == field and answer.HasField("rejected"):
        return answer.rejected.reason or "rejected by the user"
    return "the client answered something other than an approval"


def search_text(references: list[Reference]) -> str:
    """What the model reads: Title / URL / Content per reference, `---` between."""
    if not references:
        return "The search found nothing."
    blocks = [f"Title: {r.title}\nURL: {r.url}\nContent: {r.chunk}" for r in references]
    return cap("\n\n---\n\n".join(blocks))


class WebSearch(ServerTool):
    name = "WebSearch"
    description = (
        "Search the web for current information: documentation, release notes, error "
        "messages, anything newer than what you know. The user approves each search. The "
        "result lists each page found with its title, URL and the text that matches."
    )
    parameters = object_schema(
        {
            "search_term": {
                "type": "string",
                "description": "What to search for, as you would type it into a search engine.",
            },
            "explanation": {
                "type": "string",
                "description": "One sentence: why this search helps the task.",
            },
        },
        ["search_term"],
    )
    queries = ("web_search_request_query",)
    started_first = False

    def __init__(
        self,
        backend: SearchBackend | None,
        limits: SearchLimits,
        approval_s: float = APPROVAL_S,
        provider: bool = False,
    ) -> None:
        """`provider`: the model's API runs its own search where it has one
        (no approval is asked then); `backend` serves the other APIs."""
        self.backend = backend
        self.limits = limits
        self.approval_s = approval_s
        self.provider = provider

    def definition(self) -> ToolDefinition:
        native = "web_search" if self.provider else None
        return ToolDefinition(self.name, self.description, self.parameters, native)

    def _args(self, call: ToolCall) -> pb.WebSearchArgs:
        return pb.WebSearchArgs(search_term=_term(call.arguments), tool_call_id=call.id)

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        card = pb.WebSearchToolCall(args=self._args(call))
        if result is not None:
            card.result.CopyFrom(result)
        return pb.ToolCall(web_search_tool_call=card, tool_call_id=call.id)

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        term = _term(call.arguments)
        if not term:
            return self.failed(call, "`search_term` is missing: say what to search for")
        if self.backend is None:
            return self.failed(call, NO_BACKEND)  # nothing to ask the user about
        query = pb.InteractionQuery(web_search_request_query={"args": self._args(call)})
        response = await context.ask(query, self.approval_s)
        reason = _rejection(response, "web_search_request_response", self.approval_s)
        if reason is not None:
            result = pb.WebSearchResult(rejected=pb.WebSearchRejected(reason=reason))
            text = f"The user did not approve the web search for {term!r} ({reason})."
            return ServerOutcome(self.card(call, result), ToolOutcome(text, True))
        context.started()
        try:
            found = await self._search(term)
        except SearchError as error:
            return self.failed(call, error.message)
        references = [pb.WebSearchReference(title=r.title, url=r.url, chunk=r.chunk) for r in found]
        success = pb.WebSearchSuccess(references=references)
        result = pb.WebSearchResult(success=success)
        return ServerOutcome(self.card(call, result), ToolOutcome(search_text(found), False))

    async def _search(self, term: str) -> list[Reference]:
        """The backend's references; a 429 or 5xx is tried once more."""
        if self.backend is None:
            raise SearchError(NO_BACKEND, retryable=False)
        try:
            return await self.backend.search(term, self.limits)
        except SearchError as error:
            if not error.retryable or error.status is None:
                raise
        await asyncio.sleep(RETRY_AFTER_S)
        return await self.backend.search(term, self.limits)

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        result = pb.WebSearchResult(error=pb.WebSearchError(error=error))
        text = f"The search failed: {error}"
        return ServerOutcome(self.card(call, result), ToolOutcome(text, True))


class WebFetch(ServerTool):
    name = "WebFetch"
    description = (
        "Fetch a web page (http or https) and read it as markdown: documentation, an issue, "
        "an article the user names. The user approves each fetch. Private and local "
        "addresses are refused."
    )
    parameters = object_schema(
        {"url": {"type": "string", "description": "The page's full URL."}}, ["url"]
    )
    queries = ("web_fetch_request_query",)

    def __init__(self, limits: FetchLimits, approval_s: float = APPROVAL_S) -> None:
        self.limits = limits
        self.approval_s = approval_s

    def _args(self, call: ToolCall) -> pb.WebFetchArgs:
        return pb.WebFetchArgs(url=str_arg(call.arguments, "url").strip(), tool_call_id=call.id)

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        card = pb.WebFetchToolCall(args=self._args(call))
        if result is not None:
            card.result.CopyFrom(result)
        return pb.ToolCall(web_fetch_tool_call=card, tool_call_id=call.id)

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        url = self._args(call).url
        if not url:
            return self.failed(call, "`url` is missing: give the page's full URL")
        query = pb.InteractionQuery(
            web_fetch_request_query={"args": self._args(call), "skip_approval": False}
        )
        response = await context.ask(query, self.approval_s)
        reason = _rejection(response, "web_fetch_request_response", self.approval_s)
        if reason is not None:
            result = pb.WebFetchResult(rejected=pb.WebFetchRejected(reason=reason))
            text = f"The user did not approve fetching {url} ({reason})."
            return ServerOutcome(self.card(call, result), ToolOutcome(text, True))
        page = await read_page(url, self.limits)
        if not isinstance(page, WebPage):
            return self.failed(call, page.reason)
        success = pb.WebFetchSuccess(url=page.url, markdown=page.markdown)
        text = cap(f"# Content from {page.url}\n\n{page.markdown}")
        location = await keep_whole(page, call.id, context)  # a page the cap cut
        if location is not None:
            success.output_location.CopyFrom(location)
            text += where_the_rest_is(location)
        result = pb.WebFetchResult(success=success)
        return ServerOutcome(self.card(call, result), ToolOutcome(text, False))

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        url = self._args(call).url
        result = pb.WebFetchResult(error=pb.WebFetchError(url=url, error=error))
        text = f"The fetch of {url or 'the page'} failed: {error}"
        return ServerOutcome(self.card(call, result), ToolOutcome(text, True))
