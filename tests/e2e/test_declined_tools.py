"""A tool call the client declines, refuses or fails is not the end of the
turn: the model gets an error tool result and is called again, and the turn
ends normally. Over a real socket, each way a Cursor client says no: a
`rejected` / `error` / `permission_denied` branch of the exec's result, a
rejection inside a streamed shell run, and `exec_client_control_message.throw`.

Every wait is short: a turn that waits for a result that never comes fails
here in seconds, not at the suite's timeout."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from cursor_byok.client.client import (
    CursorClient,
    End,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.llm.types import JSONObject, TextContent, ToolCall
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.mcp_tools import mcp_tool_name
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

WITHIN_S = 5.0
"""How long any one step may take: a hang fails in seconds."""

ANSWER = assistant(TextContent("Understood, I will not do that."), timestamp=5)

Answer = Callable[[pb.ExecServerMessage], list[pb.AgentClientMessage]]


def reply(**result: object) -> Answer:
    """The client answers the exec with one result message, then closes it."""

    def answer(request: pb.ExecServerMessage) -> list[pb.AgentClientMessage]:
        return [exec_reply(request, **result), stream_close(request.id)]

    return answer


def shell_stream(**event: object) -> Answer:
    """The client answers a streamed shell run with one event, then closes it."""
    return reply(shell_stream=pb.ShellStream(**event))  # type: ignore[arg-type]


def throw(error: str) -> Answer:
    """The client fails the exec (`exec_client_control_message.throw`)."""

    def answer(request: pb.ExecServerMessage) -> list[pb.AgentClientMessage]:
        failed = pb.ExecClientThrow(id=request.id, error=error)
        control = pb.ExecClientControlMessage(throw=failed)
        return [pb.AgentClientMessage(exec_client_control_message=control)]

    return answer


MCP_TOOL = pb.McpToolDefinition(
    name="files-delete_all", provider_identifier="files", tool_name="delete_all"
)
MCP_NAME = mcp_tool_name("files", "delete_all")


@dataclass(frozen=True)
class Case:
    name: str
    arguments: JSONObject
    answer: Answer
    said: str
    """What the model's error result must say (the client's reason)."""


CASES = {
    "read rejected": Case(
        "read_file",
        {"path": "secret.txt"},
        reply(read_result=pb.ReadResult(rejected=pb.ReadRejected(reason="User rejected"))),
        "User rejected",
    ),
    "read error": Case(
        "read_file",
        {"path": "a.txt"},
        reply(read_result=pb.ReadResult(error=pb.ReadError(path="a.txt", error="EIO on a.txt"))),
        "EIO on a.txt",
    ),
    "read permission denied": Case(
        "read_file",
        {"path": "/root/x"},
        reply(read_result=pb.ReadResult(permission_denied=pb.ReadPermissionDenied(path="/root/x"))),
        "permission denied: /root/x",
    ),
    "read thrown": Case("read_file", {"path": "a.txt"}, throw("read exploded"), "read exploded"),
    "shell stream rejected": Case(
        "run_terminal_cmd",
        {"command": "rm -rf build"},
        shell_stream(rejected=pb.ShellRejected(command="rm -rf build", reason="Not today")),
        "Not today",
    ),
    "shell stream permission denied": Case(
        "run_terminal_cmd",
        {"command": "cat /etc/shadow"},
        shell_stream(permission_denied=pb.ShellPermissionDenied(error="sandbox said no")),
        "sandbox said no",
    ),
    "shell stream sandbox unsupported": Case(
        "run_terminal_cmd",
        {"command": "make test"},
        shell_stream(
            sandbox_unsupported=pb.ShellSandboxUnsupported(reason="no sandbox on this host")
        ),
        "no sandbox on this host",
    ),
    "shell result rejected": Case(
        "run_terminal_cmd",
        {"command": "make deploy"},
        reply(shell_result=pb.ShellResult(rejected=pb.ShellRejected(reason="User skipped"))),
        "User skipped",
    ),
    "shell thrown": Case(
        "run_terminal_cmd",
        {"command": "ls"},
        throw("Parsing result is required"),
        "Parsing result is required",
    ),
    "write rejected": Case(
        "write_file",
        {"path": "a.txt", "contents": "x"},
        reply(write_result=pb.WriteResult(rejected=pb.WriteRejected(reason="Declined"))),
        "Declined",
    ),
    "edit's read rejected": Case(
        "edit_file",
        {"path": "a.txt", "old_string": "a", "new_string": "b"},
        reply(read_result=pb.ReadResult(rejected=pb.ReadRejected(reason="No edits here"))),
        "No edits here",
    ),
    "delete rejected": Case(
        "delete_file",
        {"path": "a.txt"},
        reply(delete_result=pb.DeleteResult(rejected=pb.DeleteRejected(reason="Keep it"))),
        "Keep it",
    ),
    "mcp rejected": Case(
        MCP_NAME,
        {},
        reply(mcp_result=pb.McpResult(rejected=pb.McpRejected(reason="Not approved"))),
        "Not approved",
    ),
    "mcp error": Case(
        MCP_NAME,
        {},
        reply(mcp_result=pb.McpResult(error=pb.McpError(error="server crashed"))),
        "server crashed",
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
async def test_a_declined_or_failed_tool_call_gives_the_model_an_error_result(
    case: Case, tmp_path: Path
) -> None:
    call = ToolCall("call_1", case.name, case.arguments, json.dumps(case.arguments))
    llm = ScriptedLLM([stream_of(assistant(call)), stream_of(ANSWER)])
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    context = pb.RequestContext(tools=[MCP_TOOL])
    try:
        async with serving(build_service(store, llm)) as url:
            client = CursorClient(url)
            try:
                stream = await client.open("r-1")
                await client.append("r-1", 0, run_request("Do it.", context=context))
                item = await stream.until(lambda i: kind(i) == "exec", within=WITHIN_S)
                assert isinstance(item, pb.AgentServerMessage)
                for seqno, message in enumerate(case.answer(item.exec_server_message), 1):
                    await client.append("r-1", seqno, message)
                try:
                    end = await stream.until(lambda i: isinstance(i, End), within=WITHIN_S)
                except TimeoutError:
                    pytest.fail(f"the turn still waits {WITHIN_S}s after the client's answer")
            finally:
                await client.close()
        loaded = store.load("conv-1")
    finally:
        store.close()

    assert isinstance(end, End) and end.error is None  # the turn ended normally
    kinds = [kind(i) for i in stream.received]
    assert kinds[-2:] == ["turn_ended", "end"]
    assert "tool_call_completed" in kinds  # the card is closed, not left spinning
    # The model was called again, with the client's no as an error result.
    assert len(llm.requests) == 2
    second = json.loads(llm.requests[1][1])
    results = [m for m in second["messages"] if m["role"] == "toolResult"]
    assert len(results) == 1
    assert results[0]["toolCallId"] == "call_1" and results[0]["isError"] is True
    assert case.said in results[0]["content"][0]["text"]
    assert loaded is not None
    assert [type(m).__name__ for m in loaded.state.messages] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "AssistantMessage",
    ]
