"""Recorded-style response streams, written in each API's wire format for the
cases no recording covers (two and three parallel calls, text around a tool
call, redacted thinking, an error inside a call's arguments). The event
shapes follow the recordings in ../shared/fixtures/llm; arguments arrive in
pieces, as the real APIs stream them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    arguments: dict[str, Any]
    truncated: bool = False
    """Cut off by the output limit: only the first half of its arguments."""

    def text(self) -> str:
        whole = json.dumps(self.arguments)
        return whole[: len(whole) // 2] if self.truncated else whole

    def argument_pieces(self) -> list[str]:
        text = self.text()
        middle = len(text) // 2
        return [text[:middle], text[middle:]]


def _truncated(blocks: Sequence[Block]) -> bool:
    return any(isinstance(b, Call) and b.truncated for b in blocks)


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Thinking:
    text: str
    signature: str


@dataclass(frozen=True)
class Redacted:
    data: str


Block = Call | Text | Thinking | Redacted


def _sse(events: Sequence[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def reads(*paths: str, prefix: str = "call") -> list[Call]:
    """Parallel `read_file` calls, one per path."""
    return [Call(f"{prefix}_{i}", "read_file", {"path": p}) for i, p in enumerate(paths, 1)]


# -- Anthropic Messages ------------------------------------------------------------------


def anthropic(blocks: Sequence[Block], *, cut_in_call: int | None = None) -> bytes:
    """`cut_in_call`: stop inside that block's arguments with an error event."""
    events: list[tuple[str | None, Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_01Wire",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude",
                    "stop_reason": None,
                    "usage": {"input_tokens": 120, "output_tokens": 1},
                },
            },
        ),
    ]
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        deltas: list[dict[str, Any]] = []
        match block:
            case Text(text=text):
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": text}]
            case Thinking(text=text, signature=signature):
                start = {"type": "thinking", "thinking": "", "signature": ""}
                deltas = [
                    {"type": "thinking_delta", "thinking": text},
                    {"type": "signature_delta", "signature": signature},
                ]
            case Redacted(data=data):
                start = {"type": "redacted_thinking", "data": data}
            case Call():
                start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
                deltas = [
                    {"type": "input_json_delta", "partial_json": p} for p in block.argument_pieces()
                ]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        if cut_in_call == index:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": deltas[0]},
                )
            )
            events.append(
                (
                    "error",
                    {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": "stream interrupted"},
                    },
                )
            )
            return _sse(events)
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = "tool_use" if any(isinstance(b, Call) for b in blocks) else "end_turn"
    stop = "max_tokens" if _truncated(blocks) else stop
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 40},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return _sse(events)


# -- OpenAI Chat Completions (and DeepSeek) ---------------------------------------------------


def chat(
    blocks: Sequence[Block], *, model: str = "gpt-4.1", cut_in_call: int | None = None
) -> bytes:
    """Reasoning (a `Thinking`) goes out as DeepSeek's `reasoning_content`."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, Any]:
        return (
            None,
            {
                "id": "chatcmpl-wire",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            },
        )

    events = [chunk({"role": "assistant", "content": ""})]
    calls = 0
    for block in blocks:
        match block:
            case Thinking(text=text):
                events.append(chunk({"reasoning_content": text}))
            case Text(text=text):
                events.append(chunk({"content": text}))
            case Call():
                first, rest = block.argument_pieces()
                events.append(
                    chunk(
                        {
                            "tool_calls": [
                                {
                                    "index": calls,
                                    "id": block.id,
                                    "type": "function",
                                    "function": {"name": block.name, "arguments": first},
                                }
                            ]
                        }
                    )
                )
                if cut_in_call == calls:
                    events.append(
                        (
                            None,
                            {
                                "error": {
                                    "message": "upstream connection reset",
                                    "type": "server_error",
                                    "code": None,
                                }
                            },
                        )
                    )
                    return _sse(events)
                events.append(
                    chunk({"tool_calls": [{"index": calls, "function": {"arguments": rest}}]})
                )
                calls += 1
    finish = "length" if _truncated(blocks) else "tool_calls" if calls else "stop"
    events.append(chunk({}, finish))
    events.append(
        (
            None,
            {
                "id": "chatcmpl-wire",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [],
                "usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
            },
        )
    )
    return _sse(events) + b"data: [DONE]\n\n"


# -- OpenAI Responses ---------------------------------------------------------------------------


def responses(blocks: Sequence[Block], *, cut_in_call: int | None = None) -> bytes:
    events: list[tuple[str | None, Any]] = [
        (
            "response.created",
            {"type": "response.created", "response": {"id": "resp_wire", "status": "in_progress"}},
        ),
    ]
    for index, block in enumerate(blocks):
        item: dict[str, Any]
        match block:
            case Thinking(text=text, signature=signature):
                item = {
                    "id": f"rs_{index}",
                    "type": "reasoning",
                    "encrypted_content": signature,
                    "summary": [{"type": "summary_text", "text": text}],
                }
                events.append(
                    (
                        "response.output_item.added",
                        {
                            "type": "response.output_item.added",
                            "output_index": index,
                            "item": {**item, "summary": []},
                        },
                    )
                )
                events.append(
                    (
                        "response.reasoning_summary_text.delta",
                        {
                            "type": "response.reasoning_summary_text.delta",
                            "output_index": index,
                            "summary_index": 0,
                            "delta": text,
                        },
                    )
                )
            case Text(text=text):
                item = {
                    "id": f"msg_{index}",
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
                events.append(
                    (
                        "response.output_item.added",
                        {
                            "type": "response.output_item.added",
                            "output_index": index,
                            "item": {**item, "content": [], "status": "in_progress"},
                        },
                    )
                )
                events.append(
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "output_index": index,
                            "content_index": 0,
                            "delta": text,
                        },
                    )
                )
            case Call():
                text = block.text()
                item = {
                    "id": f"fc_{block.id}",
                    "type": "function_call",
                    "status": "completed",
                    "call_id": block.id,
                    "name": block.name,
                    "arguments": text,
                }
                events.append(
                    (
                        "response.output_item.added",
                        {
                            "type": "response.output_item.added",
                            "output_index": index,
                            "item": {**item, "arguments": "", "status": "in_progress"},
                        },
                    )
                )
                for number, piece in enumerate(block.argument_pieces()):
                    events.append(
                        (
                            "response.function_call_arguments.delta",
                            {
                                "type": "response.function_call_arguments.delta",
                                "output_index": index,
                                "item_id": item["id"],
                                "delta": piece,
                            },
                        )
                    )
                    if cut_in_call == index and number == 0:
                        events.append(
                            (
                                "error",
                                {
                                    "type": "error",
                                    "code": "server_error",
                                    "message": "The server had an error",
                                },
                            )
                        )
                        return _sse(events)
            case Redacted():
                raise ValueError("Responses has no redacted thinking")
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    ending = "response.incomplete" if _truncated(blocks) else "response.completed"
    events.append(
        (
            ending,
            {
                "type": ending,
                "response": {
                    "id": "resp_wire",
                    "status": "incomplete" if _truncated(blocks) else "completed",
                    "usage": {"input_tokens": 120, "output_tokens": 40, "total_tokens": 160},
                },
            },
        )
    )
    return _sse(events)


# -- Gemini --------------------------------------------------------------------------------------


def gemini(blocks: Sequence[Block], *, with_ids: bool = False) -> bytes:
    """Gemini sends whole parts (a call's arguments arrive in one piece), and
    Gemini 3 signs only the first call of a turn."""
    parts: list[dict[str, Any]] = []
    signed = False
    for block in blocks:
        match block:
            case Thinking(text=text, signature=signature):
                parts.append({"text": text, "thought": True, "thoughtSignature": signature})
            case Text(text=text):
                parts.append({"text": text})
            case Call():
                call: dict[str, Any] = {"name": block.name, "args": block.arguments}
                if with_ids:
                    call["id"] = block.id
                part: dict[str, Any] = {"functionCall": call}
                if not signed:
                    part["thoughtSignature"] = f"sig-{block.id}"
                    signed = True
                parts.append(part)
            case Redacted():
                raise ValueError("Gemini has no redacted thinking")
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [part]}}], "responseId": "wire"}
        for part in parts
    ]
    chunks.append(
        {
            "candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": 120,
                "candidatesTokenCount": 40,
                "totalTokenCount": 160,
            },
            "responseId": "wire",
        }
    )
    return _sse([(None, c) for c in chunks])
