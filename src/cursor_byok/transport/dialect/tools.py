"""The tools one run offers: what the model sees, what Cursor is asked to
run (or the server runs), what Cursor shows on the tool card, and what the
model gets back.

The parts live in `tool_base` (what a tool is), `file_tools`, `shell_tool`,
`mcp_tools`, `server_tool`, `todo_tool` and `question_tool`; this module gathers them into the
set one run offers, which leaves out any tool whose card the client cannot
draw or whose query it cannot answer (`clients.Capabilities`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from cursor_byok.llm.types import ToolDefinition
from cursor_byok.transport.dialect.clients import CAUTIOUS, Capabilities
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
from cursor_byok.transport.dialect.plan_tool import CreatePlan
from cursor_byok.transport.dialect.question_tool import AskQuestion
from cursor_byok.transport.dialect.read_tool import ReadFile
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool
from cursor_byok.transport.dialect.shell_tool import RunTerminalCommand
from cursor_byok.transport.dialect.switch_mode_tool import SwitchMode
from cursor_byok.transport.dialect.todo_tool import TodoWrite
from cursor_byok.transport.dialect.tool_base import (
    MAX_RESULT_CHARS,
    SHELL_TIMEOUT_MS,
    NativeTool,
    NextExec,
    Tool,
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
    "ServerOutcome",
    "ServerTool",
    "Tool",
    "ToolOutcome",
    "ToolSet",
    "exec_message",
    "mcp_tool_name",
    "mcp_tools",
]


BUILTIN: tuple[Tool, ...] = (
    ReadFile(),
    ListDir(),
    Grep(),
    Glob(),
    RunTerminalCommand(),
    EditFile(),
    WriteFile(),
    DeleteFile(),
    ReadLints(),
    TodoWrite(),
    AskQuestion(),
    SwitchMode(),
    CreatePlan(),
)
"""Every built-in tool, the client's and the server's, in the order offered."""

READ_ONLY = frozenset({"read_file", "list_dir", "grep", "glob", "read_lints"})
"""The tools that only look: what plan mode offers."""

_BUILTIN_DEFINITIONS = {tool.name: (tool, tool.definition()) for tool in BUILTIN}
"""Each built-in tool with its definition, made once: every run offers them
(and the meter measures a schema once per definition object)."""

_CARD_KINDS: dict[type[Tool], str] = {}
"""The card each kind of tool fills (every MCP tool the same), found once."""


def offered(tool: Tool, client: Capabilities) -> bool:
    """Whether `client` can take a call of `tool`: it draws the tool's card
    (and has not turned the tool off) and answers every query it may send."""
    kind = _CARD_KINDS.get(type(tool))
    if kind is None:
        kind = _CARD_KINDS[type(tool)] = tool.card_kind()
    if tool.queries and client.child_run:
        return False  # a subagent's run has no person to ask
    return client.offers(kind) and all(map(client.answers, tool.queries))


def _definition(tool: Tool) -> ToolDefinition:
    builtin = _BUILTIN_DEFINITIONS.get(tool.name)
    return builtin[1] if builtin is not None and builtin[0] is tool else tool.definition()


@dataclass(frozen=True, slots=True)
class ToolSet:
    """The tools of one conversation: the built-in ones plus its MCP tools."""

    tools: Mapping[str, Tool]
    _definitions: tuple[ToolDefinition, ...] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    """What `definitions` made, kept: a run without MCP tools gets a shared
    set (`_fixed_for`), whose definitions are then made once, not per run."""

    @classmethod
    def for_run(
        cls,
        mcp_definitions: Iterable[pb.McpToolDefinition] = (),
        only: frozenset[str] | None = None,
        client: Capabilities = CAUTIOUS,
        extra: Sequence[Tool] = (),
        left_out: frozenset[str] = frozenset(),
    ) -> ToolSet:
        """The built-in tools and the client's MCP tools that `client` can
        take; with `only`, just the built-in tools of those names (plan mode:
        nothing that changes the workspace). `extra`: tools the server's
        configuration adds (web search and fetch), offered like the built-in
        ones, plan mode included (they change nothing in the workspace).
        `left_out`: names no tool of the set may have (those of another mode)."""
        if (
            isinstance(mcp_definitions, Sized)
            and not mcp_definitions
            and all(isinstance(tool, Hashable) for tool in extra)  # (each is a cache key)
        ):
            return _fixed_for(client, left_out, only, tuple(extra))
        return cls(_collect(mcp_definitions, only, client, extra, left_out))

    def definitions(self) -> tuple[ToolDefinition, ...]:
        made = self._definitions
        if made is None:
            made = tuple([_definition(tool) for tool in self.tools.values()])
            object.__setattr__(self, "_definitions", made)
        return made

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)


@lru_cache(maxsize=256)
def _fixed_for(
    client: Capabilities,
    left_out: frozenset[str],
    only: frozenset[str] | None,
    extra: tuple[Tool, ...],
) -> ToolSet:
    """The set a run without MCP tools offers, made once per kind of client,
    mode and server tools (`extra`: the same objects from run to run, a
    bound Task tool being kept by its configured one). A session also holds
    it until its run starts: one shared, read-only set, not one per request."""
    return ToolSet(MappingProxyType(_collect((), only, client, extra, left_out)))


def _collect(
    mcp_definitions: Iterable[pb.McpToolDefinition],
    only: frozenset[str] | None,
    client: Capabilities,
    extra: Sequence[Tool],
    left_out: frozenset[str],
) -> dict[str, Tool]:
    """`ToolSet.for_run`'s tools by name."""
    tools: dict[str, Tool] = {
        tool.name: tool
        for tool in BUILTIN
        if (only is None or tool.name in only) and offered(tool, client)
    }
    for tool in extra:
        if offered(tool, client):
            tools.setdefault(tool.name, tool)
    if only is None:
        for tool in mcp_tools(mcp_definitions):
            if offered(tool, client):
                tools.setdefault(tool.name, tool)
    for name in left_out:
        tools.pop(name, None)
    return tools
