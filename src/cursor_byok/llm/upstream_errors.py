"""Why a provider call failed, as the provider says it: its error
responses, the errors it reports inside a stream, and the waits it asks for,
each made an `UpstreamError` (whether a retry can help, and after how long).
Transport failures are made one in `llm.http`, where the HTTP library is."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
RETRYABLE_ERROR_TYPES = frozenset({"overloaded_error", "rate_limit_error", "api_error"})


@dataclass(frozen=True, slots=True)
class UpstreamError:
    """Why a call failed, as the provider said it (message kept verbatim)."""

    message: str
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """`retry-after-ms` (OpenAI, Anthropic) wins over `retry-after` (seconds or HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


_GOOGLE_DELAY = re.compile(r"^(\d+(?:\.\d+)?)s$")


def _google_retry_delay(error: Mapping[str, Any]) -> float | None:
    """Gemini puts its hint in a `google.rpc.RetryInfo` detail (`"48s"`)."""
    for detail in error.get("details") or ():
        if isinstance(detail, Mapping) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _GOOGLE_DELAY.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def describe_error_body(body: Any) -> tuple[str | None, str | None, float | None]:
    """(message, error type, retry hint) from any provider's JSON error document.

    Shapes seen: `{"error": {"message", "type"}}` (OpenAI, OpenRouter),
    `{"type": "error", "error": {"type", "message"}}` (Anthropic),
    `{"error": {"code", "message", "status", "details"}}` (Gemini), and a
    list holding one of those (Gemini streaming).
    """
    if isinstance(body, list) and body:
        body = body[0]
    if not isinstance(body, Mapping):
        return None, None, None
    error = body.get("error", body)
    if isinstance(error, str):
        return error, None, None
    if not isinstance(error, Mapping):
        return None, None, None
    message = error.get("message")
    kind = error.get("type") or error.get("status") or error.get("code")
    metadata = error.get("metadata")
    text = str(message) if message is not None else None
    if isinstance(metadata, Mapping) and metadata.get("raw"):
        text = f"{text}: {metadata['raw']}" if text else str(metadata["raw"])
    # OpenAI names the offending field apart from the message; the user needs both.
    param = error.get("param")
    if text and isinstance(param, str) and param and param not in text:
        text = f"{text} (param: {param})"
    return text, str(kind) if kind is not None else None, _google_retry_delay(error)


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> UpstreamError:
    """An error HTTP response as an `UpstreamError`; the body may be anything."""
    text = body.decode("utf-8", "replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    message, kind, hint = describe_error_body(parsed)
    retry_after = retry_after_seconds(headers)
    return UpstreamError(
        message=message or text.strip() or f"HTTP {status}",
        status=status,
        retryable=status in RETRYABLE_STATUS or kind in RETRYABLE_ERROR_TYPES,
        retry_after=retry_after if retry_after is not None else hint,
    )


def error_in_stream(payload: Any) -> UpstreamError:
    """An error the provider reported inside a 200 stream. Its status is the
    error's own numeric code when it has one (OpenRouter), else unknown."""
    message, kind, hint = describe_error_body(payload)
    error = payload.get("error") if isinstance(payload, Mapping) else None
    code = error.get("code") if isinstance(error, Mapping) else None
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    return UpstreamError(
        message=message or "the provider reported an error",
        status=status,
        retryable=kind in RETRYABLE_ERROR_TYPES or status in RETRYABLE_STATUS,
        retry_after=hint,
    )
