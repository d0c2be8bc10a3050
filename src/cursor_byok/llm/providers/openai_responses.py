"""OpenAI Responses (`POST /responses`), stateless: `store: false`.

Reasoning items come back with `encrypted_content` (when requested) and are
kept whole, as JSON, in the thinking block's signature; the same model gets
the item back verbatim, which is how reasoning survives across turns without
server-side state. Tool-call ids are `call_id|item_id` so both halves can be
replayed; message ids ride in the text signature.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.images import oldest_left_out
from cursor_byok.llm.provider import CallContext, ModelSpec, request_thinking, takes_images
from cursor_byok.llm.providers.base import SSEAdapter
from cursor_byok.llm.providers.common import (
    arguments_text,
    data_url,
    frozen_tools,
    loads,
    safe_id,
)
from cursor_byok.llm.providers.render_cache import RenderCache, cache_key, image_key
from cursor_byok.llm.sse import SSEEvent
from cursor_byok.llm.stream import StreamParser
from cursor_byok.llm.transform import Target, prepare_history
from cursor_byok.llm.types import (
    AssistantMessage,
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
from cursor_byok.llm.upstream_errors import UpstreamError, describe_error_body, error_in_stream

API = "openai-responses"
RENDERED = RenderCache()
"""Each conversation's rendered history, per model: a call renders only new messages."""


def normalize_id(value: str) -> str:
    """Keep `call|item`; the item half must be an `fc` id or it is dropped."""
    call_id, _, item_id = value.partition("|")
    call_id = safe_id(call_id, 64)
    item_id = safe_id(item_id, 64)
    return f"{call_id}|{item_id}" if item_id.startswith("fc") else call_id


# -- request ------------------------------------------------------------------


def _user_content(content: str | tuple[UserContent, ...]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    return [
        {"type": "input_text", "text": b.text}
        if isinstance(b, TextContent)
        else {"type": "input_image", "detail": "auto", "image_url": data_url(b)}
        for b in content
    ]


def _reasoning_item(signature: str | None) -> dict[str, Any] | None:
    """The stored reasoning item, when it can be sent back. With `store:
    false` only its `encrypted_content` carries it; an item without (made
    while encrypted reasoning was not requested) names an id the API never
    kept, and is rejected."""
    if not signature:
        return None
    try:
        item = json.loads(signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("encrypted_content") else None


def _assistant_items(message: AssistantMessage) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    unpaired = False
    for block in message.content:
        match block:
            case ThinkingContent(thinking_signature=signature):
                # The signature is the whole reasoning item as JSON; one that
                # cannot be sent back is left out rather than failing the
                # request: the API accepts history without it.
                item = _reasoning_item(signature)
                if item is not None:
                    out.append(item)
                else:
                    unpaired = unpaired or bool(signature)
            case TextContent(text=text, text_signature=signature):
                item = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                    "status": "completed",
                }
                if signature:
                    item["id"] = signature
                out.append(item)
            case ToolCall():
                call_id, _, item_id = block.id.partition("|")
                call: dict[str, Any] = {"type": "function_call"}
                if item_id:
                    call["id"] = item_id
                call["call_id"] = call_id
                call["name"] = block.name
                call["arguments"] = arguments_text(block)
                out.append(call)
            case ProviderBlock(raw=raw):  # its own web_search_call, as it came
                out.append(json.loads(raw))
    # A reasoning item must be followed by the item it led to; a response cut
    # off while still reasoning has none, and the API rejects it alone.
    while out and out[-1].get("type") == "reasoning":
        out.pop()
    if unpaired:
        # Items sent with their ids must come with the reasoning they followed;
        # without it, they go out without ids (as from another model).
        for item in out:
            if item["type"] != "reasoning":
                item.pop("id", None)
    return out


def render_input(
    spec: ModelSpec, request: RequestMessages, left_out: frozenset[int] | None = None
) -> list[dict[str, Any]]:
    history = prepare_history(
        request.messages,
        Target(API, spec.provider, spec.model, takes_images(spec, API), left_out),
        normalize_id,
    )
    out: list[dict[str, Any]] = []
    for message in history:
        match message:
            case UserMessage(content=content):
                out.append({"role": "user", "content": _user_content(content)})
            case AssistantMessage():
                out.extend(_assistant_items(message))
            case ToolResultMessage():
                images = [b for b in message.content if not isinstance(b, TextContent)]
                text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
                output: Any = text
                if images:
                    output = _user_content(message.content)
                out.append(
                    {
                        "type": "function_call_output",
                        "call_id": message.tool_call_id.partition("|")[0],
                        "output": output,
                    }
                )
    return out


WEB_SEARCH_TOOL = {"type": "web_search"}
"""OpenAI's own web search, offered in place of the WebSearch tool."""
SOURCES = "web_search_call.action.sources"
"""Asked for so the search card can list what the search found."""


def _tool(tool: ToolDefinition) -> dict[str, Any]:
    if tool.native == "web_search":
        return dict(WEB_SEARCH_TOOL)
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,
    }


def build_request(
    spec: ModelSpec, request: RequestMessages, ctx: CallContext | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": spec.model}
    if request.system_prompt is not None:
        body["instructions"] = request.system_prompt
    left_out = oldest_left_out(request.messages, API, takes_images(spec, API))
    body["input"] = RENDERED.render(
        image_key(cache_key(API, spec, ctx), left_out),
        request.messages,
        lambda part: render_input(spec, replace(request, messages=tuple(part)), left_out),
    )
    if request.tools:
        body["tools"] = frozen_tools(request.tools, _tool)
    plan = request_thinking(spec, API)
    body["max_output_tokens"] = plan.max_output
    if plan.level is not None:
        body["reasoning"] = {"effort": plan.level, "summary": "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    if any(tool.native == "web_search" for tool in request.tools):
        body["include"] = [*body.get("include", []), SOURCES]
    body["store"] = False
    body["stream"] = True
    if ctx is not None and ctx.session_id:
        body["prompt_cache_key"] = ctx.session_id
    return body


# -- stream -------------------------------------------------------------------


class ResponsesStreamParser:
    """Output items map to blocks one to one, in `output_index` order; a
    `web_search_call` (the API's own search) is kept whole, as it came."""

    __slots__ = ("_item_index", "_streamed_args", "assembler")

    def __init__(self, assembler: Assembler) -> None:
        self.assembler = assembler
        self._item_index: int | None = None
        self._streamed_args = False

    def on_event(self, event: SSEEvent) -> None:
        payload = loads(event.data)
        if not isinstance(payload, dict):
            return
        kind = payload.get("type") or event.event
        asm = self.assembler
        if kind in (
            "response.output_text.delta",
            "response.reasoning_summary_text.delta",
            "response.refusal.delta",
        ):
            if payload.get("output_index") == self._item_index:
                asm.delta(payload.get("delta", ""))
        elif kind == "response.function_call_arguments.delta":
            if payload.get("output_index") == self._item_index:
                self._streamed_args = True
                asm.delta(payload.get("delta", ""))
        elif kind == "response.reasoning_summary_part.added":
            if (
                payload.get("summary_index", 0) > 0
                and payload.get("output_index") == self._item_index
            ):
                asm.delta("\n\n")
        elif kind == "response.output_item.added":
            self._added(payload)
        elif kind == "response.output_item.done":
            self._done(payload)
        elif kind == "response.created":
            asm.response_id = (payload.get("response") or {}).get("id")
        elif kind in ("response.completed", "response.incomplete"):
            response = payload.get("response") or {}
            self._usage(response.get("usage") or {})
            if kind == "response.incomplete" or response.get("status") == "incomplete":
                asm.stop_reason = "length"
            asm.finish()
        elif kind == "response.failed":
            response = payload.get("response") or {}
            message, _, _ = describe_error_body(response)
            self._usage(response.get("usage") or {})
            asm.fail(UpstreamError(message or "the response failed"))
        elif kind == "error":
            asm.fail(error_in_stream(payload))

    def on_end(self) -> None:
        self.assembler.fail(
            UpstreamError("the stream ended before the response completed", retryable=True)
        )

    def _added(self, payload: dict[str, Any]) -> None:
        asm = self.assembler
        item = payload.get("item") or {}
        kind = item.get("type")
        if kind == "reasoning":
            asm.open_thinking()
        elif kind == "message":
            asm.open_text().signature = item.get("id")
        elif kind == "function_call":
            call_id = f"{item.get('call_id', '')}|{item.get('id', '')}"
            asm.open_tool_call(call_id, item.get("name", ""))
            self._streamed_args = False
        else:
            asm.close()
            self._item_index = None
            return
        self._item_index = payload.get("output_index")

    def _done(self, payload: dict[str, Any]) -> None:
        asm = self.assembler
        block = asm.block
        item = payload.get("item") or {}
        if item.get("type") == "web_search_call":
            # Kept whole as it came: replayed as an input item of its own.
            asm.add_block(
                ProviderBlock(API, json.dumps(item, ensure_ascii=False, separators=(",", ":")))
            )
            return
        if payload.get("output_index") != self._item_index or block is None:
            return
        if block.kind == "thinking":
            block.signature = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        elif block.kind == "tool_call" and not self._streamed_args:
            asm.delta(item.get("arguments") or "")
        asm.close()
        self._item_index = None

    def _usage(self, usage: dict[str, Any]) -> None:
        counts = self.assembler.usage
        details = usage.get("input_tokens_details") or {}
        cached = details.get("cached_tokens") or 0
        written = details.get("cache_write_tokens") or 0
        counts.input = max((usage.get("input_tokens") or 0) - cached - written, 0)
        counts.cache_read = cached
        counts.cache_write = written
        counts.output = usage.get("output_tokens") or 0
        counts.reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0
        counts.total = usage.get("total_tokens")


# -- client -------------------------------------------------------------------


class OpenAIResponsesLLM(SSEAdapter):
    """`LLM` over `POST {base_url}/responses`."""

    api = API

    def url(self) -> str:
        return self.spec.base_url.rstrip("/") + "/responses"

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api_key}"}

    def body(self, ctx: CallContext, request: RequestMessages) -> dict[str, Any]:
        return build_request(self.spec, request, ctx)

    def parser(self, assembler: Assembler) -> StreamParser:
        return ResponsesStreamParser(assembler)
