"""Best-effort parse of a tool call's argument JSON while it is still streaming.

Consumers show arguments as they arrive, so an incomplete buffer must parse to
something: a trailing string is kept as far as it goes, anything unusable is
`{}`. Only an object is a valid argument value; anything else becomes `{}` too.
"""

from __future__ import annotations

import math
from typing import cast

import jiter

from cursor_byok.llm.types import JSONObject

EMPTY: JSONObject = {}


def parse_partial(buffer: str) -> JSONObject:
    """Parse possibly incomplete JSON; never raises."""
    if not buffer or buffer.isspace():
        return EMPTY
    try:
        value = jiter.from_json(buffer.encode(), partial_mode="trailing-strings")
    except ValueError:
        return EMPTY
    return cast(JSONObject, value) if isinstance(value, dict) and _finite(value) else EMPTY


def complete_arguments(buffer: str) -> JSONObject | None:
    """The arguments if `buffer` is a whole JSON object (empty counts as {}),
    else None: for a call cut off mid-stream, half an object is not what the
    model meant."""
    if not buffer or buffer.isspace():
        return EMPTY
    try:
        value = jiter.from_json(buffer.encode())
    except ValueError:
        return None
    return cast(JSONObject, value) if isinstance(value, dict) and _finite(value) else None


def parse_complete(buffer: str) -> JSONObject:
    """Parse the final argument string; a truncated one still yields its prefix."""
    if not buffer or buffer.isspace():
        return EMPTY
    try:
        value = jiter.from_json(buffer.encode())
    except ValueError:
        return parse_partial(buffer)
    if not isinstance(value, dict) or not _finite(value):
        # NaN or 1e999 parse to floats JSON cannot carry back: not arguments.
        return EMPTY
    return cast(JSONObject, value)


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True
