"""The client's native tools: what the model sees, what Cursor is asked to run,
what Cursor shows on the tool card, and what the model gets back.

Adding a tool is a `NativeTool` here (seed §10): a capability description
(name, description, JSON Schema) and its mapping to the exec channel. The
loop has no branch per tool. A result's text for the model is capped at
`MAX_RESULT_CHARS`; the cut is stated in the text so the model knows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format, struct_pb2

from cursor_byok.llm.providers.common import safe_id
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


def _cap(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    cut = len(text) - MAX_RESULT_CHARS
    return text[:MAX_RESULT_CHARS] + f"\n[output truncated: {cut} more characters not shown]"


def _str(arguments: JSONObject, key: str, default: str = "") -> str:
    value = arguments.get(key, default)
    return value if isinstance(value, str) else default


INT32_MAX = 2**31 - 1


def _int(arguments: JSONObject, key: str) -> int | None:
    """An integer argument, clamped to the 32-bit range the exec fields hold."""
    value = arguments.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return max(-INT32_MAX - 1, min(value, INT32_MAX))


def _schema(properties: dict[str, Any], required: Iterable[str]) -> JSONObject:
    return {"type": "object", "properties": properties, "required": list(required)}


def _branch_error(result: Any) -> str | None:
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


class NativeTool:
    """One tool. Subclasses fill in the model-facing definition and the
    mapping to Cursor's exec channel and tool card."""

    name: str
    description: str
    parameters: JSONObject
    exec_field: str

    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, self.description, self.parameters)

    def exec_args(self, call: ToolCall) -> Any:
        raise NotImplementedError

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        raise NotImplementedError

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        raise NotImplementedError

    def exec_request(self, call: ToolCall, number: int, exec_id: str) -> pb.ExecServerMessage:
        return exec_message(number, exec_id, self.exec_field, self.exec_args(call))

    def step(
        self, call: ToolCall, result: pb.ExecClientMessage, memo: dict[str, Any]
    ) -> ToolOutcome | NextExec:
        """What a finished exec leads to: the outcome, or (for tools made of
        several execs) the next exec to send. `memo` is kept between steps."""
        del memo
        return self.outcome(result)


class ReadFile(NativeTool):
    name = "read_file"
    description = (
        "Read a text file of the workspace. Optionally start at line `offset` (1-based) and "
        "read at most `limit` lines."
    )
    parameters = _schema(
        {
            "path": {"type": "string", "description": "Path of the file."},
            "offset": {"type": "integer", "description": "First line to read, 1-based."},
            "limit": {"type": "integer", "description": "How many lines to read."},
        },
        ["path"],
    )
    exec_field = "read_args"

    def exec_args(self, call: ToolCall) -> pb.ReadArgs:
        args = pb.ReadArgs(path=_str(call.arguments, "path"), tool_call_id=call.id)
        if (offset := _int(call.arguments, "offset")) is not None:
            args.offset = offset
        if (limit := _int(call.arguments, "limit")) is not None and limit > 0:
            args.limit = limit
        return args

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.ReadToolCall(args=pb.ReadToolArgs(path=_str(call.arguments, "path")))
        if result is not None:
            read = result.read_result
            if read.WhichOneof("result") == "success":
                success = read.success
                card.result.success.CopyFrom(
                    pb.ReadToolSuccess(
                        content=success.content,
                        total_lines=max(success.total_lines, 0),
                        file_size=max(success.file_size, 0),
                        path=success.path,
                        is_empty=not success.content,
                        exceeded_limit=success.truncated,
                    )
                )
            else:
                card.result.error.error_message = _branch_error(read) or ""
        return pb.ToolCall(read_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        read = result.read_result
        error = _branch_error(read)
        if error is not None:
            return ToolOutcome(error, True)
        success = read.success
        text = success.content
        if success.truncated:
            text += "\n[the client truncated this file]"
        return ToolOutcome(_cap(text), False)


class ListDir(NativeTool):
    name = "list_dir"
    description = "List the files and folders of a workspace folder (recursively, in a tree)."
    parameters = _schema(
        {"path": {"type": "string", "description": "Folder to list."}},
        ["path"],
    )
    exec_field = "ls_args"

    def exec_args(self, call: ToolCall) -> pb.LsArgs:
        return pb.LsArgs(path=_str(call.arguments, "path", "."), tool_call_id=call.id)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.LsToolCall(args=self.exec_args(call))
        if result is not None:
            card.result.CopyFrom(result.ls_result)
        return pb.ToolCall(ls_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        ls = result.ls_result
        error = _branch_error(ls)
        if error is not None:
            return ToolOutcome(error, True)
        lines: list[str] = []
        _tree_lines(ls.success.directory_tree_root, 0, lines)
        return ToolOutcome(_cap("\n".join(lines) or "(empty)"), False)


def _tree_lines(node: pb.LsDirectoryTreeNode, depth: int, out: list[str]) -> None:
    indent = "  " * depth
    out.append(f"{indent}{node.abs_path.rstrip('/') or '/'}/")
    for child in node.children_dirs:
        _tree_lines(child, depth + 1, out)
    out.extend(f"{indent}  {file.name}" for file in node.children_files)
    if not node.children_were_processed and node.num_files:
        out.append(f"{indent}  ... {node.num_files} files not listed")


class Grep(NativeTool):
    name = "grep"
    description = (
        "Search file contents with a regular expression (ripgrep syntax). `output_mode` is "
        "'content' (matching lines, the default), 'files_with_matches' or 'count'."
    )
    parameters = _schema(
        {
            "pattern": {"type": "string", "description": "Regular expression."},
            "path": {"type": "string", "description": "File or folder to search."},
            "glob": {"type": "string", "description": "Only files matching this glob."},
            "case_insensitive": {"type": "boolean"},
            "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]},
        },
        ["pattern"],
    )
    exec_field = "grep_args"

    def exec_args(self, call: ToolCall) -> pb.GrepArgs:
        args = pb.GrepArgs(pattern=_str(call.arguments, "pattern"), tool_call_id=call.id)
        for key in ("path", "glob"):
            if value := _str(call.arguments, key):
                setattr(args, key, value)
        args.output_mode = _str(call.arguments, "output_mode", "content") or "content"
        if call.arguments.get("case_insensitive") is True:
            args.case_insensitive = True
        return args

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.GrepToolCall(args=self.exec_args(call))
        if result is not None:
            card.result.CopyFrom(result.grep_result)
        return pb.ToolCall(grep_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        grep = result.grep_result
        error = _branch_error(grep)
        if error is not None:
            return ToolOutcome(error, True)
        lines: list[str] = []
        unions = list(grep.success.workspace_results.items())
        for _root, union in sorted(unions):
            lines.extend(_grep_lines(union))
        return ToolOutcome(_cap("\n".join(lines) or "No matches."), False)


def _grep_lines(union: pb.GrepUnionResult) -> list[str]:
    kind = union.WhichOneof("result")
    if kind == "files":
        return list(union.files.files)
    if kind == "count":
        return [f"{c.file}: {c.count}" for c in union.count.counts]
    if kind == "content":
        lines = []
        for match in union.content.matches:
            for line in match.matches:
                sep = "-" if line.is_context_line else ":"
                lines.append(f"{match.file}{sep}{line.line_number}{sep}{line.content}")
        return lines
    return []


class Glob(Grep):
    name = "glob"
    description = "Find files whose path matches a glob pattern, e.g. '**/*.py'."
    parameters = _schema(
        {
            "pattern": {"type": "string", "description": "Glob pattern."},
            "path": {"type": "string", "description": "Folder to search in."},
        },
        ["pattern"],
    )

    def exec_args(self, call: ToolCall) -> pb.GrepArgs:
        # Cursor has no glob exec: a files-only grep over the glob is the same.
        args = pb.GrepArgs(pattern="", glob=_str(call.arguments, "pattern"), tool_call_id=call.id)
        args.output_mode = "files_with_matches"
        if path := _str(call.arguments, "path"):
            args.path = path
        return args

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.GlobToolCall(
            args=pb.GlobToolArgs(
                glob_pattern=_str(call.arguments, "pattern"),
                target_directory=_str(call.arguments, "path"),
            )
        )
        if result is not None:
            grep = result.grep_result
            if grep.WhichOneof("result") == "success":
                files = [f for u in grep.success.workspace_results.values() for f in _grep_lines(u)]
                card.result.success.CopyFrom(
                    pb.GlobToolSuccess(
                        pattern=_str(call.arguments, "pattern"),
                        path=_str(call.arguments, "path"),
                        files=files,
                        total_files=len(files),
                    )
                )
            else:
                card.result.error.error = _branch_error(grep) or ""
        return pb.ToolCall(glob_tool_call=card, tool_call_id=call.id)


class RunTerminalCommand(NativeTool):
    name = "run_terminal_cmd"
    description = (
        "Run a shell command in the user's workspace and return its output and exit code. "
        "The user may be asked to approve it."
    )
    parameters = _schema(
        {
            "command": {"type": "string", "description": "The command line to run."},
            "working_directory": {"type": "string", "description": "Where to run it."},
            "timeout_ms": {"type": "integer", "description": "Time limit in milliseconds."},
        },
        ["command"],
    )
    exec_field = "shell_stream_args"

    def exec_args(self, call: ToolCall) -> pb.ShellArgs:
        timeout = _int(call.arguments, "timeout_ms") or SHELL_TIMEOUT_MS
        timeout = timeout if timeout > 0 else SHELL_TIMEOUT_MS
        return pb.ShellArgs(
            command=_str(call.arguments, "command"),
            working_directory=_str(call.arguments, "working_directory"),
            timeout=timeout,
            tool_call_id=call.id,
            timeout_behavior=pb.TIMEOUT_BEHAVIOR_BACKGROUND,
            hard_timeout=86_400_000,
            file_output_threshold_bytes=40_000,
        )

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.ShellToolCall(args=self.exec_args(call))
        if result is not None and result.WhichOneof("message") == "shell_result":
            card.result.CopyFrom(result.shell_result)
        return pb.ToolCall(shell_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        shell = result.shell_result
        kind = shell.WhichOneof("result")
        if kind in ("success", "failure"):
            done = getattr(shell, kind)
            parts = [f"exit code {done.exit_code}"]
            if done.stdout:
                parts.append(done.stdout)
            if done.stderr:
                parts.append(f"[stderr]\n{done.stderr}")
            return ToolOutcome(_cap("\n".join(parts)), False)
        return ToolOutcome(_branch_error(shell) or "the command did not run", True)


class WriteFile(NativeTool):
    name = "write_file"
    description = "Create a file, or replace its whole content, with the given text."
    parameters = _schema(
        {
            "path": {"type": "string", "description": "Path of the file."},
            "contents": {"type": "string", "description": "The complete new content."},
        },
        ["path", "contents"],
    )
    exec_field = "write_args"

    def exec_args(self, call: ToolCall) -> pb.WriteArgs:
        return pb.WriteArgs(
            path=_str(call.arguments, "path"),
            file_text=_str(call.arguments, "contents"),
            tool_call_id=call.id,
        )

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.EditToolCall(args=pb.EditArgs(path=_str(call.arguments, "path")))
        if result is not None:
            write = result.write_result
            if write.WhichOneof("result") == "success":
                contents = _str(call.arguments, "contents")
                card.result.success.CopyFrom(
                    pb.EditSuccess(
                        path=write.success.path,
                        lines_added=contents.count("\n") + (1 if contents else 0),
                        after_full_file_content=contents,
                    )
                )
            else:
                card.result.error.CopyFrom(
                    pb.EditError(
                        path=_str(call.arguments, "path"), error=_branch_error(write) or ""
                    )
                )
        return pb.ToolCall(edit_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        write = result.write_result
        error = _branch_error(write)
        if error is not None:
            return ToolOutcome(error, True)
        success = write.success
        return ToolOutcome(
            f"Wrote {success.path} ({success.lines_created} lines, {success.file_size} bytes).",
            False,
        )


class EditFile(NativeTool):
    """Replace an exact piece of a file: read it, check the piece occurs
    once (or everywhere, if asked), write the result. Two execs, one call."""

    name = "edit_file"
    description = (
        "Edit a file by replacing `old_string` with `new_string`. `old_string` must match the "
        "file exactly (including whitespace) and occur once, unless `replace_all` is true. To "
        "create a file use write_file."
    )
    parameters = _schema(
        {
            "path": {"type": "string", "description": "Path of the file."},
            "old_string": {"type": "string", "description": "Exact text to replace."},
            "new_string": {"type": "string", "description": "Text to put in its place."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence."},
        },
        ["path", "old_string", "new_string"],
    )
    exec_field = "read_args"

    def exec_args(self, call: ToolCall) -> pb.ReadArgs:
        return pb.ReadArgs(path=_str(call.arguments, "path"), tool_call_id=call.id)

    def step(
        self, call: ToolCall, result: pb.ExecClientMessage, memo: dict[str, Any]
    ) -> ToolOutcome | NextExec:
        path = _str(call.arguments, "path")
        kind = result.WhichOneof("message")
        if kind == "read_result":
            read = result.read_result
            error = _branch_error(read)
            if error is not None:
                return ToolOutcome(error, True)
            before = read.success.content
            old = _str(call.arguments, "old_string")
            new = _str(call.arguments, "new_string")
            count = before.count(old) if old else 0
            if not old:
                return ToolOutcome("old_string is empty; use write_file to create a file.", True)
            if count == 0:
                return ToolOutcome(f"old_string was not found in {path}; nothing changed.", True)
            every = call.arguments.get("replace_all") is True
            if count > 1 and not every:
                return ToolOutcome(
                    f"old_string occurs {count} times in {path}; add surrounding lines to make "
                    "it unique, or set replace_all.",
                    True,
                )
            after = before.replace(old, new) if every else before.replace(old, new, 1)
            memo.update(before=before, after=after, count=count if every else 1)
            args = pb.WriteArgs(path=path, file_text=after, tool_call_id=call.id)
            return NextExec("write_args", args)
        write = result.write_result
        error = _branch_error(write)
        if error is not None:
            return ToolOutcome(error, True)
        return ToolOutcome(f"Edited {path}: {memo.get('count', 1)} replacement(s).", False)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.EditToolCall(args=pb.EditArgs(path=_str(call.arguments, "path")))
        if result is not None and result.WhichOneof("message") == "write_result":
            write = result.write_result
            if write.WhichOneof("result") == "success":
                old = _str(call.arguments, "old_string")
                new = _str(call.arguments, "new_string")
                card.result.success.CopyFrom(
                    pb.EditSuccess(
                        path=write.success.path,
                        lines_added=new.count("\n") + 1,
                        lines_removed=old.count("\n") + 1,
                        diff_string=_diff(old, new),
                    )
                )
            else:
                error = _branch_error(write) or ""
                path = _str(call.arguments, "path")
                card.result.error.CopyFrom(pb.EditError(path=path, error=error))
        elif result is not None:
            card.result.error.CopyFrom(
                pb.EditError(path=_str(call.arguments, "path"), error="the edit was not applied")
            )
        return pb.ToolCall(edit_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        return ToolOutcome(_branch_error(result.write_result) or "Edited.", False)


def _diff(old: str, new: str) -> str:
    lines = [f"-{line}" for line in old.splitlines()] + [f"+{line}" for line in new.splitlines()]
    return "\n".join(lines)


class DeleteFile(NativeTool):
    name = "delete_file"
    description = "Delete a file of the workspace."
    parameters = _schema({"path": {"type": "string", "description": "File to delete."}}, ["path"])
    exec_field = "delete_args"

    def exec_args(self, call: ToolCall) -> pb.DeleteArgs:
        return pb.DeleteArgs(path=_str(call.arguments, "path"), tool_call_id=call.id)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.DeleteToolCall(args=self.exec_args(call))
        if result is not None:
            card.result.CopyFrom(result.delete_result)
        return pb.ToolCall(delete_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        delete = result.delete_result
        error = _branch_error(delete)
        if error is not None:
            return ToolOutcome(error, True)
        return ToolOutcome(f"Deleted {delete.success.path}.", False)


class ReadLints(NativeTool):
    name = "read_lints"
    description = "Read the editor's diagnostics (lint errors and warnings) for a file."
    parameters = _schema({"path": {"type": "string", "description": "File to check."}}, ["path"])
    exec_field = "diagnostics_args"

    def exec_args(self, call: ToolCall) -> pb.DiagnosticsArgs:
        return pb.DiagnosticsArgs(path=_str(call.arguments, "path"), tool_call_id=call.id)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.ReadLintsToolCall(args=pb.ReadLintsToolArgs(paths=[_str(call.arguments, "path")]))
        return pb.ToolCall(read_lints_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        diagnostics = result.diagnostics_result
        error = _branch_error(diagnostics)
        if error is not None:
            return ToolOutcome(error, True)
        found = json_format.MessageToDict(
            diagnostics.success, preserving_proto_field_name=True
        ).get("diagnostics", [])
        if not found:
            return ToolOutcome("No diagnostics.", False)
        return ToolOutcome(_cap(json.dumps(found, ensure_ascii=False, indent=1)), False)


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
                card.result.error.error = _branch_error(mcp) or ""
        return pb.ToolCall(mcp_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        mcp = result.mcp_result
        error = _branch_error(mcp)
        if error is not None:
            return ToolOutcome(error, True)
        texts = [item.text.text for item in mcp.success.content if item.HasField("text")]
        images = sum(1 for item in mcp.success.content if item.HasField("image"))
        if images:
            texts.append(f"[{images} image(s) returned]")
        return ToolOutcome(_cap("\n".join(texts) or "(no output)"), mcp.success.is_error)


def _plain(value: object) -> object:
    """Read-only JSON (tuples, mappings) as plain lists and dicts for protobuf."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


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


@dataclass(frozen=True, slots=True)
class ToolSet:
    """The tools of one conversation: the built-in ones plus its MCP tools."""

    tools: Mapping[str, NativeTool]

    @classmethod
    def for_run(cls, mcp_definitions: Iterable[pb.McpToolDefinition] = ()) -> ToolSet:
        tools: dict[str, NativeTool] = {tool.name: tool for tool in BUILTIN}
        for tool in mcp_tools(mcp_definitions):
            tools.setdefault(tool.name, tool)
        return cls(tools)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        return tuple(tool.definition() for tool in self.tools.values())

    def get(self, name: str) -> NativeTool | None:
        return self.tools.get(name)
