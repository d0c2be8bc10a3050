"""OpenAI Chat Completions, and every vendor that speaks it.

Vendors differ by a `ChatCompat` record (data, not code paths): which role
the system prompt takes, the max-tokens field name, whether `store`,
`stream_options`, `reasoning_effort` or `prompt_cache_key` are accepted, and
where reasoning comes back and must be replayed (DeepSeek insists on getting
`reasoning_content` back on every tool-call turn, even when it was empty).

Thinking blocks from this API carry, as signature, the name of the delta
field the reasoning arrived in (`reasoning_content`, `reasoning`), or the
merged OpenRouter `reasoning_details` list as JSON when there were any; that
is what is replayed to the same model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from cursor_byok.llm.assembler import Assembler, OpenBlock
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
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.sse import SSEEvent
from cursor_byok.llm.stream import StreamParser
from cursor_byok.llm.transform import Target, prepare_history
from cursor_byok.llm.types import (
    AssistantMessage,
    DoneReason,
    ImageContent,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.llm.upstream_errors import UpstreamError, error_in_stream

API = "openai-chat"
RENDERED = RenderCache()
"""Each conversation's rendered history, per model: a call renders only new messages."""
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
TOOL_IMAGES_NOTE = "Attached image(s) from tool result:"


@dataclass(frozen=True, slots=True)
class ChatCompat:
    """What one OpenAI-compatible vendor accepts and sends."""

    developer_role: bool = False
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    store: bool = False
    usage_in_streaming: bool = True
    reasoning_param: Literal["reasoning_effort", "openrouter", "enable_thinking"] | None = None
    prompt_cache_key: bool = False
    replay_reasoning_field: str | None = None
    """Always send this field on assistant tool-call turns (DeepSeek)."""
    tool_result_name: bool = False
    id_limit: int = 40


COMPATS: dict[str, ChatCompat] = {
    "openai": ChatCompat(
        developer_role=True,
        max_tokens_field="max_completion_tokens",
        store=True,
        reasoning_param="reasoning_effort",
        prompt_cache_key=True,
    ),
    "deepseek": ChatCompat(replay_reasoning_field="reasoning_content", id_limit=64),
    "openrouter": ChatCompat(reasoning_param="openrouter", id_limit=64),
    "groq": ChatCompat(
        max_tokens_field="max_completion_tokens", reasoning_param="reasoning_effort"
    ),
    "ollama": ChatCompat(reasoning_param="reasoning_effort", id_limit=64),
    "vllm": ChatCompat(id_limit=64),
    "gpustack": ChatCompat(id_limit=64),
    "moonshot": ChatCompat(tool_result_name=True, id_limit=64),
    "qwen": ChatCompat(reasoning_param="enable_thinking", id_limit=64),
}
DEFAULT_COMPAT = ChatCompat(id_limit=64)


def compat_for(provider: str) -> ChatCompat:
    return COMPATS.get(provider, DEFAULT_COMPAT)


def normalize_id(value: str, compat: ChatCompat) -> str:
    """Responses-style `call|item` ids keep only the call part."""
    return safe_id(value.split("|", 1)[0], compat.id_limit)


# -- request ------------------------------------------------------------------


def _user_content(content: str | tuple[TextContent | ImageContent, ...]) -> Any:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append({"type": "image_url", "image_url": {"url": data_url(block)}})
    return parts


def _assistant(message: AssistantMessage, compat: ChatCompat) -> dict[str, Any] | None:
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    thinking = [b for b in message.content if isinstance(b, ThinkingContent)]
    calls = message.tool_calls
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    reasoning_text = "".join(b.thinking for b in thinking)
    signature = next((b.thinking_signature for b in thinking if b.thinking_signature), None)
    if compat.replay_reasoning_field and (calls or thinking):
        out[compat.replay_reasoning_field] = reasoning_text
    elif signature and signature.startswith("["):
        out["reasoning_details"] = json.loads(signature)
    elif signature in REASONING_FIELDS:
        out[signature] = reasoning_text
    if calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_text(call)},
            }
            for call in calls
        ]
    if out["content"] is None and not calls:
        return None
    return out


def _tool_result(
    message: ToolResultMessage, compat: ChatCompat
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The `tool` message, and the user message carrying its images (if any)."""
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    out: dict[str, Any] = {"role": "tool", "tool_call_id": message.tool_call_id}
    if compat.tool_result_name:
        out["name"] = message.tool_name
    out["content"] = text or ("(see attached image)" if images else "")
    if not images:
        return out, None
    parts: list[dict[str, Any]] = [{"type": "text", "text": TOOL_IMAGES_NOTE}]
    parts.extend({"type": "image_url", "image_url": {"url": data_url(i)}} for i in images)
    return out, {"role": "user", "content": parts}


def render_messages(
    spec: ModelSpec,
    request: RequestMessages,
    compat: ChatCompat,
    left_out: frozenset[int] | None = None,
) -> list[dict[str, Any]]:
    """The `messages` array without the system prompt, append-only. The
    `tool` messages of one assistant message come right after it, one per
    call; images from those results follow the last of them (a user message
    between two `tool` messages is rejected)."""
    target = Target(API, spec.provider, spec.model, takes_images(spec, API), left_out)
    history = prepare_history(request.messages, target, lambda i: normalize_id(i, compat))
    out: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    for message in history:
        if not isinstance(message, ToolResultMessage):
            out.extend(images)
            images = []
        match message:
            case UserMessage(content=content):
                out.append({"role": "user", "content": _user_content(content)})
            case AssistantMessage():
                rendered = _assistant(message, compat)
                if rendered is not None:
                    out.append(rendered)
            case ToolResultMessage():
                result, attached = _tool_result(message, compat)
                out.append(result)
                if attached is not None:
                    images.append(attached)
    out.extend(images)
    return out


def _tool(tool: ToolDefinition) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def build_request(
    spec: ModelSpec, request: RequestMessages, ctx: CallContext | None = None
) -> dict[str, Any]:
    compat = compat_for(spec.provider)
    plan = request_thinking(spec, API)
    head: list[dict[str, Any]] = []
    if request.system_prompt is not None:
        role = "developer" if compat.developer_role and plan.level else "system"
        head.append({"role": role, "content": request.system_prompt})
    left_out = oldest_left_out(request.messages, API, takes_images(spec, API))
    messages = RENDERED.render(
        image_key(cache_key(API, spec, ctx), left_out),
        request.messages,
        lambda part: render_messages(
            spec, replace(request, messages=tuple(part)), compat, left_out
        ),
        head,
    )
    body: dict[str, Any] = {"model": spec.model, "messages": messages, "stream": True}
    if compat.usage_in_streaming:
        body["stream_options"] = {"include_usage": True}
    body[compat.max_tokens_field] = plan.max_output
    if request.tools:
        body["tools"] = frozen_tools(request.tools, _tool)
    elif any(isinstance(m, AssistantMessage) and m.tool_calls for m in request.messages):
        body["tools"] = []
    if plan.level is not None:
        if compat.reasoning_param == "reasoning_effort":
            body["reasoning_effort"] = plan.level
        elif compat.reasoning_param == "openrouter":
            body["reasoning"] = {"effort": plan.level}
        elif compat.reasoning_param == "enable_thinking":
            body["enable_thinking"] = True
    if compat.store:
        body["store"] = False
    if compat.prompt_cache_key and ctx is not None and ctx.session_id:
        body["prompt_cache_key"] = ctx.session_id
    return body


# -- stream -------------------------------------------------------------------

_FINISH: dict[str, DoneReason] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}


_REASONING = frozenset(REASONING_FIELDS)


class ChatStreamParser:
    """Chunks in, assembler calls out. Tool calls are keyed by `index`, so
    parallel calls stay apart even when a server leaves `id` off later chunks."""

    __slots__ = ("_call_index", "_details", "_filtered", "assembler")

    def __init__(self, assembler: Assembler) -> None:
        self.assembler = assembler
        self._call_index: int | None = None
        self._details: dict[int, dict[str, Any]] = {}
        self._filtered: str | None = None

    def on_event(self, event: SSEEvent) -> None:
        data = event.data
        if data == "[DONE]":
            self._complete()
            return
        chunk = loads(data)
        if not isinstance(chunk, dict):
            return
        asm = self.assembler
        if asm.response_id is None and isinstance(chunk.get("id"), str):
            asm.response_id = chunk["id"]
        usage = chunk.get("usage")
        if usage is not None and isinstance(usage, dict):  # most chunks: null or absent
            self._usage(usage)
        if event.event == "error" or "error" in chunk:
            asm.fail(error_in_stream(chunk))
            return
        for choice in chunk.get("choices") or ():
            self._choice(choice)
            usage = choice.get("usage")
            if usage is not None and isinstance(usage, dict):
                self._usage(usage)

    def on_end(self) -> None:
        if self.assembler.stop_reason is not None or self._filtered:
            self._complete()
        else:
            self.assembler.fail(
                UpstreamError("the stream ended before the response was complete", retryable=True)
            )

    def _complete(self) -> None:
        asm = self.assembler
        if self._filtered:
            asm.decline(self._filtered)
            return
        if asm.block is not None and asm.block.kind == "thinking" and self._details:
            asm.block.signature = self._details_signature()
        asm.finish()

    def _details_signature(self) -> str:
        merged = [self._details[k] for k in sorted(self._details)]
        return canonical_dumps(merged).decode("utf-8", "surrogatepass")

    def _choice(self, choice: dict[str, Any]) -> None:
        asm = self.assembler
        delta = choice.get("delta") or {}
        if not _REASONING.isdisjoint(delta):  # one look for the three names
            self._reasoning(delta)
        details = delta.get("reasoning_details")
        if details:
            self._merge_details(details)
        content = delta.get("content")
        if content and isinstance(content, str):
            block = asm.block
            if block is None or block.kind != "text":
                self._close_thinking(block)
                asm.open_text()
            asm.delta(content)
        for call in delta.get("tool_calls") or ():
            self._tool_call(call)
        finish = choice.get("finish_reason")
        if finish:
            mapped = _FINISH.get(finish)
            if mapped is None:
                self._filtered = finish
            else:
                asm.stop_reason = mapped

    def _reasoning(self, delta: dict[str, Any]) -> None:
        asm = self.assembler
        for name in REASONING_FIELDS:
            piece = delta.get(name)
            if isinstance(piece, str) and piece:
                block = asm.block
                if block is None or block.kind != "thinking":
                    asm.open_thinking(signature=name)
                asm.delta(piece)
                return

    def _close_thinking(self, block: OpenBlock | None) -> None:
        if block is not None and block.kind == "thinking" and self._details:
            block.signature = self._details_signature()
            self._details = {}

    def _tool_call(self, call: dict[str, Any]) -> None:
        asm = self.assembler
        index = call.get("index", 0)
        function = call.get("function") or {}
        block = asm.block
        # Servers that send each call whole may leave out `index` (all 0);
        # a new id then starts a new call.
        fresh_id = call.get("id") and block is not None and call["id"] != block.call_id
        if block is None or block.kind != "tool_call" or self._call_index != index or fresh_id:
            self._close_thinking(block)
            self._call_index = index
            call_id = call.get("id") or f"call_{len(asm.content)}"
            asm.open_tool_call(call_id, function.get("name") or "")
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            asm.delta(arguments)

    def _merge_details(self, details: list[Any]) -> None:
        for item in details:
            if not isinstance(item, dict):
                continue
            key = item.get("index", 0)
            merged = self._details.setdefault(key, {})
            for name, value in item.items():
                if name == "text" and isinstance(value, str):
                    merged["text"] = merged.get("text", "") + value
                elif value not in (None, ""):
                    merged[name] = value

    def _usage(self, usage: dict[str, Any]) -> None:
        counts = self.assembler.usage
        prompt = usage.get("prompt_tokens") or 0
        details = usage.get("prompt_tokens_details") or {}
        cached = usage.get("prompt_cache_hit_tokens")
        if cached is None:
            cached = details.get("cached_tokens") or 0
        written = details.get("cache_write_tokens") or 0
        missed = usage.get("prompt_cache_miss_tokens")
        counts.input = missed if missed is not None else max(prompt - cached - written, 0)
        counts.cache_read = cached
        counts.cache_write = written
        counts.output = usage.get("completion_tokens") or 0
        output_details = usage.get("completion_tokens_details") or {}
        counts.reasoning = output_details.get("reasoning_tokens") or 0
        counts.total = usage.get("total_tokens")


# -- client -------------------------------------------------------------------


class OpenAIChatLLM(SSEAdapter):
    """`LLM` over `POST {base_url}/chat/completions`."""

    api = API

    def url(self) -> str:
        return self.spec.base_url.rstrip("/") + "/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api_key}"}

    def body(self, ctx: CallContext, request: RequestMessages) -> dict[str, Any]:
        return build_request(self.spec, request, ctx)

    def parser(self, assembler: Assembler) -> StreamParser:
        return ChatStreamParser(assembler)
