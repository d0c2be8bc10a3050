"""The built-in file tools: list, grep, glob, write, edit, delete and the
editor's diagnostics, each mapped to its exec request and tool card (read
has a module of its own, `read_tool`)."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.tool_base import (
    MAX_RESULT_CHARS,
    NativeTool,
    NextExec,
    ToolOutcome,
    branch_error,
    cap,
    object_schema,
    str_arg,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


class ListDir(NativeTool):
    name = "list_dir"
    description = "List the files and folders of a workspace folder (recursively, in a tree)."
    parameters = object_schema(
        {"path": {"type": "string", "description": "Folder to list."}},
        ["path"],
    )
    exec_field = "ls_args"

    def exec_args(self, call: ToolCall) -> pb.LsArgs:
        return pb.LsArgs(path=str_arg(call.arguments, "path", "."), tool_call_id=call.id)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.LsToolCall(args=self.exec_args(call))
        if result is not None:
            card.result.CopyFrom(result.ls_result)
        return pb.ToolCall(ls_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        ls = result.ls_result
        error = branch_error(ls)
        if error is not None:
            return ToolOutcome(error, True)
        lines: list[str] = []
        _tree_lines(ls.success.directory_tree_root, 0, lines)
        return ToolOutcome(cap("\n".join(lines) or "(empty)"), False)


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
    parameters = object_schema(
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
        args = pb.GrepArgs(pattern=str_arg(call.arguments, "pattern"), tool_call_id=call.id)
        for key in ("path", "glob"):
            if value := str_arg(call.arguments, key):
                setattr(args, key, value)
        args.output_mode = str_arg(call.arguments, "output_mode", "content") or "content"
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
        error = branch_error(grep)
        if error is not None:
            return ToolOutcome(error, True)
        lines: list[str] = []
        unions = list(grep.success.workspace_results.items())
        for _root, union in sorted(unions):
            lines.extend(_grep_lines(union))
        return ToolOutcome(cap("\n".join(lines) or "No matches."), False)


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
    parameters = object_schema(
        {
            "pattern": {"type": "string", "description": "Glob pattern."},
            "path": {"type": "string", "description": "Folder to search in."},
        },
        ["pattern"],
    )

    def exec_args(self, call: ToolCall) -> pb.GrepArgs:
        # Cursor has no glob exec: a files-only grep over the glob is the same.
        args = pb.GrepArgs(
            pattern="", glob=str_arg(call.arguments, "pattern"), tool_call_id=call.id
        )
        args.output_mode = "files_with_matches"
        if path := str_arg(call.arguments, "path"):
            args.path = path
        return args

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.GlobToolCall(
            args=pb.GlobToolArgs(
                glob_pattern=str_arg(call.arguments, "pattern"),
                target_directory=str_arg(call.arguments, "path"),
            )
        )
        if result is not None:
            grep = result.grep_result
            if grep.WhichOneof("result") == "success":
                files = [f for u in grep.success.workspace_results.values() for f in _grep_lines(u)]
                card.result.success.CopyFrom(
                    pb.GlobToolSuccess(
                        pattern=str_arg(call.arguments, "pattern"),
                        path=str_arg(call.arguments, "path"),
                        files=files,
                        total_files=len(files),
                    )
                )
            else:
                card.result.error.error = branch_error(grep) or ""
        return pb.ToolCall(glob_tool_call=card, tool_call_id=call.id)


class WriteFile(NativeTool):
    name = "write_file"
    description = "Create a file, or replace its whole content, with the given text."
    parameters = object_schema(
        {
            "path": {"type": "string", "description": "Path of the file."},
            "contents": {"type": "string", "description": "The complete new content."},
        },
        ["path", "contents"],
    )
    exec_field = "write_args"

    def exec_args(self, call: ToolCall) -> pb.WriteArgs:
        return pb.WriteArgs(
            path=str_arg(call.arguments, "path"),
            file_text=str_arg(call.arguments, "contents"),
            tool_call_id=call.id,
        )

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.EditToolCall(args=pb.EditArgs(path=str_arg(call.arguments, "path")))
        if result is not None:
            write = result.write_result
            if write.WhichOneof("result") == "success":
                contents = str_arg(call.arguments, "contents")
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
                        path=str_arg(call.arguments, "path"), error=branch_error(write) or ""
                    )
                )
        return pb.ToolCall(edit_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        write = result.write_result
        error = branch_error(write)
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
    parameters = object_schema(
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
        return pb.ReadArgs(path=str_arg(call.arguments, "path"), tool_call_id=call.id)

    def step(
        self, call: ToolCall, result: pb.ExecClientMessage, memo: dict[str, Any]
    ) -> ToolOutcome | NextExec:
        path = str_arg(call.arguments, "path")
        kind = result.WhichOneof("message")
        if kind == "read_result":
            read = result.read_result
            error = branch_error(read)
            if error is not None:
                return ToolOutcome(error, True)
            before = read.success.content
            old = str_arg(call.arguments, "old_string")
            new = str_arg(call.arguments, "new_string")
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
            growth = count * (len(new) - len(old)) if every else 0
            if growth > MAX_RESULT_CHARS:
                # A pattern the model chose, times its occurrences: the
                # file is refused before it is built, not after.
                return ToolOutcome(
                    f"replace_all would add {growth:,} characters to {path} ({count} "
                    f"replacements); one edit may add at most {MAX_RESULT_CHARS:,}. Nothing "
                    "changed: edit in smaller steps, or write the file with write_file.",
                    True,
                )
            after = before.replace(old, new) if every else before.replace(old, new, 1)
            memo.update(before=before, after=after, count=count if every else 1)
            args = pb.WriteArgs(path=path, file_text=after, tool_call_id=call.id)
            return NextExec("write_args", args)
        write = result.write_result
        error = branch_error(write)
        if error is not None:
            return ToolOutcome(error, True)
        return ToolOutcome(f"Edited {path}: {memo.get('count', 1)} replacement(s).", False)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.EditToolCall(args=pb.EditArgs(path=str_arg(call.arguments, "path")))
        if result is not None and result.WhichOneof("message") == "write_result":
            write = result.write_result
            if write.WhichOneof("result") == "success":
                old = str_arg(call.arguments, "old_string")
                new = str_arg(call.arguments, "new_string")
                card.result.success.CopyFrom(
                    pb.EditSuccess(
                        path=write.success.path,
                        lines_added=new.count("\n") + 1,
                        lines_removed=old.count("\n") + 1,
                        diff_string=_diff(old, new),
                    )
                )
            else:
                error = branch_error(write) or ""
                path = str_arg(call.arguments, "path")
                card.result.error.CopyFrom(pb.EditError(path=path, error=error))
        elif result is not None:
            card.result.error.CopyFrom(
                pb.EditError(path=str_arg(call.arguments, "path"), error="the edit was not applied")
            )
        return pb.ToolCall(edit_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        return ToolOutcome(branch_error(result.write_result) or "Edited.", False)


def _diff(old: str, new: str) -> str:
    lines = [f"-{line}" for line in old.splitlines()] + [f"+{line}" for line in new.splitlines()]
    return "\n".join(lines)


class DeleteFile(NativeTool):
    name = "delete_file"
    description = "Delete a file of the workspace."
    parameters = object_schema(
        {"path": {"type": "string", "description": "File to delete."}}, ["path"]
    )
    exec_field = "delete_args"

    def exec_args(self, call: ToolCall) -> pb.DeleteArgs:
        return pb.DeleteArgs(path=str_arg(call.arguments, "path"), tool_call_id=call.id)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.DeleteToolCall(args=self.exec_args(call))
        if result is not None:
            card.result.CopyFrom(result.delete_result)
        return pb.ToolCall(delete_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        delete = result.delete_result
        error = branch_error(delete)
        if error is not None:
            return ToolOutcome(error, True)
        return ToolOutcome(f"Deleted {delete.success.path}.", False)


class ReadLints(NativeTool):
    name = "read_lints"
    description = "Read the editor's diagnostics (lint errors and warnings) for a file."
    parameters = object_schema(
        {"path": {"type": "string", "description": "File to check."}}, ["path"]
    )
    exec_field = "diagnostics_args"

    def exec_args(self, call: ToolCall) -> pb.DiagnosticsArgs:
        return pb.DiagnosticsArgs(path=str_arg(call.arguments, "path"), tool_call_id=call.id)

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.ReadLintsToolCall(
            args=pb.ReadLintsToolArgs(paths=[str_arg(call.arguments, "path")])
        )
        return pb.ToolCall(read_lints_tool_call=card, tool_call_id=call.id)

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        diagnostics = result.diagnostics_result
        error = branch_error(diagnostics)
        if error is not None:
            return ToolOutcome(error, True)
        found = json_format.MessageToDict(
            diagnostics.success, preserving_proto_field_name=True
        ).get("diagnostics", [])
        if not found:
            return ToolOutcome("No diagnostics.", False)
        return ToolOutcome(cap(json.dumps(found, ensure_ascii=False, indent=1)), False)
