"""The editor's part in `cursor-byok demo`, played over `CursorClient`.

It opens RunSSE, sends the run request with BidiAppend, runs the `read`
exec requests the server sends against a workspace folder, answers them
(result, then stream close) and the KV requests, and reads the stream to
its end. Everything it
sees is handed to the caller as a `Seen` record (plain strings, no
protobuf), so the command can print the turn as it happens.

Only `read` is implemented: the demo's recorded model asks for nothing else,
and any other exec request is answered as rejected rather than run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from google.protobuf import json_format

from cursor_byok.client.client import (
    TRANSPORT_ERRORS,
    ClientError,
    CursorClient,
    End,
    exec_reply,
    kv_reply,
    run_request,
    stream_close,
    workspace_context,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

ITEM_TIMEOUT_S = 120.0
"""The longest wait for the next stream item (heartbeats come every few seconds)."""

SeenKind = Literal[
    "thinking", "text", "notice", "tool_call", "tool_run", "tool_result", "tool_done", "usage"
]


@dataclass(frozen=True, slots=True)
class Seen:
    """One thing worth showing: a streamed piece, a tool step, the usage."""

    kind: SeenKind
    text: str


@dataclass(slots=True)
class TurnReport:
    """What the turn amounted to, for the caller's verdict."""

    text: str = ""
    tool_calls: list[str] = field(default_factory=list)
    tool_results: list[str] = field(default_factory=list)
    turn_ended: bool = False
    error: str | None = None
    """The stream's Connect error, if it ended with one."""


class DemoClient:
    """One conversation over one server; `show` receives every `Seen`."""

    def __init__(self, base_url: str, workspace: Path, show: Callable[[Seen], None]) -> None:
        self.workspace = workspace.resolve()
        self.show = show
        self.client = CursorClient(base_url)

    async def aclose(self) -> None:
        await self.client.close()

    async def run_turn(
        self, text: str, model: str, conversation_id: str, request_id: str
    ) -> TurnReport:
        """Send `text` as a new turn and play the client's part until the end."""
        report = TurnReport()
        try:
            await self._play(text, model, conversation_id, request_id, report)
        except (ClientError, *TRANSPORT_ERRORS) as error:
            report.error = f"the connection to the server failed: {error!r}"
        return report

    async def _play(
        self, text: str, model: str, conversation_id: str, request_id: str, report: TurnReport
    ) -> None:
        stream = await self.client.open(request_id)
        message_id = f"{conversation_id}-m1"
        await self.client.append(
            request_id,
            0,
            run_request(
                text, conversation_id, model, message_id, workspace_context(str(self.workspace))
            ),
        )
        seqno = 1
        while True:
            item = await stream.next(ITEM_TIMEOUT_S)
            if isinstance(item, End):
                report.error = None if item.error is None else _error_text(item.error)
                return
            for reply in self._handle(item, report):
                await self.client.append(request_id, seqno, reply)
                seqno += 1

    def _handle(
        self, message: pb.AgentServerMessage, report: TurnReport
    ) -> list[pb.AgentClientMessage]:
        """Show one server message; return the appends it calls for."""
        if message.WhichOneof("message") == "exec_server_message":
            return self._exec(message.exec_server_message, report)
        if message.WhichOneof("message") == "kv_server_message":
            return [kv_reply(message.kv_server_message)]
        if message.WhichOneof("message") != "interaction_update":
            return []
        update = message.interaction_update
        match update.WhichOneof("message"):
            case "thinking_delta":
                self.show(Seen("thinking", update.thinking_delta.text))
            case "text_delta" if update.text_delta.is_server_notice:
                self.show(Seen("notice", update.text_delta.text))
            case "text_delta":
                report.text += update.text_delta.text
                self.show(Seen("text", update.text_delta.text))
            case "tool_call_started":
                described = describe_tool_call(update.tool_call_started.tool_call)
                report.tool_calls.append(described)
                self.show(Seen("tool_call", described))
            case "tool_call_completed":
                self.show(Seen("tool_done", describe_outcome(update.tool_call_completed.tool_call)))
            case "turn_ended":
                report.turn_ended = True
                self.show(Seen("usage", describe_usage(update.turn_ended)))
        return []

    def _exec(
        self, request: pb.ExecServerMessage, report: TurnReport
    ) -> list[pb.AgentClientMessage]:
        kind = request.WhichOneof("message")
        if kind == "read_args":
            self.show(Seen("tool_run", f"read {request.read_args.path}"))
            result = self._read(request.read_args)
        else:
            self.show(Seen("tool_run", f"{kind}: not run (this client only reads files)"))
            result = pb.ReadResult(rejected=pb.ReadRejected(reason="not supported by the demo"))
        summary = json_format.MessageToDict(result, preserving_proto_field_name=True)
        report.tool_results.append(json.dumps(summary, ensure_ascii=False))
        self.show(Seen("tool_result", _result_text(result)))
        return [exec_reply(request, read_result=result), stream_close(request.id)]

    def _read(self, args: pb.ReadArgs) -> pb.ReadResult:
        """Read inside the workspace only, the way an editor would."""
        target = (self.workspace / args.path).resolve()
        if not target.is_relative_to(self.workspace):
            return pb.ReadResult(
                rejected=pb.ReadRejected(path=args.path, reason="outside the workspace")
            )
        if not target.is_file():
            return pb.ReadResult(file_not_found=pb.ReadFileNotFound(path=args.path))
        content = target.read_text(encoding="utf-8", errors="replace")
        return pb.ReadResult(
            success=pb.ReadSuccess(
                path=args.path,
                content=content,
                total_lines=len(content.splitlines()),
                file_size=target.stat().st_size,
            )
        )


def describe_tool_call(call: pb.ToolCall) -> str:
    """`read {"path": "NOTES.md"}`: the card's kind and its arguments."""
    branch = call.WhichOneof("tool")
    if branch is None:
        return "(unknown tool)"
    card = getattr(call, branch)
    args = json_format.MessageToDict(card.args, preserving_proto_field_name=True)
    name = branch.removesuffix("_tool_call")
    return f"{name} {json.dumps(args, ensure_ascii=False)}"


def describe_outcome(call: pb.ToolCall) -> str:
    """`read: success`: how the completed card reports the tool's result."""
    branch = call.WhichOneof("tool")
    if branch is None:
        return "(unknown tool)"
    result = getattr(call, branch).result
    outcome = result.WhichOneof("result") or "no result"
    return f"{branch.removesuffix('_tool_call')}: {outcome}"


def describe_usage(ended: pb.TurnEndedUpdate) -> str:
    return (
        f"input {ended.input_tokens:,} tokens, output {ended.output_tokens:,}, "
        f"cache read {ended.cache_read_tokens:,}, cache write {ended.cache_write_tokens:,}"
    )


def _result_text(result: pb.ReadResult) -> str:
    if result.WhichOneof("result") == "success":
        success = result.success
        return f"{success.total_lines} lines, {success.file_size} bytes\n{success.content}"
    detail = json_format.MessageToDict(result, preserving_proto_field_name=True)
    return f"error: {json.dumps(detail, ensure_ascii=False)}"


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        return f"{error.get('code', 'unknown')}: {error.get('message', '')}"
    return str(error)
