"""The client's native tools: what the model sees, what Cursor is asked to run,
what Cursor shows on the tool card, and what the model gets back.

The parts live in `tool_base` (what a tool is), `file_tools`, `shell_tool`
and `mcp_tools`; this module gathers them into the set one run offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from dataclasses import dataclass
from types import MappingProxyType

from cursor_byok.llm.types import ToolDefinition
from cursor_byok.transport.dialect.file_tools import (
    DeleteFile,
    EditFile,
    Glob,
    Grep,
    ListDir,
    ReadLints,
    WriteFile,
)
from cursor_byok.transport.dialect.mcp_tools import McpTool, mcp_tool_name, mcp_tools
from cursor_byok.transport.dialect.read_tool import ReadFile
from cursor_byok.transport.dialect.shell_tool import RunTerminalCommand
from cursor_byok.transport.dialect.tool_base import (
    MAX_RESULT_CHARS,
    SHELL_TIMEOUT_MS,
    NativeTool,
    NextExec,
    ToolOutcome,
    exec_message,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

__all__ = [
    "BUILTIN",
    "MAX_RESULT_CHARS",
    "READ_ONLY",
    "SHELL_TIMEOUT_MS",
    "McpTool",
    "NativeTool",
    "NextExec",
    "ToolOutcome",
    "ToolSet",
    "exec_message",
    "mcp_tool_name",
    "mcp_tools",
]


BUILTIN: tuple[NativeTool, ...] = (
    ReadFile(),
    ListDir(),
    Grep(),
    Glob(),
    RunTerminalCommand(),
    EditFile(),
    WriteFile(),
    DeleteFile(),
    ReadLints(),
)

READ_ONLY = frozenset({"read_file", "list_dir", "grep", "glob", "read_lints"})
"""The tools that only look: what plan mode offers."""

_BUILTIN_DEFINITIONS = {tool.name: (tool, tool.definition()) for tool in BUILTIN}
"""Each built-in tool with its definition, made once: every run offers them
(and the meter measures a schema once per definition object)."""


def _definition(tool: NativeTool) -> ToolDefinition:
    builtin = _BUILTIN_DEFINITIONS.get(tool.name)
    return builtin[1] if builtin is not None and builtin[0] is tool else tool.definition()


@dataclass(frozen=True, slots=True)
class ToolSet:
    """The tools of one conversation: the built-in ones plus its MCP tools."""

    tools: Mapping[str, NativeTool]

    @classmethod
    def for_run(
        cls,
        mcp_definitions: Iterable[pb.McpToolDefinition] = (),
        only: frozenset[str] | None = None,
    ) -> ToolSet:
        """The built-in tools and the client's MCP tools; with `only`, just
        the built-in tools of those names (plan mode: nothing that changes
        the workspace)."""
        if only is None and isinstance(mcp_definitions, Sized) and not mcp_definitions:
            return _ALL_BUILTIN
        tools: dict[str, NativeTool] = {
            tool.name: tool for tool in BUILTIN if only is None or tool.name in only
        }
        if only is None:
            for tool in mcp_tools(mcp_definitions):
                tools.setdefault(tool.name, tool)
        return cls(tools)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        return tuple([_definition(tool) for tool in self.tools.values()])

    def get(self, name: str) -> NativeTool | None:
        return self.tools.get(name)


_ALL_BUILTIN = ToolSet(MappingProxyType({tool.name: tool for tool in BUILTIN}))
"""The set a run without MCP tools offers, and a session holds until its run
starts: one shared, read-only set instead of a new one per request id."""
