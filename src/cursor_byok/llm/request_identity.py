"""What identifies a model call's request, without a copy of its history.

A request is its messages, system prompt and tools. The messages are already
stored append-only and hashed as a chain, so a call record needs only their
count and chain hash; the system prompt and tools are stored once per distinct
value (by hash). The request hash is built from these parts, so naming a
request costs O(new messages) at turn 200 as at turn 2, and a retry rebuilds
the identical request from the stored parts and proves it by the hash.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from cursor_byok.llm.serialize import (
    canonical_dumps,
    canonical_loads,
    messages_hash,
    sha256_hex,
    tool_definition_from_json,
    tool_definition_to_json,
)
from cursor_byok.llm.types import JSONObject, JSONValue, Message, RequestMessages, ToolDefinition

IDENTITY_VERSION = "request/2"
"""Names the recipe below: a record hashed another way is never mistaken for it."""

TOOL_LISTS_KEPT = 64
_tool_lists: OrderedDict[int, tuple[Sequence[ToolDefinition], bytes, str]] = OrderedDict()
TOOLS_KEPT = 256
_tools: dict[int, tuple[JSONObject, str, str, bytes]] = {}


class RequestNotRebuilt(Exception):
    """The stored parts do not give back the request that was recorded."""


@dataclass(frozen=True, slots=True)
class RequestIdentity:
    message_count: int
    messages_hash: str
    system: bytes
    system_hash: str
    tools: bytes
    tools_hash: str
    request_hash: str


def system_bytes(system_prompt: str | None) -> bytes:
    return canonical_dumps(system_prompt)


def tools_bytes(tools: Sequence[ToolDefinition]) -> bytes:
    """`canonical_dumps` of the list, byte for byte: a compact JSON list is its
    items' bytes joined by commas, and each item's bytes are kept per tool."""
    return b"[" + b",".join(_tool_bytes(t) for t in tools) + b"]"


def _tool_bytes(tool: ToolDefinition) -> bytes:
    """One definition's bytes, computed once per schema object: a new
    conversation gets new definition objects but the built-in tools' schemas
    are the same objects every time (schemas are never changed in place)."""
    known = _tools.get(id(tool.parameters))
    if (
        known is not None
        and known[0] is tool.parameters
        and known[1:3]
        == (
            tool.name,
            tool.description,
        )
    ):
        return known[3]
    data = canonical_dumps(tool_definition_to_json(tool))
    _tools[id(tool.parameters)] = (tool.parameters, tool.name, tool.description, data)
    if len(_tools) > TOOLS_KEPT:
        _tools.pop(next(iter(_tools)))
    return data


def combine(message_count: int, chain: str, system_hash: str, tools_hash: str) -> str:
    """The request hash: every part is a fixed-form field, one per line."""
    text = f"{IDENTITY_VERSION}\n{message_count}\n{chain}\n{system_hash}\n{tools_hash}"
    return sha256_hex(text.encode("ascii"))


def _tools_part(tools: Sequence[ToolDefinition]) -> tuple[bytes, str]:
    """A tool list's bytes and hash, computed once per list object: every
    call of a conversation sends the same (often large) list, and tool
    definitions, like every request part, are never changed in place."""
    known = _tool_lists.get(id(tools))
    if known is not None and known[0] is tools:
        _tool_lists.move_to_end(id(tools))
        return known[1], known[2]
    data = tools_bytes(tools)
    digest = sha256_hex(data)
    _tool_lists[id(tools)] = (tools, data, digest)
    if len(_tool_lists) > TOOL_LISTS_KEPT:
        _tool_lists.popitem(last=False)
    return data, digest


def identify(request: RequestMessages, chain: str) -> RequestIdentity:
    """The identity of `request`, whose messages have the chain hash `chain`
    (kept by the loop as history grows, so it is not recomputed here)."""
    system = system_bytes(request.system_prompt)
    tools, tools_hash = _tools_part(request.tools)
    system_hash = sha256_hex(system)
    count = len(request.messages)
    return RequestIdentity(
        message_count=count,
        messages_hash=chain,
        system=system,
        system_hash=system_hash,
        tools=tools,
        tools_hash=tools_hash,
        request_hash=combine(count, chain, system_hash, tools_hash),
    )


def rebuild(
    call_id: str,
    history: Sequence[Message],
    message_count: int,
    chain: str,
    system: bytes,
    tools: bytes,
    request_hash: str,
) -> RequestMessages:
    """The recorded request from stored parts, or RequestNotRebuilt saying
    which part differs: never a silently different request."""
    if len(history) < message_count:
        raise RequestNotRebuilt(
            f"call {call_id}: the request had {message_count} messages,"
            f" the stored history has {len(history)}"
        )
    messages = tuple(history[:message_count])
    if messages_hash(messages) != chain:
        raise RequestNotRebuilt(f"call {call_id}: the stored messages hash differently")
    system_hash, tools_hash = sha256_hex(system), sha256_hex(tools)
    if combine(message_count, chain, system_hash, tools_hash) != request_hash:
        raise RequestNotRebuilt(f"call {call_id}: system prompt or tools hash differently")
    prompt: JSONValue = canonical_loads(system)
    if prompt is not None and not isinstance(prompt, str):
        raise RequestNotRebuilt(f"call {call_id}: the stored system prompt is not text")
    listed = canonical_loads(tools)
    if not isinstance(listed, list):
        raise RequestNotRebuilt(f"call {call_id}: the stored tools are not a list")
    return RequestMessages(
        system_prompt=prompt,
        messages=messages,
        tools=tuple(tool_definition_from_json(t) for t in listed),
    )
