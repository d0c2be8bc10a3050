"""Anthropic Messages (`POST /v1/messages`).

Thinking and redacted thinking are replayed with their signatures verbatim;
`temperature` is never sent (newer API versions reject it outright); the
API version is pinned by header so an upstream default change cannot alter
our requests.

Caching: the rendered `messages` are prefix-stable; where cache breakpoints
go is `anthropic_cache`'s plan, applied to this request's own list (a marked
message is a copy; the rendered history is shared with later calls). A
`cache_control` marker is a directive, not content: Anthropic matches the
prefix without it, so moving markers between requests does not break the
cache.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.images import oldest_left_out
from cursor_byok.llm.provider import CallContext, ModelSpec, request_thinking, takes_images
from cursor_byok.llm.providers.anthropic_cache import (
    minimum_cacheable_tokens,
    place_breakpoints,
)
from cursor_byok.llm.providers.base import SSEAdapter
from cursor_byok.llm.providers.common import frozen_tools, loads, safe_id
from cursor_byok.llm.providers.render_cache import RenderCache, cache_key, image_key
from cursor_byok.llm.sse import SSEEvent
from cursor_byok.llm.stream import StreamParser
from cursor_byok.llm.transform import Target, prepare_history
from cursor_byok.llm.types import (
    AssistantMessage,
    DoneReason,
    ImageContent,
    ProviderBlock,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from cursor_byok.llm.upstream_errors import UpstreamError, error_in_stream

API = "anthropic-messages"
RENDERED = RenderCache()
"""Each conversation's rendered history, per model: a call renders only new messages."""
ANTHROPIC_VERSION = "2023-06-01"


def normalize_id(value: str) -> str:
    return safe_id(value, 64)


# -- request ------------------------------------------------------------------


def _user_blocks(content: str | tuple[UserContent, ...]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text:
                out.append({"type": "text", "text": block.text})
        else:
            out.append(_image(block))
    return out


def _image(image: ImageContent) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    }


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ThinkingContent(thinking=text, thinking_signature=signature, redacted=redacted):
                if redacted and signature:
                    out.append({"type": "redacted_thinking", "data": signature})
                elif signature:
                    out.append({"type": "thinking", "thinking": text, "signature": signature})
                elif text.strip():
                    out.append({"type": "text", "text": text})
            case TextContent(text=text):
                if text:
                    out.append({"type": "text", "text": text})
            case ToolCall():
                out.append(
                    {
                        "type": "tool_use",
                        "id": block.id,
                        "name": block.name,
                        "input": dict(block.arguments),
                    }
                )
            case ProviderBlock(raw=raw):  # its own API's only (prepare_history)
                out.append(json.loads(raw))
    return out


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    images = [b for b in message.content if isinstance(b, ImageContent)]
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    content: Any = text
    if images:
        content = [{"type": "text", "text": text or "(see attached image)"}]
        content.extend(_image(i) for i in images)
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
    out["content"] = content
    if message.is_error:
        out["is_error"] = True
    return out


def render_messages(
    spec: ModelSpec, request: RequestMessages, left_out: frozenset[int] | None = None
) -> list[dict[str, Any]]:
    """Messages without cache markers. Consecutive tool results share one
    user message, as the API requires."""
    history = prepare_history(
        request.messages,
        Target(API, spec.provider, spec.model, takes_images(spec, "anthropic"), left_out),
        normalize_id,
    )
    out: list[dict[str, Any]] = []
    for message in history:
        match message:
            case UserMessage(content=content):
                blocks = _user_blocks(content)
                if blocks:
                    out.append({"role": "user", "content": blocks})
            case AssistantMessage():
                blocks = _assistant_blocks(message)
                if blocks:
                    out.append({"role": "assistant", "content": blocks})
            case ToolResultMessage():
                result = _tool_result(message)
                last = out[-1] if out else None
                if (
                    last is not None
                    and last["role"] == "user"
                    and last["content"][-1]["type"] == "tool_result"
                ):
                    last["content"].append(result)
                else:
                    out.append({"role": "user", "content": [result]})
    return out


def _thinking_can_continue(messages: Sequence[dict[str, Any]]) -> bool:
    """With thinking on, Anthropic requires the last assistant message, when
    it called tools, to start with its thinking. One that does not (made by
    another model, or before thinking was turned on) is answered without
    thinking for this call, instead of being rejected."""
    last = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
    if last is None or not any(b["type"] == "tool_use" for b in last["content"]):
        return True
    return bool(last["content"][0]["type"] in ("thinking", "redacted_thinking"))


def _tool(tool: ToolDefinition) -> dict[str, Any]:
    if tool.native == "web_search":
        return dict(WEB_SEARCH_TOOL)
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def build_request(
    spec: ModelSpec, request: RequestMessages, ctx: CallContext | None = None
) -> dict[str, Any]:
    plan = request_thinking(spec, "anthropic")
    body: dict[str, Any] = {"model": spec.model}
    # Thinking counts inside max_tokens, and a budget must stay below it.
    body["max_tokens"] = plan.max_output
    tools = frozen_tools(request.tools, _tool)
    system = [{"type": "text", "text": request.system_prompt}] if request.system_prompt else []
    left_out = oldest_left_out(request.messages, API, takes_images(spec, "anthropic"))
    messages = RENDERED.render(
        image_key(cache_key(API, spec, ctx), left_out),
        request.messages,
        lambda part: render_messages(spec, replace(request, messages=tuple(part)), left_out),
    )
    minimum = minimum_cacheable_tokens(spec.model)
    place_breakpoints((tools, system), messages, minimum, request.extended)
    if system:
        body["system"] = system
    body["messages"] = messages
    if tools:
        body["tools"] = tools
    thinking = _thinking_can_continue(body["messages"])
    if thinking and plan.budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": plan.budget}
    elif thinking and plan.level is not None:
        body["thinking"] = {"type": "adaptive"}
        body["output_config"] = {"effort": plan.level}
    body["stream"] = True
    return body


# -- stream -------------------------------------------------------------------

_STOP: dict[str, DoneReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "pause",  # a long server-tool turn: sent back as it is, it goes on
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}


WEB_SEARCH_TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
"""Anthropic's own web search, offered in place of the WebSearch tool."""
SERVER_BLOCKS = frozenset({"server_tool_use", "web_search_tool_result"})
"""Blocks its server tools write: kept whole, replayed as they came."""


class AnthropicStreamParser:
    """Anthropic numbers blocks itself; unknown block types (compaction) are
    skipped, so its index maps to ours through a dict. A server tool's
    blocks (`SERVER_BLOCKS`) are kept whole as `ProviderBlock`s: a
    `server_tool_use` with its input as it streamed, the
    `web_search_tool_result` as it came (its `encrypted_content` must go
    back unchanged)."""

    __slots__ = ("_open_index", "_refusal", "_server", "assembler")

    def __init__(self, assembler: Assembler) -> None:
        self.assembler = assembler
        self._open_index: int | None = None
        self._refusal: str | None = None
        self._server: tuple[Any, dict[str, Any], list[str]] | None = None
        """The server block being streamed: its index, its start, its input's pieces."""

    def on_event(self, event: SSEEvent) -> None:
        payload = loads(event.data)
        if not isinstance(payload, dict):
            return
        kind = payload.get("type") or event.event
        asm = self.assembler
        if self._server is not None and kind in ("content_block_delta", "content_block_stop"):
            self._server_event(kind, payload)
            return
        if kind == "content_block_delta":
            if payload.get("index") != self._open_index or asm.block is None:
                return
            delta = payload.get("delta") or {}
            delta_type = delta.get("type")
            if delta_type == "text_delta":
                asm.delta(delta.get("text", ""))
            elif delta_type == "thinking_delta":
                asm.delta(delta.get("thinking", ""))
            elif delta_type == "input_json_delta":
                asm.delta(delta.get("partial_json", ""))
            elif delta_type == "signature_delta":
                asm.block.signature = (asm.block.signature or "") + delta.get("signature", "")
        elif kind == "content_block_start":
            self._start(payload)
        elif kind == "content_block_stop":
            if payload.get("index") == self._open_index:
                asm.close()
                self._open_index = None
        elif kind == "message_start":
            message = payload.get("message") or {}
            asm.response_id = message.get("id")
            self._usage(message.get("usage") or {})
        elif kind == "message_delta":
            reason = (payload.get("delta") or {}).get("stop_reason")
            if reason:
                mapped = _STOP.get(reason)
                if mapped is None:
                    self._refusal = reason
                else:
                    asm.stop_reason = mapped
            self._usage(payload.get("usage") or {})
        elif kind == "message_stop":
            self._complete()
        elif kind == "error":
            asm.fail(error_in_stream(payload))

    def on_end(self) -> None:
        self.assembler.fail(UpstreamError("the stream ended before message_stop", retryable=True))

    def _complete(self) -> None:
        if self._refusal is not None:
            self.assembler.decline(self._refusal)
        else:
            self.assembler.finish()

    def _start(self, payload: dict[str, Any]) -> None:
        asm = self.assembler
        block = payload.get("content_block") or {}
        kind = block.get("type")
        if kind == "text":
            asm.open_text()
            asm.delta(block.get("text", ""))
        elif kind == "thinking":
            asm.open_thinking(signature=block.get("signature") or None)
            asm.delta(block.get("thinking", ""))
        elif kind == "redacted_thinking":
            asm.open_thinking(signature=block.get("data"), redacted=True)
        elif kind == "tool_use":
            asm.open_tool_call(block.get("id", ""), block.get("name", ""))
        elif kind in SERVER_BLOCKS:
            asm.close()
            self._open_index = None
            self._server = (payload.get("index"), block, [])
            return
        else:
            asm.close()
            self._open_index = None
            return
        self._open_index = payload.get("index")

    def _server_event(self, kind: str, payload: dict[str, Any]) -> None:
        """A delta or the end of the server block being streamed."""
        assert self._server is not None
        index, block, pieces = self._server
        if payload.get("index") != index:
            return
        if kind == "content_block_delta":
            delta = payload.get("delta") or {}
            if delta.get("type") == "input_json_delta":
                pieces.append(delta.get("partial_json", ""))
            return
        self._server = None
        if pieces and "".join(pieces).strip():
            block = {**block, "input": loads("".join(pieces))}
        raw = json.dumps(block, ensure_ascii=False, separators=(",", ":"))
        self.assembler.add_block(ProviderBlock(API, raw))

    def _usage(self, usage: dict[str, Any]) -> None:
        """Counters are cumulative: a later event never lowers one (the final
        `message_delta` may repeat input counts without the cache reads that
        `message_start` reported), and an absent or null field keeps its
        value. When server-side compaction ran, `iterations` lists every
        sampling step and the top-level counts cover only the last: the
        call's usage is the sum over the steps."""
        counts = self.assembler.usage
        totals = _iteration_totals(usage.get("iterations"))
        if totals is not None:
            usage = {**usage, **totals}
        if usage.get("input_tokens") is not None:
            counts.input = max(counts.input, usage["input_tokens"])
        if usage.get("cache_read_input_tokens") is not None:
            counts.cache_read = max(counts.cache_read, usage["cache_read_input_tokens"])
        if usage.get("cache_creation_input_tokens") is not None:
            counts.cache_write = max(counts.cache_write, usage["cache_creation_input_tokens"])
        if usage.get("output_tokens") is not None:
            counts.output = max(counts.output, usage["output_tokens"])
        details = usage.get("output_tokens_details") or {}
        if details.get("thinking_tokens") is not None:
            counts.reasoning = details["thinking_tokens"]


USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _iteration_totals(iterations: Any) -> dict[str, int] | None:
    """The per-field sums of `usage.iterations`, or None without any."""
    if not isinstance(iterations, list) or not iterations:
        return None
    totals = dict.fromkeys(USAGE_FIELDS, 0)
    for step in iterations:
        if isinstance(step, dict):
            for name in USAGE_FIELDS:
                value = step.get(name)
                if isinstance(value, int):
                    totals[name] += value
    return totals


# -- client -------------------------------------------------------------------


class AnthropicLLM(SSEAdapter):
    """`LLM` over `POST {base_url}/v1/messages`."""

    api = API

    def url(self) -> str:
        return self.spec.base_url.rstrip("/") + "/v1/messages"

    def headers(self) -> dict[str, str]:
        headers = {"x-api-key": self._api_key, "anthropic-version": ANTHROPIC_VERSION}
        if request_thinking(self.spec, "anthropic").budget is not None:
            # Adaptive thinking interleaves by itself; a budget needs the beta.
            headers["anthropic-beta"] = "interleaved-thinking-2025-05-14"
        return headers

    def body(self, ctx: CallContext, request: RequestMessages) -> dict[str, Any]:
        return build_request(self.spec, request, ctx)

    def parser(self, assembler: Assembler) -> StreamParser:
        return AnthropicStreamParser(assembler)
