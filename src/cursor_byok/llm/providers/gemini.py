"""Google Gemini (`models/{model}:streamGenerateContent?alt=sse`).

Gemini sends whole parts, not deltas: a function call arrives complete, so
its start, one delta and its end are emitted together. `thoughtSignature`
strings are kept exactly as received and replayed only to the same model;
Gemini 3 requires one on every function call, so calls made by another
model carry the documented skip sentinel instead. Images a tool returned go
inside the function response from Gemini 3 on, in a turn after it before.
Usage counts cached tokens inside `promptTokenCount`; we subtract them.

Grounding with Google Search (`[web] provider_search`): from Gemini 3 on
the `google_search` tool may sit beside function declarations, with
`toolConfig.includeServerSideToolInvocations` (ai.google.dev, "Combine
built-in tools and function calling"), and it takes the WebSearch tool's
place. The response then carries the search as `toolCall` and
`toolResponse` parts, which the API asks to be sent back in the next turns
with the rest of the model's content, and the candidate's
`groundingMetadata` (the queries, and a `web {uri, title}` per source).
Each is kept whole as a `ProviderBlock`, the parts replayed as they came
(byte-stable) to the model that made them (they carry its signature;
another model gets the answer's text), the metadata never sent back (it
is no part): it is what the search card and `show` list
(`provider_search`). Gemini 2 takes `google_search` only without function
declarations, so there the WebSearch tool stays a function, served by the
`[web]` backend.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.images import oldest_left_out
from cursor_byok.llm.provider import CallContext, ModelSpec, request_thinking, takes_images
from cursor_byok.llm.providers.base import SSEAdapter
from cursor_byok.llm.providers.common import loads, safe_id
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
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from cursor_byok.llm.upstream_errors import UpstreamError, error_in_stream

API = "google-generative-ai"
RENDERED = RenderCache()
"""Each conversation's rendered history, per model: a call renders only new messages."""
SKIP_SIGNATURE = "skip_thought_signature_validator"


DECLINED = frozenset(
    {"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "SPII", "BLOCKLIST", "IMAGE_SAFETY"}
)
"""Finish reasons that are a refusal to answer, not a failure to answer."""


def normalize_id(value: str) -> str:
    return safe_id(value, 64)


def needs_call_signature(model: str) -> bool:
    return model.startswith("gemini-3")


# -- request ------------------------------------------------------------------


def _user_parts(content: str | tuple[UserContent, ...]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    return [
        {"text": b.text}
        if isinstance(b, TextContent)
        else {"inlineData": {"mimeType": b.mime_type, "data": b.data}}
        for b in content
    ]


def _model_parts(message: AssistantMessage, same: bool, model: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ThinkingContent(thinking=text, thinking_signature=signature):
                part: dict[str, Any] = {"thought": True, "text": text}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
            case TextContent(text=text, text_signature=signature):
                part = {"text": text}
                if signature and same:
                    part["thoughtSignature"] = signature
                parts.append(part)
            case ToolCall():
                part = {
                    "functionCall": {
                        "name": block.name,
                        "args": dict(block.arguments),
                        "id": block.id,
                    }
                }
                if block.thought_signature:
                    part["thoughtSignature"] = block.thought_signature
                elif not same and needs_call_signature(model):
                    part["thoughtSignature"] = SKIP_SIGNATURE
                parts.append(part)
            case ProviderBlock(raw=raw) if same:  # signed by this very model
                doc = json.loads(raw)
                if GROUNDING not in doc:  # the metadata is no part: never sent back
                    parts.append(doc)
    return parts


def nests_tool_images(model: str) -> bool:
    """Whether the model takes images inside `functionResponse.parts`
    (Gemini 3 on); an older model refuses the field, so its tool images go
    in a user turn of their own after the function responses."""
    major = re.match(r"gemini-(\d+)", model)
    return major is not None and int(major.group(1)) >= 3


TOOL_IMAGES_NOTE = "Attached image(s) from tool result:"

GROUNDING = "groundingMetadata"
"""The key of the block that keeps a response's grounding metadata."""
SEARCH_TOOL: dict[str, Any] = {"google_search": {}}
"""Gemini's own search, offered in place of the WebSearch tool (Gemini 3 on)."""


def searches_itself(model: str) -> bool:
    """Whether the model takes `google_search` beside function declarations."""
    return nests_tool_images(model)


def _inline(image: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def _function_response(message: ToolResultMessage, nested: bool) -> dict[str, Any]:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    text = text or ("(see attached image)" if images else "")
    response = {"error": text} if message.is_error else {"output": text}
    part: dict[str, Any] = {
        "name": message.tool_name,
        "response": response,
        "id": message.tool_call_id,
    }
    if nested and images:
        part["parts"] = [_inline(image) for image in images]
    return {"functionResponse": part}


def render_contents(
    spec: ModelSpec, request: RequestMessages, left_out: frozenset[int] | None = None
) -> list[dict[str, Any]]:
    """`contents` with consecutive function responses merged into one turn;
    for a model before Gemini 3, the images of those responses follow in a
    user turn of their own (one that mixes them in is refused)."""
    target = Target(API, spec.provider, spec.model, takes_images(spec, "gemini"), left_out)
    history = prepare_history(request.messages, target, normalize_id)
    nested = nests_tool_images(spec.model)
    out: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    for message in history:
        if images and not isinstance(message, ToolResultMessage):
            out.append({"role": "user", "parts": [{"text": TOOL_IMAGES_NOTE}, *images]})
            images = []
        match message:
            case UserMessage(content=content):
                out.append({"role": "user", "parts": _user_parts(content)})
            case AssistantMessage():
                parts = _model_parts(message, target.made(message), spec.model)
                if parts:
                    out.append({"role": "model", "parts": parts})
            case ToolResultMessage():
                part = _function_response(message, nested)
                if not nested:
                    content = message.content
                    images.extend(_inline(b) for b in content if isinstance(b, ImageContent))
                last = out[-1] if out else None
                if last and last["role"] == "user" and "functionResponse" in last["parts"][-1]:
                    last["parts"].append(part)
                else:
                    out.append({"role": "user", "parts": [part]})
    if images:
        out.append({"role": "user", "parts": [{"text": TOOL_IMAGES_NOTE}, *images]})
    return out


def build_request(
    spec: ModelSpec, request: RequestMessages, ctx: CallContext | None = None
) -> dict[str, Any]:
    left_out = oldest_left_out(request.messages, API, takes_images(spec, "gemini"))
    contents = RENDERED.render(
        image_key(cache_key(API, spec, ctx), left_out),
        request.messages,
        lambda part: render_contents(spec, replace(request, messages=tuple(part)), left_out),
    )
    body: dict[str, Any] = {"contents": contents}
    if request.system_prompt is not None:
        body["systemInstruction"] = {"parts": [{"text": request.system_prompt}]}
    native = searches_itself(spec.model)
    search = native and any(t.native == "web_search" for t in request.tools)
    functions = [t for t in request.tools if not (native and t.native == "web_search")]
    tools: list[dict[str, Any]] = []
    if functions:
        declared = [
            {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
            for t in functions
        ]
        tools.append({"functionDeclarations": declared})
    if search:
        tools.append(dict(SEARCH_TOOL))
        body["toolConfig"] = {"includeServerSideToolInvocations": True}
    if tools:
        body["tools"] = tools
    plan = request_thinking(spec, "gemini")
    config: dict[str, Any] = {"maxOutputTokens": plan.max_output}
    # Never both: Gemini rejects a request carrying a level and a budget.
    if plan.level is not None:
        config["thinkingConfig"] = {"includeThoughts": True, "thinkingLevel": plan.level}
    elif plan.budget is not None:
        config["thinkingConfig"] = {"includeThoughts": True, "thinkingBudget": plan.budget}
    body["generationConfig"] = config
    return body


# -- stream -------------------------------------------------------------------

_FINISH: dict[str, DoneReason] = {"STOP": "stop", "MAX_TOKENS": "length"}


class GeminiStreamParser:
    """Each chunk is a whole `GenerateContentResponse`; usage is cumulative."""

    __slots__ = ("_bad_finish", "_finished", "_grounding", "assembler")

    def __init__(self, assembler: Assembler) -> None:
        self.assembler = assembler
        self._finished = False
        self._bad_finish: str | None = None
        self._grounding: dict[str, Any] | None = None

    def on_event(self, event: SSEEvent) -> None:
        chunk = loads(event.data)
        if isinstance(chunk, list) and chunk:
            chunk = chunk[0]
        if not isinstance(chunk, dict):
            return
        asm = self.assembler
        if "error" in chunk:
            asm.fail(error_in_stream(chunk))
            return
        if asm.response_id is None and isinstance(chunk.get("responseId"), str):
            asm.response_id = chunk["responseId"]
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            self._usage(usage)
        for candidate in (chunk.get("candidates") or ())[:1]:
            for part in (candidate.get("content") or {}).get("parts") or ():
                self._part(part)
            grounding = candidate.get(GROUNDING)
            if isinstance(grounding, dict) and grounding:
                self._grounding = grounding  # the last one is the whole response's
            finish = candidate.get("finishReason")
            if finish:
                self._finished = True
                mapped = _FINISH.get(finish)
                if mapped is None:
                    self._bad_finish = finish
                else:
                    asm.stop_reason = mapped

    def on_end(self) -> None:
        """Gemini ends a stream by closing it; a finish reason makes it complete."""
        asm = self.assembler
        if self._bad_finish in DECLINED:
            asm.decline(self._bad_finish)
        elif self._bad_finish is not None:
            asm.fail(UpstreamError(f"the model stopped: {self._bad_finish}"))
        elif self._finished:
            if self._grounding is not None:
                asm.add_block(ProviderBlock(API, _raw({GROUNDING: self._grounding})))
            asm.finish()
        else:
            asm.fail(UpstreamError("the stream ended without a finish reason", retryable=True))

    def _part(self, part: dict[str, Any]) -> None:
        asm = self.assembler
        if "toolCall" in part or "toolResponse" in part:
            asm.add_block(ProviderBlock(API, _raw(part)))  # its search, as it came
            return
        signature = part.get("thoughtSignature")
        call = part.get("functionCall")
        if isinstance(call, dict):
            args = call.get("args") or {}
            index = len(asm.content) + (1 if asm.block is not None else 0)
            call_id = call.get("id") or f"{call.get('name', 'call')}_{asm.response_id}_{index}"
            asm.open_tool_call(call_id, call.get("name", "")).signature = signature
            asm.delta(json.dumps(args, ensure_ascii=False, separators=(",", ":")))
            asm.close()
            return
        text = part.get("text")
        if not isinstance(text, str):
            return
        kind = "thinking" if part.get("thought") else "text"
        block = asm.block
        if block is None or block.kind != kind:
            if not text and not signature:
                return
            block = asm.open_thinking() if kind == "thinking" else asm.open_text()
        if signature:
            block.signature = signature
        asm.delta(text)

    def _usage(self, usage: dict[str, Any]) -> None:
        counts = self.assembler.usage
        cached = usage.get("cachedContentTokenCount") or 0
        thoughts = usage.get("thoughtsTokenCount") or 0
        counts.input = max((usage.get("promptTokenCount") or 0) - cached, 0)
        counts.cache_read = cached
        counts.output = (usage.get("candidatesTokenCount") or 0) + thoughts
        counts.reasoning = thoughts
        counts.total = usage.get("totalTokenCount")


def _raw(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


# -- client -------------------------------------------------------------------


class GeminiLLM(SSEAdapter):
    """`LLM` over `POST {base_url}/models/{model}:streamGenerateContent?alt=sse`;
    `base_url` includes the API version (e.g. `.../v1beta`)."""

    api = API

    def url(self) -> str:
        return (
            f"{self.spec.base_url.rstrip('/')}/models/{self.spec.model}"
            ":streamGenerateContent?alt=sse"
        )

    def headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._api_key}

    def body(self, ctx: CallContext, request: RequestMessages) -> dict[str, Any]:
        return build_request(self.spec, request, ctx)

    def parser(self, assembler: Assembler) -> StreamParser:
        return GeminiStreamParser(assembler)
