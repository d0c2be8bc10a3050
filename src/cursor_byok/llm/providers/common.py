"""Small helpers every adapter shares: body encoding, argument rendering, ids."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jiter

from cursor_byok.llm.http import BodyParts, Buffer
from cursor_byok.llm.providers.render_cache import FrozenMessage, encoded_items
from cursor_byok.llm.providers.spool import RenderedHistory
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import ImageContent, ToolCall, ToolDefinition

TOOL_ITEMS_KEPT = 1024
_tool_items: dict[tuple[Callable[..., Any], int], tuple[ToolDefinition, FrozenMessage]] = {}


def frozen_tools(
    tools: Iterable[ToolDefinition], render: Callable[[ToolDefinition], dict[str, Any]]
) -> list[Any]:
    """`[render(t) for t in tools]`, each item frozen with its bytes kept per
    schema object: every call of a conversation sends the same (often large)
    definitions, and a new conversation's definitions share the built-in
    tools' schema objects (schemas are never changed in place). A caller may
    replace an item in the list (a cache breakpoint), never change one."""
    items: list[Any] = []
    for tool in tools:
        key = (render, id(tool.parameters))
        known = _tool_items.get(key)
        if known is None or not _same_tool(known[0], tool):
            known = (tool, FrozenMessage(render(tool)))
            _tool_items[key] = known
            if len(_tool_items) > TOOL_ITEMS_KEPT:
                del _tool_items[next(iter(_tool_items))]
        items.append(known[1])
    return items


def _same_tool(known: ToolDefinition, tool: ToolDefinition) -> bool:
    return (
        known.parameters is tool.parameters
        and known.name == tool.name
        and known.description == tool.description
    )


def encode_body(body: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON with sorted keys: the bytes sent upstream.

    Sorted, not insertion order, because parts of a request come from
    elsewhere (tool schemas, tool-call arguments) and their key order differs
    between a value built in memory and the same value reloaded from the
    store; a resumed or retried call must send the very same bytes."""
    return encode_body_parts(body).joined()


def encode_body_parts(body: dict[str, Any]) -> BodyParts:
    """`encode_body(body)` as the parts it is sent in: a rendered history's
    spooled bytes are not copied into one buffer (see `spool.py`)."""
    frozen = {key for key, value in body.items() if _has_frozen(value)}
    if not frozen:
        return BodyParts.of((canonical_dumps(body),))
    return BodyParts.of(_with_cached_items(body, frozen))


def _has_frozen(value: Any) -> bool:
    return type(value) is RenderedHistory or (
        type(value) is list and any(type(item) is FrozenMessage for item in value)
    )


def _items(items: Sequence[Any]) -> list[Buffer]:
    """`items`' canonical bytes with a comma after each. Items and
    separators are interleaved by slice assignment: no Python step per
    item beyond reading its bytes."""
    run: list[Buffer] = [b","] * (2 * len(items))
    run[0::2] = encoded_items(items)
    return run


def _history(value: list[Any] | RenderedHistory) -> list[Buffer]:
    """A list's items, a comma after each: a rendered history's cached ones
    as its spool's chunks, the others one by one."""
    if type(value) is RenderedHistory:
        return value.parts(_items)
    return _items(value)


def _with_cached_items(body: dict[str, Any], frozen: set[str]) -> list[Buffer]:
    """`canonical_dumps(body)`, byte for byte, in pieces, with each frozen
    item's kept bytes reused (the rendered history, tool definitions; keys
    in sorted order, compact separators): the other fields are encoded a
    run of neighbouring keys at a time. The history's bytes are not copied:
    its spool's chunks are pieces of their own."""
    pieces: list[Buffer] = []
    plain: dict[str, Any] = {}
    for key in sorted(body):
        value = body[key]
        if key not in frozen:
            plain[key] = value
            continue
        if plain:
            pieces += (canonical_dumps(plain)[1:-1], b",")
            plain = {}
        pieces.append(canonical_dumps(key) + b":[")
        run = _history(value)
        if run:
            last = run[-1]  # a comma, alone or ending a spool's chunk
            run[-1] = last[:-1]
        pieces += run
        pieces.append(b"],")
    if plain:
        pieces.append(canonical_dumps(plain)[1:-1])
    else:
        pieces[-1] = b"]"
    pieces[0] = b"{" + pieces[0]
    pieces.append(b"}")
    return pieces


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
