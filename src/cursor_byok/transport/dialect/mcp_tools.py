"""Tools of the user's MCP servers, offered under provider-safe names and
run by the client through the exec channel."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from google.protobuf import json_format, struct_pb2

from cursor_byok.llm.providers.common import safe_id
from cursor_byok.llm.types import JSONObject, ToolCall
from cursor_byok.transport.dialect.tool_base import (
    NativeTool,
    ToolOutcome,
    branch_error,
    cap,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


@dataclass(slots=True)
class McpTool(NativeTool):
    """A tool of one of the user's MCP servers, exposed under a provider-safe name."""

    name: str = ""
    description: str = ""
    parameters: JSONObject = field(default_factory=dict)
    exec_field: str = "mcp_args"
    provider_identifier: str = ""
    tool_name: str = ""
    server_name: str = ""

    def exec_args(self, call: ToolCall) -> pb.McpArgs:
        args = pb.McpArgs(
            name=self.server_name or self.tool_name,
            tool_call_id=call.id,
            provider_identifier=self.provider_identifier,
            tool_name=self.tool_name,
        )
        values = struct_pb2.Struct()
        plain = _plain(call.arguments)
        assert isinstance(plain, dict)
        values.update(plain)
        for key, value in values.fields.items():
            args.args[key].CopyFrom(value)
        return args

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.McpToolCall(args=self.exec_args(call))
        if result is not None:
            mcp = result.mcp_result
            if mcp.WhichOneof("result") == "success":
                card.result.success.CopyFrom(mcp.success)
            else:
                card.result.error.error = branch_error(mcp) or ""
        return pb.ToolCall(mcp_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        mcp = result.mcp_result
        error = branch_error(mcp)
        if error is not None:
            return ToolOutcome(error, True)
        content = mcp.success.content
        texts = [item.text.text for item in content if item.HasField("text")]
        # Each image as its bytes: the type the server claims is not trusted.
        images = tuple(item.image.data for item in content if item.HasField("image"))
        text = cap("\n".join(texts)) if texts else ("" if images else "(no output)")
        return ToolOutcome(text, mcp.success.is_error, images)


def _plain(value: object) -> object:
    """Read-only JSON (tuples, mappings) as plain lists and dicts for protobuf."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def mcp_tool_name(server: str, tool: str) -> str:
    """A name every provider accepts (^[A-Za-z0-9_-]{1,64}$), stable per tool."""
    return safe_id(f"mcp_{server}_{tool}", 64)


def mcp_tools(definitions: Iterable[pb.McpToolDefinition]) -> list[McpTool]:
    tools = []
    for definition in definitions:
        if definition.HasField("input_schema"):
            schema = json_format.MessageToDict(definition.input_schema)
        elif definition.input_schema_json:
            try:
                schema = json.loads(definition.input_schema_json)
            except ValueError:
                schema = None  # a broken schema from the client: offer the tool without one
        else:
            schema = {"type": "object", "properties": {}}
        if not isinstance(schema, dict):
            schema = {"type": "object", "properties": {}}
        tool_name = definition.tool_name or definition.name
        server = definition.provider_identifier or "server"
        tools.append(
            McpTool(
                name=mcp_tool_name(server, tool_name),
                description=definition.description or f"MCP tool {tool_name} of {server}.",
                parameters=schema,
                provider_identifier=definition.provider_identifier,
                tool_name=tool_name,
                server_name=definition.name,
            )
        )
    return tools
