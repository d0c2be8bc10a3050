"""The one canonical serialization of the contracts, and the hashes built on it.

Storage, hashing and prefix checks all go through `canonical_dumps`: sorted
keys, compact separators, UTF-8, no NaN. The same value always gives the same
bytes, in any process, whatever `PYTHONHASHSEED` is. Optional fields are
omitted when unset, so adding one later does not change old messages' bytes.

The messages hash is a chain: `h[n] = sha256(h[n-1] || message_hash(m[n]))`,
so extending a history by k messages costs O(k), not O(history).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any, cast

from cursor_byok.llm.canonical import canonical_text
from cursor_byok.llm.encodings import Encodings
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    Cost,
    HistoryRepair,
    ImageContent,
    JSONObject,
    JSONValue,
    Message,
    ProviderBlock,
    RequestMessages,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
)

EMPTY_MESSAGES_HASH = hashlib.sha256(b"").hexdigest()
"""The chain hash of an empty history."""


class DecodeError(ValueError):
    """A stored document does not describe a valid contract value."""


def canonical_dumps(value: JSONValue) -> bytes:
    """Canonical bytes: sorted keys, no whitespace, UTF-8 (lone surrogates kept)."""
    return canonical_text(value).encode("utf-8", "surrogatepass")


def canonical_loads(data: bytes) -> Any:
    return json.loads(data.decode("utf-8", "surrogatepass"))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- content blocks ------------------------------------------------------------


def content_to_json(block: AssistantContent | UserContent) -> dict[str, JSONValue]:
    match block:
        case TextContent(text=text, text_signature=signature):
            out: dict[str, JSONValue] = {"type": "text", "text": text}
            if signature is not None:
                out["textSignature"] = signature
            return out
        case ThinkingContent(thinking=thinking, thinking_signature=signature, redacted=redacted):
            out = {"type": "thinking", "thinking": thinking}
            if signature is not None:
                out["thinkingSignature"] = signature
            if redacted:
                out["redacted"] = True
            return out
        case ImageContent(data=data, mime_type=mime_type):
            return {"type": "image", "data": data, "mimeType": mime_type}
        case ToolCall(
            id=call_id,
            name=name,
            arguments=arguments,
            raw_arguments=raw,
            thought_signature=signature,
        ):
            out = {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
            if raw is not None:
                out["rawArguments"] = raw
            if signature is not None:
                out["thoughtSignature"] = signature
            return out
        case ProviderBlock(api=api, raw=raw):
            return {"type": "providerBlock", "api": api, "raw": raw}


def _str(doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str):
        raise DecodeError(f"field {key!r} must be a string, got {type(value).__name__}")
    return value


def _opt_str(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise DecodeError(f"field {key!r} must be a string or absent")
    return value


def _int(doc: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = doc.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise DecodeError(f"field {key!r} must be an integer")
    return value


def _float(doc: Mapping[str, Any], key: str) -> float:
    value = doc.get(key, 0.0)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise DecodeError(f"field {key!r} must be a number")
    return float(value)


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DecodeError(f"{what} must be an object")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError(f"{what} must be an array")
    return value


def content_from_json(doc: Any) -> AssistantContent | UserContent:
    doc = _object(doc, "content block")
    kind = doc.get("type")
    if kind == "text":
        return TextContent(text=_str(doc, "text"), text_signature=_opt_str(doc, "textSignature"))
    if kind == "thinking":
        return ThinkingContent(
            thinking=_str(doc, "thinking"),
            thinking_signature=_opt_str(doc, "thinkingSignature"),
            redacted=bool(doc.get("redacted", False)),
        )
    if kind == "image":
        return ImageContent(data=_str(doc, "data"), mime_type=_str(doc, "mimeType"))
    if kind == "toolCall":
        return ToolCall(
            id=_str(doc, "id"),
            name=_str(doc, "name"),
            arguments=cast(JSONObject, _object(doc.get("arguments"), "tool call arguments")),
            raw_arguments=_opt_str(doc, "rawArguments"),
            thought_signature=_opt_str(doc, "thoughtSignature"),
        )
    if kind == "providerBlock":
        return ProviderBlock(api=_str(doc, "api"), raw=_str(doc, "raw"))
    raise DecodeError(f"unknown content block type {kind!r}")


def _user_content(doc: Any) -> UserContent:
    block = content_from_json(doc)
    if not isinstance(block, TextContent | ImageContent):
        raise DecodeError(f"{type(block).__name__} is not allowed in user content")
    return block


def _assistant_content(doc: Any) -> AssistantContent:
    block = content_from_json(doc)
    if isinstance(block, ImageContent):
        raise DecodeError("image is not allowed in assistant content")
    return block


# -- usage ---------------------------------------------------------------------


def usage_to_json(usage: Usage) -> dict[str, JSONValue]:
    cost = usage.cost
    costs: dict[str, JSONValue] = {
        "input": cost.input,
        "output": cost.output,
        "cacheRead": cost.cache_read,
        "cacheWrite": cost.cache_write,
        "total": cost.total,
    }
    if not cost.priced:  # written only then: a priced message keeps its bytes
        costs["priced"] = False
    out: dict[str, JSONValue] = {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": usage.total_tokens,
        "cost": costs,
    }
    if usage.reasoning:
        out["reasoning"] = usage.reasoning
    return out


def usage_from_json(doc: Any) -> Usage:
    doc = _object(doc, "usage")
    cost = _object(doc.get("cost", {}), "usage cost")
    return Usage(
        input=_int(doc, "input"),
        output=_int(doc, "output"),
        cache_read=_int(doc, "cacheRead"),
        cache_write=_int(doc, "cacheWrite"),
        total_tokens=_int(doc, "totalTokens"),
        reasoning=_int(doc, "reasoning"),
        cost=Cost(
            input=_float(cost, "input"),
            output=_float(cost, "output"),
            cache_read=_float(cost, "cacheRead"),
            cache_write=_float(cost, "cacheWrite"),
            total=_float(cost, "total"),
            priced=cost.get("priced", True) is not False,
        ),
    )


# -- messages ------------------------------------------------------------------


def message_to_json(message: Message) -> dict[str, JSONValue]:
    match message:
        case UserMessage(content=content, timestamp=timestamp):
            body: JSONValue = (
                content if isinstance(content, str) else [content_to_json(b) for b in content]
            )
            return {"role": "user", "content": body, "timestamp": timestamp}
        case AssistantMessage():
            out: dict[str, JSONValue] = {
                "role": "assistant",
                "content": [content_to_json(b) for b in message.content],
                "api": message.api,
                "provider": message.provider,
                "model": message.model,
                "usage": usage_to_json(message.usage),
                "stopReason": message.stop_reason,
                "timestamp": message.timestamp,
            }
            if message.response_id is not None:
                out["responseId"] = message.response_id
            if message.error_message is not None:
                out["errorMessage"] = message.error_message
            if message.interrupted:
                out["interrupted"] = True
            return out
        case ToolResultMessage():
            return {
                "role": "toolResult",
                "toolCallId": message.tool_call_id,
                "toolName": message.tool_name,
                "content": [content_to_json(b) for b in message.content],
                "isError": message.is_error,
                "timestamp": message.timestamp,
            }
        case HistoryRepair(reason=reason, timestamp=timestamp):
            return {"role": "repair", "reason": reason, "timestamp": timestamp}


_STOP_REASONS: frozenset[str] = frozenset(
    {"stop", "length", "toolUse", "pause", "error", "aborted"}
)


def message_from_json(doc: Any) -> Message:
    doc = _object(doc, "message")
    role = doc.get("role")
    if role == "user":
        content = doc.get("content")
        user_content: str | tuple[UserContent, ...] = (
            content
            if isinstance(content, str)
            else tuple(_user_content(b) for b in _list(content, "user content"))
        )
        return UserMessage(content=user_content, timestamp=_int(doc, "timestamp"))
    if role == "assistant":
        stop_reason = doc.get("stopReason")
        if stop_reason not in _STOP_REASONS:
            raise DecodeError(f"unknown stop reason {stop_reason!r}")
        return AssistantMessage(
            content=tuple(
                _assistant_content(b) for b in _list(doc.get("content"), "assistant content")
            ),
            api=_str(doc, "api"),
            provider=_str(doc, "provider"),
            model=_str(doc, "model"),
            usage=usage_from_json(doc.get("usage", {})),
            stop_reason=cast(StopReason, stop_reason),
            response_id=_opt_str(doc, "responseId"),
            error_message=_opt_str(doc, "errorMessage"),
            timestamp=_int(doc, "timestamp"),
            interrupted=doc.get("interrupted") is True,
        )
    if role == "toolResult":
        return ToolResultMessage(
            tool_call_id=_str(doc, "toolCallId"),
            tool_name=_str(doc, "toolName"),
            content=tuple(_user_content(b) for b in _list(doc.get("content"), "tool content")),
            is_error=bool(doc.get("isError", False)),
            timestamp=_int(doc, "timestamp"),
        )
    if role == "repair":
        return HistoryRepair(reason=_str(doc, "reason"), timestamp=_int(doc, "timestamp"))
    raise DecodeError(f"unknown message role {role!r}")


def _encode(message: Message) -> bytes:
    return canonical_dumps(message_to_json(message))


_encodings: Encodings[Message] = Encodings(_encode)


def message_bytes(message: Message) -> bytes:
    """The canonical bytes of one message: what is stored and hashed."""
    return _encodings.of(message).data


def message_hash(message: Message) -> str:
    encoded = _encodings.of(message)
    digest = encoded.digest
    if digest is None:
        digest = encoded.digest = sha256_hex(encoded.data)
    return digest


def extend_messages_hash(previous: str, new_message_hash: str) -> str:
    """One link of the chain. Both inputs are fixed-length hex digests, so
    plain concatenation is unambiguous."""
    return sha256_hex((previous + new_message_hash).encode("ascii"))


def messages_hash(messages: Iterable[Message], start: str = EMPTY_MESSAGES_HASH) -> str:
    """The chain hash of `messages`, optionally continuing from `start`."""
    chain = start
    for message in messages:
        chain = extend_messages_hash(chain, message_hash(message))
    return chain


def serialize_messages(messages: Iterable[Message]) -> bytes:
    """History as canonical JSON Lines: one message per line. An extended
    history's bytes start with the shorter history's bytes exactly."""
    return b"".join(message_bytes(m) + b"\n" for m in messages)


# -- tools and requests ----------------------------------------------------------


def tool_definition_to_json(tool: ToolDefinition) -> dict[str, JSONValue]:
    out: dict[str, JSONValue] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
    }
    if tool.native is not None:
        out["native"] = tool.native
    return out


def tool_definition_from_json(doc: Any) -> ToolDefinition:
    doc = _object(doc, "tool definition")
    return ToolDefinition(
        name=_str(doc, "name"),
        description=_str(doc, "description"),
        parameters=cast(JSONObject, _object(doc.get("parameters"), "tool parameters")),
        native=_opt_str(doc, "native"),
    )


def request_to_json(request: RequestMessages) -> dict[str, JSONValue]:
    out: dict[str, JSONValue] = {
        "messages": [message_to_json(m) for m in request.messages],
        "tools": [tool_definition_to_json(t) for t in request.tools],
    }
    if request.system_prompt is not None:
        out["systemPrompt"] = request.system_prompt
    if not request.extended:
        out["extended"] = False
    return out


def request_from_json(doc: Any) -> RequestMessages:
    doc = _object(doc, "request")
    return RequestMessages(
        system_prompt=_opt_str(doc, "systemPrompt"),
        messages=tuple(message_from_json(m) for m in _list(doc.get("messages"), "messages")),
        tools=tuple(tool_definition_from_json(t) for t in _list(doc.get("tools", []), "tools")),
        extended=doc.get("extended") is not False,
    )


def request_bytes(request: RequestMessages) -> bytes:
    return canonical_dumps(request_to_json(request))


def request_hash(request: RequestMessages) -> str:
    """Hash of the serialized request: a retry must send exactly these bytes."""
    return sha256_hex(request_bytes(request))
