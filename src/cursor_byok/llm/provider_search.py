"""The searches a provider ran itself, read from the blocks it wrote
(`ProviderBlock`): what was searched and what came back, for the client's
search card and for `show`. The blocks stay as they came; this only reads
them, and reads leniently (a shape it does not know is no search)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cursor_byok.llm.types import AssistantContent, ProviderBlock


@dataclass(frozen=True, slots=True)
class ProviderSearch:
    """One search: its id, its query, and (title, url, text) per result;
    `error` when the provider says it failed."""

    call_id: str
    query: str
    references: tuple[tuple[str, str, str], ...] = ()
    error: str | None = None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _anthropic(doc: dict[str, Any], queries: dict[str, str]) -> ProviderSearch | None:
    """`server_tool_use` (name web_search) remembers its query; the
    `web_search_tool_result` naming it is the search."""
    kind = doc.get("type")
    if kind == "server_tool_use" and doc.get("name") == "web_search":
        given = doc.get("input")
        queries[_text(doc.get("id"))] = _text(given.get("query")) if isinstance(given, dict) else ""
        return None
    if kind != "web_search_tool_result":
        return None
    call_id = _text(doc.get("tool_use_id"))
    query = queries.pop(call_id, "")
    content = doc.get("content")
    if isinstance(content, dict):
        return ProviderSearch(call_id, query, error=_text(content.get("error_code")) or "failed")
    results = [r for r in content if isinstance(r, dict)] if isinstance(content, list) else []
    found = tuple(
        (_text(r.get("title")), _text(r.get("url")), _text(r.get("page_age"))) for r in results
    )
    return ProviderSearch(call_id, query, found)


def _openai(doc: dict[str, Any]) -> ProviderSearch | None:
    """A `web_search_call` whose action is a search: its query (`queries`,
    or the older `query`) and the sources it read (URLs, no titles)."""
    if doc.get("type") != "web_search_call":
        return None
    found = doc.get("action")
    action: dict[str, Any] = found if isinstance(found, dict) else {}
    if action.get("type") not in (None, "search"):
        return None  # opening or finding in a page: no search of its own
    queries = action.get("queries")
    listed = [q for q in queries if isinstance(q, str)] if isinstance(queries, list) else []
    query = _text(action.get("query")) or "; ".join(listed)
    if doc.get("status") == "failed":
        return ProviderSearch(_text(doc.get("id")), query, error="failed")
    sources = action.get("sources")
    read = [s for s in sources if isinstance(s, dict)] if isinstance(sources, list) else []
    urls = [_text(s.get("url")) for s in read]
    return ProviderSearch(_text(doc.get("id")), query, tuple((u, u, "") for u in urls if u))


def _gemini(doc: dict[str, Any], calls: dict[str, str], raw: str) -> ProviderSearch | None:
    """A `toolCall` part names the search (its id); the response's
    `groundingMetadata` is the search: its queries, and a `web {uri,
    title}` per source (`groundingChunks`). A model that grounds without
    showing its call gets an id made from the metadata (the same each time)."""
    call = doc.get("toolCall")
    if isinstance(call, dict):
        calls["gemini"] = _text(call.get("id"))
        return None
    grounding = doc.get("groundingMetadata")
    if not isinstance(grounding, dict):
        return None
    asked = grounding.get("webSearchQueries")
    query = "; ".join(q for q in asked if isinstance(q, str)) if isinstance(asked, list) else ""
    chunks = grounding.get("groundingChunks")
    webs = [c.get("web") for c in chunks if isinstance(c, dict)] if isinstance(chunks, list) else []
    found = tuple(
        (_text(w.get("title")), _text(w.get("uri")), "") for w in webs if isinstance(w, dict)
    )
    call_id = (
        calls.pop("gemini", "") or "grounding_" + hashlib.sha256(raw.encode()).hexdigest()[:16]
    )
    return ProviderSearch(call_id, query, found)


def searches(content: Iterable[AssistantContent]) -> list[ProviderSearch]:
    """The provider's searches among `content`, in order."""
    queries: dict[str, str] = {}
    found: list[ProviderSearch] = []
    for block in content:
        if not isinstance(block, ProviderBlock):
            continue
        try:
            doc = json.loads(block.raw)
        except ValueError:
            continue
        if not isinstance(doc, dict):
            continue
        if block.api == "anthropic-messages":
            search = _anthropic(doc, queries)
        elif block.api == "openai-responses":
            search = _openai(doc)
        elif block.api == "google-generative-ai":
            search = _gemini(doc, queries, block.raw)
        else:
            search = None
        if search is not None:
            found.append(search)
    return found
