"""Web search behind one small protocol: a query in, references out.

A backend is a configured service the operator trusts (their SearXNG, a
hosted API), so its requests go out as they are, without the fetch's
address checks. Whatever goes wrong becomes a `SearchError` saying it the
way the service did: 429 and 5xx (and the network) retryable, any other
4xx with the service's own message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from cursor_byok.runtime.web.limits import SearchLimits

SUMMARY_TITLE = "Web search results"
"""The title of the reference that carries a backend's own answer, first,
with no URL (the official harness's form)."""


@dataclass(frozen=True, slots=True)
class Reference:
    """One search result: `chunk` is the text the model reads."""

    title: str
    url: str
    chunk: str


class SearchError(Exception):
    """A search that gave no results; `message` is for the card."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable


class SearchBackend(Protocol):
    """What the WebSearch tool calls."""

    @property
    def name(self) -> str:
        """The service, as messages name it ("SearXNG", "Tavily")."""
        ...

    async def search(self, query: str, limits: SearchLimits) -> list[Reference]: ...


def retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


def provider_message(body: bytes) -> str | None:
    """The message in an error body, in the shapes services use:
    {"detail": {"error": ...}}, {"detail": ...}, {"error": {"message": ...}},
    {"error": ...}, {"message": ...}; else the body's first line."""
    try:
        doc: Any = json.loads(body)
    except ValueError:
        text = body.decode("utf-8", errors="replace").strip()
        return text.splitlines()[0][:300] if text else None
    for key in ("detail", "error", "message"):
        value = doc.get(key) if isinstance(doc, dict) else None
        if isinstance(value, dict):
            value = value.get("error") or value.get("message")
        if isinstance(value, str) and value.strip():
            return value.strip()[:300]
    return None


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " [cut]"


def references(
    items: list[tuple[str, str, str]], summary: str | None, limits: SearchLimits
) -> list[Reference]:
    """(title, url, chunk) results as references: the summary first when
    there is one, then at most `max_results`, each chunk cut to the limit."""
    found = [Reference(SUMMARY_TITLE, "", clip(summary, limits.max_chunk_chars))] if summary else []
    for title, url, chunk in items[: limits.max_results]:
        found.append(Reference(title or url, url, clip(chunk, limits.max_chunk_chars)))
    return found


async def request_json(
    service: str,
    method: str,
    url: str,
    limits: SearchLimits,
    *,
    params: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    body: Any = None,
    secret: str | None = None,
) -> Any:
    """One request to a search service; its JSON answer, or `SearchError`.
    `secret` (the key) is cut out of any message the service sends back."""
    import aiohttp  # noqa: PLC0415 - loaded when a search runs

    def scrub(text: str) -> str:
        return text.replace(secret, "***") if secret else text

    try:
        async with (
            asyncio.timeout(limits.timeout_s),
            aiohttp.ClientSession(trust_env=False) as session,
            session.request(
                method,
                url,
                params=params,
                headers=headers,
                json=body,
                allow_redirects=False,
            ) as response,
        ):
            data = await response.content.read(limits.max_response_bytes + 1)
            status = response.status
    except TimeoutError:
        raise SearchError(
            f"{service} did not answer within {limits.timeout_s:g} s", retryable=True
        ) from None
    except (OSError, aiohttp.ClientError) as error:
        raise SearchError(
            f"{service} could not be reached: {scrub(str(error))}", retryable=True
        ) from None
    if status >= 300:
        detail = provider_message(data)
        text = f"{service} answered HTTP {status}" + (f": {scrub(detail)}" if detail else "")
        raise SearchError(text, status=status, retryable=retryable(status))
    if len(data) > limits.max_response_bytes:
        raise SearchError(f"{service}'s answer is larger than the limit", retryable=False)
    try:
        return json.loads(data)
    except ValueError:
        raise SearchError(
            f"{service} answered with something other than JSON", retryable=False
        ) from None
