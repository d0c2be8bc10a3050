"""Small helpers every adapter shares: body encoding, argument rendering, ids."""

from __future__ import annotations

import json
import re
from typing import Any

import jiter

from cursor_byok.llm.providers.render_cache import FrozenMessage
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import ImageContent, ToolCall

HISTORY_FIELDS = ("messages", "contents", "input")
"""Where each API's request body carries the rendered history (Chat and
Anthropic, Gemini, Responses)."""


def encode_body(body: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON with sorted keys: the bytes sent upstream.

    Sorted, not insertion order, because parts of a request come from
    elsewhere (tool schemas, tool-call arguments) and their key order differs
    between a value built in memory and the same value reloaded from the
    store; a resumed or retried call must send the very same bytes."""
    for field in HISTORY_FIELDS:
        items = body.get(field)
        if isinstance(items, list) and any(isinstance(m, FrozenMessage) for m in items):
            return _with_cached_items(body, field, items)
    return canonical_dumps(body)


def _with_cached_items(body: dict[str, Any], field: str, items: list[Any]) -> bytes:
    """`canonical_dumps(body)`, byte for byte, with each cached item's bytes
    reused (keys in sorted order, compact separators). The history's bytes
    are copied once, into the body: at a long history's size, each extra
    copy of it costs more than the Python work per item."""
    keys = sorted(body)
    split = keys.index(field)
    before = [_field(key, body[key]) for key in keys[:split]]
    after = [_field(key, body[key]) for key in keys[split + 1 :]]
    head = b"{" + b"".join(f + b"," for f in before) + canonical_dumps(field) + b":["
    tail = b"]" + b"".join(b"," + f for f in after) + b"}"
    encoded = [m.encoded() if type(m) is FrozenMessage else canonical_dumps(m) for m in items]
    encoded[0] = head + encoded[0]
    encoded[-1] = encoded[-1] + tail
    return b",".join(encoded)


def _field(key: str, value: Any) -> bytes:
    return canonical_dumps(key) + b":" + canonical_dumps(value)


def arguments_text(call: ToolCall) -> str:
    """The argument string to replay: the model's own bytes when they are a
    JSON object, else canonical JSON of the parse (a call cut off by the
    output limit left a truncated string, which providers reject), so the
    same call renders identically on every request."""
    raw = call.raw_arguments
    if raw is not None and _is_json_object(raw):
        return raw
    return canonical_dumps(call.arguments).decode("utf-8", "surrogatepass")


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(jiter.from_json(text.encode("utf-8", "surrogatepass")), dict)
    except ValueError:
        return False


def data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"


_UNSAFE_ID = re.compile(r"[^a-zA-Z0-9_-]")


def safe_id(value: str, limit: int) -> str:
    """Replace characters providers reject in tool-call ids, cut to `limit`."""
    return _UNSAFE_ID.sub("_", value)[:limit]


def is_safe_id(value: str, limit: int) -> bool:
    """Whether `value` is 1 to `limit` characters that need no escaping
    anywhere (logs, terminals, provider ids): letters, digits, `-`, `_`."""
    return 0 < len(value) <= limit and _UNSAFE_ID.search(value) is None


def loads(data: str) -> Any:
    """Parse one event payload; `None` when it is not JSON. jiter parses
    these payloads 2-4x faster than `json`; `json` remains the fallback
    for what jiter refuses (e.g. escaped lone surrogates)."""
    try:
        return jiter.from_json(data.encode("utf-8", "surrogatepass"))
    except ValueError:
        pass
    try:
        return json.loads(data)
    except ValueError:
        return None
