"""The cards of searches the model's provider ran itself (`[web]
provider_search`): the client sees each as a web search card with the
provider's results as references, drawn when the response is complete (the
provider's blocks arrive whole, and no approval can be asked before a
search the provider runs)."""

from __future__ import annotations

from cursor_byok.llm.provider_search import ProviderSearch, searches
from cursor_byok.llm.types import AssistantMessage, ToolCall
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def search_card(search: ProviderSearch, done: bool) -> pb.ToolCall:
    """The card as started, or (`done`) with its result."""
    args = pb.WebSearchArgs(search_term=search.query, tool_call_id=search.call_id)
    card = pb.WebSearchToolCall(args=args)
    if done and search.error is not None:
        card.result.error.error = f"the provider's search failed: {search.error}"
    elif done:
        references = [
            pb.WebSearchReference(title=title, url=url, chunk=chunk)
            for title, url, chunk in search.references
        ]
        card.result.success.references.extend(references)
    return pb.ToolCall(web_search_tool_call=card, tool_call_id=search.call_id)


def provider_searches(message: AssistantMessage) -> list[tuple[ToolCall, pb.ToolCall, pb.ToolCall]]:
    """Each search in `message`: (the call, its started card, its completed card)."""
    return [
        (
            ToolCall(search.call_id, "WebSearch", {}),
            search_card(search, False),
            search_card(search, True),
        )
        for search in searches(message.content)
    ]
