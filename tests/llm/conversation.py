"""One conversation, grown turn by turn, to check that each request's
rendering of the history is a byte prefix of the next one's."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    RequestMessages,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tests import image_samples
from tests.factories import READ_TOOL

PNG = base64.b64encode(image_samples.png()).decode("ascii")
"""A real 1x1 PNG, base64 (the request rules read each image's header)."""


def reply(api: str, provider: str, model: str, *content: AssistantContent) -> AssistantMessage:
    calls = any(isinstance(b, ToolCall) for b in content)
    return AssistantMessage(
        content=tuple(content),
        api=api,
        provider=provider,
        model=model,
        usage=Usage(input=10, output=5, total_tokens=15),
        stop_reason="toolUse" if calls else "stop",
        response_id="resp-1",
        timestamp=5,
    )


def three_requests(turns: list[list[Message]]) -> list[RequestMessages]:
    """Requests after each turn; every turn only appends messages."""
    history: list[Message] = []
    out = []
    for turn in turns:
        history.extend(turn)
        out.append(RequestMessages("Be brief.", tuple(history), (READ_TOOL,)))
    return out


def standard_turns(make_reply: Callable[..., AssistantMessage], call: Any) -> list[list[Message]]:
    return [
        [UserMessage((TextContent("look"), ImageContent(PNG, "image/png")), timestamp=1)],
        [
            make_reply(call),
            ToolResultMessage(call.id, call.name, (TextContent("file body"),), timestamp=6),
        ],
        [make_reply(TextContent("done")), UserMessage("thanks", timestamp=7)],
    ]


def element_bytes(items: list[Any]) -> list[bytes]:
    return [json.dumps(i, ensure_ascii=False, separators=(",", ":")).encode() for i in items]


def assert_prefix(arrays: list[list[Any]]) -> None:
    """Array N's elements are, byte for byte, the first elements of array N+1."""
    for shorter, longer in pairwise(arrays):
        a, b = element_bytes(shorter), element_bytes(longer)
        assert len(b) > len(a)
        assert b[: len(a)] == a
