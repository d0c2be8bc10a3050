"""The `read_file` tool: a file's text, or the image the client read.

The CLI tells an image by its content (PNG, JPEG, GIF, WebP) and answers
with its bytes in `ReadSuccess.data`, no type, scaled to 2000 px on the
long side when larger. The model gets the image (`ToolOutcome.images`); the
card names it by blob id (the SHA-256 of the bytes), set in the client's
KV store first, never with the bytes inline.
"""

from __future__ import annotations

import hashlib
from typing import Any

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.read_range import apply_range
from cursor_byok.transport.dialect.tool_base import (
    NativeTool,
    NextExec,
    ToolOutcome,
    branch_error,
    cap,
    int_arg,
    object_schema,
    str_arg,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


class ReadFile(NativeTool):
    name = "read_file"
    description = (
        "Read a text file of the workspace. Optionally start at line `offset` (1-based) and "
        "read at most `limit` lines."
    )
    parameters = object_schema(
        {
            "path": {"type": "string", "description": "Path of the file."},
            "offset": {"type": "integer", "description": "First line to read, 1-based."},
            "limit": {"type": "integer", "description": "How many lines to read."},
        },
        ["path"],
    )
    exec_field = "read_args"

    def exec_args(self, call: ToolCall) -> pb.ReadArgs:
        args = pb.ReadArgs(path=str_arg(call.arguments, "path"), tool_call_id=call.id)
        if (offset := int_arg(call.arguments, "offset")) is not None:
            args.offset = offset
        if (limit := int_arg(call.arguments, "limit")) is not None and limit > 0:
            args.limit = limit
        return args

    def step(
        self, call: ToolCall, result: pb.ExecClientMessage, memo: dict[str, Any]
    ) -> ToolOutcome | NextExec:
        del memo
        return self.outcome(apply_range(self.exec_args(call), result))

    def card(self, call: ToolCall, result: pb.ExecClientMessage | None) -> pb.ToolCall:
        card = pb.ReadToolCall(args=pb.ReadToolArgs(path=str_arg(call.arguments, "path")))
        if result is not None:
            read = apply_range(self.exec_args(call), result).read_result
            if read.WhichOneof("result") == "success":
                success = read.success
                shown = pb.ReadToolSuccess(
                    total_lines=max(success.total_lines, 0),
                    file_size=max(success.file_size, 0),
                    path=success.path,
                    is_empty=not (success.content or success.data),
                    exceeded_limit=success.truncated,
                )
                if success.WhichOneof("output") == "data":
                    # The image by blob id, never its bytes (set in the KV store first).
                    shown.data_blob_id = hashlib.sha256(success.data).digest()
                else:
                    shown.content = success.content
                card.result.success.CopyFrom(shown)
            else:
                card.result.error.error_message = branch_error(read) or ""
        return pb.ToolCall(read_tool_call=card, tool_call_id=call.id)

    def card_blobs(self, result: pb.ExecClientMessage | None) -> list[bytes]:
        image = _image_read(result)
        return [] if image is None else [image]

    def outcome(self, result: pb.ExecClientMessage) -> ToolOutcome:
        read = result.read_result
        error = branch_error(read)
        if error is not None:
            return ToolOutcome(error, True)
        success = read.success
        image = _image_read(result)
        if image is not None:
            size = success.file_size if success.file_size > 0 else len(image)
            path = success.path or "the file"
            return ToolOutcome(f"{path}: an image file of {size} bytes", False, (image,))
        text = success.content
        if success.truncated:
            text += "\n[the client truncated this file]"
        return ToolOutcome(cap(text), False)


def _image_read(result: pb.ExecClientMessage | None) -> bytes | None:
    """The bytes of a successful read of an image: the CLI tells an image by
    its content and sends it as `data`, with no type (scaled to 2000 px on
    the long side when larger)."""
    if result is None or result.WhichOneof("message") != "read_result":
        return None
    read = result.read_result
    if read.WhichOneof("result") != "success" or read.success.WhichOneof("output") != "data":
        return None
    return read.success.data
