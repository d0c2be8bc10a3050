"""The ids a client names its requests and conversations by, checked where
they enter: an id that could forge a log line or put escape codes on a
terminal never gets past the door."""

from __future__ import annotations

from cursor_byok.llm.providers.common import is_safe_id

MAX_ID_CHARS = 128
"""Request and conversation ids are UUIDs; longer ids, or ids with other
characters than letters, digits, `-` and `_`, are refused."""


def is_valid_id(value: str) -> bool:
    return is_safe_id(value, MAX_ID_CHARS)


def invalid_id(what: str) -> str:
    """The error text for a refused id (which never quotes the id)."""
    return f"{what} must be 1 to {MAX_ID_CHARS} letters, digits, '-' or '_'"
