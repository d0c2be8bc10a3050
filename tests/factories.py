"""Builders for test data: messages, and the event stream an adapter would
produce for a given final message (the grammar of `cursor_byok.llm.events`)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    StartEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    DoneReason,
    JSONObject,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from cursor_byok.loop import ConversationState, RuntimeState, Start, TurnSettings

READ_TOOL = ToolDefinition(
    name="read_file",
    description="Read a file of the workspace.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
)
SETTINGS = TurnSettings(model="test-model", system_prompt="You are a test.", tools=(READ_TOOL,))


def user(text: str, timestamp: int = 1) -> UserMessage:
    return UserMessage(content=text, timestamp=timestamp)


def tool_call(call_id: str, path: str = "a.txt", name: str = "read_file") -> ToolCall:
    arguments: JSONObject = {"path": path}
    return ToolCall(call_id, name, arguments, raw_arguments=json.dumps(arguments))


def assistant(
    *content: AssistantContent, stop_reason: StopReason | None = None, timestamp: int = 2
) -> AssistantMessage:
    if stop_reason is None:
        has_calls = any(isinstance(block, ToolCall) for block in content)
        stop_reason = "toolUse" if has_calls else "stop"
    return AssistantMessage(
        content=tuple(content),
        api="test-api",
        provider="test",
        model="test-model",
        usage=Usage(input=10, output=5, total_tokens=15),
        stop_reason=stop_reason,
        response_id="resp-1",
        timestamp=timestamp,
    )


def result(call_id: str, text: str = "ok", is_error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(call_id, "read_file", (TextContent(text),), is_error, timestamp=3)


def _chunks(text: str, size: int) -> Iterable[str]:
    return (text[i : i + size] for i in range(0, len(text), size)) if text else ()


def stream_of(message: AssistantMessage, chunk: int = 4) -> list[ResponseEvent]:
    """The events an adapter emits for `message`, ending in `done`."""
    events: list[ResponseEvent] = [StartEvent()]
    for index, block in enumerate(message.content):
        match block:
            case TextContent(text=text):
                events.append(TextStart(index))
                events.extend(TextDelta(index, piece) for piece in _chunks(text, chunk))
                events.append(TextEnd(index, text))
            case ThinkingContent(thinking=thinking):
                events.append(ThinkingStart(index))
                events.extend(ThinkingDelta(index, piece) for piece in _chunks(thinking, chunk))
                events.append(ThinkingEnd(index, thinking))
            case ToolCall(id=call_id, name=name, raw_arguments=raw):
                events.append(ToolCallStart(index, call_id, name))
                events.extend(ToolCallDelta(index, piece) for piece in _chunks(raw or "", chunk))
                events.append(ToolCallEnd(index, block))
    reason = message.stop_reason
    assert reason in ("stop", "length", "toolUse", "pause")
    done_reason: DoneReason = reason
    events.append(DoneEvent(done_reason, message))
    return events


def error_event(text: str = "upstream exploded", aborted: bool = False) -> ErrorEvent:
    message = assistant(TextContent("partial"), stop_reason="aborted" if aborted else "error")
    message = AssistantMessage(
        content=message.content,
        api=message.api,
        provider=message.provider,
        model=message.model,
        stop_reason=message.stop_reason,
        error_message=text,
        timestamp=message.timestamp,
    )
    return ErrorEvent("aborted" if aborted else "error", message, status=500)


def fresh(conversation_id: str = "conv-1") -> RuntimeState:
    return RuntimeState(ConversationState(conversation_id))


def start(text: str = "hello", timestamp: int = 1) -> Start:
    return Start(user(text, timestamp), settings=SETTINGS)
