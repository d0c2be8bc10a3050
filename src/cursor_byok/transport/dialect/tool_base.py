"""What every client tool is made of: the model-facing definition, the
exec request, the card Cursor shows and the outcome the model reads.

Adding a tool is a `NativeTool` (seed §10): a capability description (name,
description, JSON Schema) and its mapping to the exec channel; or a
`ServerTool` (server_tool.py), which the server runs itself. The loop has no
branch per tool. A result's text for the model is capped at
`MAX_RESULT_CHARS`; the cut is stated in the text so the model knows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from cursor_byok.llm.types import JSONObject, ToolCall, ToolDefinition
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

MAX_RESULT_CHARS = 60_000
"""Tool output given to the model, at most; a read of a huge file or a noisy
command would otherwise fill the context window in one step."""

SHELL_TIMEOUT_MS = 120_000


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """The final answer of one exec, as the model will read it."""

    text: str
    is_error: bool
    images: tuple[bytes, ...] = ()
    """Image bytes the tool returned, in order, untyped: each reaches the
    model as an image typed by its bytes, or as a note (`llm.images.tool_image`)."""


def cap(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    cut = len(text) - MAX_RESULT_CHARS
    return text[:MAX_RESULT_CHARS] + f"\n[output truncated: {cut} more characters not shown]"


def list_value(value: Any) -> list[Any]:
    """A list argument as given; some models send one as a JSON string."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return value if isinstance(value, list) else []


def str_arg(arguments: JSONObject, key: str, default: str = "") -> str:
    value = arguments.get(key, default)
    return value if isinstance(value, str) else default


INT32_MAX = 2**31 - 1


def int_arg(arguments: JSONObject, key: str) -> int | None:
    """An integer argument, clamped to the 32-bit range the exec fields hold."""
    value = arguments.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return max(-INT32_MAX - 1, min(value, INT32_MAX))


def object_schema(properties: dict[str, Any], required: Iterable[str]) -> JSONObject:
    return {"type": "object", "properties": properties, "required": list(required)}


def branch_error(result: Any) -> str | None:
    """The text of a non-success oneof branch of an exec result, or None."""
    branch = result.WhichOneof("result")
    if branch is None:
        return "the client returned an empty result"
    if branch == "success":
        return None
    detail = getattr(result, branch)
    fields = json_format.MessageToDict(detail, preserving_proto_field_name=True)
    reason = fields.get("error") or fields.get("reason") or ""
    where = fields.get("path") or fields.get("command") or ""
    text = branch.replace("_", " ")
    if where:
        text += f": {where}"
    return f"{text} - {reason}" if reason else text


@dataclass(frozen=True, slots=True)
class NextExec:
    """The next exec of a multi-step tool: which args field, and its value."""

    field: str
    args: Any


def exec_message(number: int, exec_id: str, field: str, args: Any) -> pb.ExecServerMessage:
    """The one builder of an exec request: `args` goes into the oneof `field`."""
    message = pb.ExecServerMessage(id=number, exec_id=exec_id)
    getattr(message, field).CopyFrom(args)
    return message


class Tool:
    """What every tool offered to the model has: its definition and its card.
    `NativeTool` is run by the client over the exec channel; `ServerTool`
    (server_tool.py) by the server itself."""

    name: str
    description: str
    parameters: JSONObject
    queries: tuple[str, ...] = ()
    """The interaction queries a call may send the client (`InteractionQuery`
    members): a client that cannot answer one is not offered the tool."""

    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, self.description, self.parameters)

    def card(self, call: ToolCall, result: Any) -> pb.ToolCall:
        """The card; `result` None: the call as started, before any result."""
        raise NotImplementedError

    def partial_card(self, call: ToolCall) -> pb.ToolCall | None:
        """The card while the arguments stream in (`call.arguments` parsed so
        far), or None: no card but the empty one shown at the start."""
        del call
        return None

    def card_kind(self) -> str:
        """The `ToolCall` member its card fills, which the client must draw
        (one per class of tool: `tools.offered` asks each class once)."""
        return self.card(ToolCall("", self.name, {}), None).WhichOneof("tool") or ""


class NativeTool(Tool):
    """One client tool: the mapping to Cursor's exec channel and tool card."""

    exec_field: str

    def exec_args(self, call: ToolCall) -> Any:
        raise NotImplementedError

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        raise NotImplementedError

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        raise NotImplementedError

    def card_blobs(self, result: pb.ExecClientMessage | None) -> list[bytes]:
        """What the completed card names by blob id (the SHA-256 of the
        bytes) rather than carrying: the client's KV store gets it first."""
        del result
        return []

    def exec_request(self, call: ToolCall, number: int, exec_id: str) -> pb.ExecServerMessage:
        return exec_message(number, exec_id, self.exec_field, self.exec_args(call))

    def step(
        self, call: ToolCall, result: pb.ExecClientMessage, memo: dict[str, Any]
    ) -> ToolOutcome | NextExec:
        """What a finished exec leads to: the outcome, or (for tools made of
        several execs) the next exec to send. `memo` is kept between steps."""
        del memo
        return self.outcome(result)
