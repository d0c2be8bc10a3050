"""The search backends: SearXNG's JSON API and Tavily's.

SearXNG is free and self-hosted: the operator's instance at `search_url`,
asked `/search?q=...&format=json` (its settings must list `json` under
`search.formats`, else it answers 403, which the error says). Tavily is
the hosted one: made for model agents, its results carry the pages' text
that matches the query rather than a one-line snippet, and its short
answer becomes the first reference, as the official harness sends it. It
needs a key, read from an environment variable (`TAVILY_API_KEY` by
default), never from the configuration file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cursor_byok.runtime.web.limits import SearchLimits
from cursor_byok.runtime.web.search import Reference, SearchError, references, request_json

TAVILY_URL = "https://api.tavily.com"
TAVILY_MAX_RESULTS = 20


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class SearxngSearch:
    """A SearXNG instance's JSON API."""

    base_url: str
    name: str = "SearXNG"

    async def search(self, query: str, limits: SearchLimits) -> list[Reference]:
        try:
            doc = await request_json(
                self.name,
                "GET",
                self.base_url.rstrip("/") + "/search",
                limits,
                params={"q": query, "format": "json"},
                headers={"Accept": "application/json"},
            )
        except SearchError as error:
            if error.status == 403:
                raise SearchError(
                    f"{error.message} (does its settings.yml list json under search.formats?)",
                    status=403,
                    retryable=False,
                ) from None
            raise
        if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
            raise SearchError("SearXNG's answer has no results list", retryable=False)
        results = [r for r in doc["results"] if isinstance(r, dict) and _text(r.get("url"))]
        items = [
            (_text(r.get("title")), _text(r.get("url")), _text(r.get("content"))) for r in results
        ]
        answers = [
            _text(a.get("answer")) if isinstance(a, dict) else _text(a)
            for a in doc.get("answers") or []
        ]
        summary = "\n\n".join(a for a in answers if a) or None
        if not items and not summary and doc.get("unresponsive_engines"):
            engines = ", ".join(
                " ".join(map(str, e)) if isinstance(e, list) else str(e)
                for e in doc["unresponsive_engines"]
            )
            raise SearchError(f"SearXNG's engines did not answer: {engines}", retryable=True)
        return references(items, summary, limits)


@dataclass(frozen=True, slots=True)
class TavilySearch:
    """Tavily's search API (`POST /search`, bearer key)."""

    key: str = field(repr=False)
    base_url: str = TAVILY_URL
    name: str = "Tavily"

    async def search(self, query: str, limits: SearchLimits) -> list[Reference]:
        doc = await request_json(
            self.name,
            "POST",
            self.base_url.rstrip("/") + "/search",
            limits,
            headers={"Authorization": f"Bearer {self.key}"},
            body={
                "query": query,
                "max_results": min(limits.max_results, TAVILY_MAX_RESULTS),
                "search_depth": "basic",
                "include_answer": True,
            },
            secret=self.key,
        )
        if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
            raise SearchError("Tavily's answer has no results list", retryable=False)
        items = [
            (_text(r.get("title")), _text(r.get("url")), _text(r.get("content")))
            for r in doc["results"]
            if isinstance(r, dict) and _text(r.get("url"))
        ]
        return references(items, _text(doc.get("answer")) or None, limits)
