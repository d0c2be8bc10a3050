"""Messages of a normal turn survive decode/encode, including fields we do not declare.

A newer client may send fields (or whole tool branches) our schema leaves out;
they must come back out byte for byte, never be dropped.
"""

from __future__ import annotations

from google.protobuf import json_format

from cursor_byok.transport.proto.agent.v1 import agent_pb2
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def _run_request() -> agent_pb2.AgentRunRequest:
    return agent_pb2.AgentRunRequest(
        conversation_state=agent_pb2.ConversationStateStructure(
            root_prompt_messages_json=[b"\x11" * 32],
            turns=[b"\x22" * 32],
            mode=agent_pb2.AGENT_MODE_AGENT,
        ),
        action=agent_pb2.ConversationAction(
            user_message_action=agent_pb2.UserMessageAction(
                user_message=agent_pb2.UserMessage(
                    text="explain main.py", message_id="m-1", mode=agent_pb2.AGENT_MODE_AGENT
                )
            )
        ),
        model_details=agent_pb2.ModelDetails(model_id="claude-4.5-sonnet", display_name="Sonnet"),
        mcp_tools=agent_pb2.McpTools(
            mcp_tools=[
                agent_pb2.McpToolDefinition(
                    name="search",
                    description="web search",
                    provider_identifier="srv",
                    tool_name="search",
                )
            ]
        ),
        conversation_id="conv-1",
        requested_model=agent_pb2.RequestedModel(
            model_id="claude-4.5-sonnet",
            parameters=[agent_pb2.RequestedModel.ModelParameterValue(id="thinking", value="true")],
        ),
        run_id="run-1",
    )


def test_run_request_round_trips_with_undeclared_fields_kept() -> None:
    # 29 system_prompt_spec and 30 client_llm_gateway_credential are deliberately not declared.
    undeclared = _length_delimited(29, b"\x0a\x03abc") + _length_delimited(30, b"\x0a\x01x")
    run_request_bytes = _run_request().SerializeToString() + undeclared
    wire = _length_delimited(1, run_request_bytes)

    decoded = agent_pb2.AgentClientMessage.FromString(wire)

    assert decoded.WhichOneof("message") == "run_request"
    assert decoded.run_request.action.user_message_action.user_message.text == "explain main.py"
    assert decoded.run_request.requested_model.parameters[0].id == "thinking"
    assert decoded.SerializeToString() == wire


def test_run_request_mcp_input_schema_is_a_struct_value() -> None:
    tool = agent_pb2.McpToolDefinition(name="t")
    tool.input_schema.struct_value.update({"type": "object", "properties": {}})

    decoded = agent_pb2.McpToolDefinition.FromString(tool.SerializeToString())

    assert decoded.input_schema.struct_value["type"] == "object"


def test_exec_server_branches_of_a_turn_round_trip() -> None:
    messages = [
        agent_pb2.ExecServerMessage(
            id=1, exec_id="e1", read_args=agent_pb2.ReadArgs(path="/a", tool_call_id="c1")
        ),
        agent_pb2.ExecServerMessage(
            id=2,
            exec_id="e2",
            write_args=agent_pb2.WriteArgs(path="/b", file_text="x", tool_call_id="c2"),
        ),
        agent_pb2.ExecServerMessage(id=3, delete_args=agent_pb2.DeleteArgs(path="/c")),
        agent_pb2.ExecServerMessage(
            id=4, shell_stream_args=agent_pb2.ShellArgs(command="ls", working_directory="/")
        ),
        agent_pb2.ExecServerMessage(id=5, grep_args=agent_pb2.GrepArgs(pattern="def ")),
        agent_pb2.ExecServerMessage(id=6, ls_args=agent_pb2.LsArgs(path="/")),
        agent_pb2.ExecServerMessage(id=7, diagnostics_args=agent_pb2.DiagnosticsArgs(path="/a")),
        agent_pb2.ExecServerMessage(
            id=8, mcp_args=agent_pb2.McpArgs(name="search", tool_name="search")
        ),
        agent_pb2.ExecServerMessage(id=9, request_context_args=agent_pb2.RequestContextArgs()),
    ]
    for message in messages:
        wire = agent_pb2.AgentServerMessage(exec_server_message=message).SerializeToString()
        assert agent_pb2.AgentServerMessage.FromString(wire).exec_server_message == message


def test_exec_client_results_round_trip() -> None:
    read = agent_pb2.ExecClientMessage(
        id=1,
        exec_id="e1",
        read_result=agent_pb2.ReadResult(
            success=agent_pb2.ReadSuccess(path="/a", content="hello\n", total_lines=1)
        ),
    )
    shell = agent_pb2.ExecClientMessage(
        id=2,
        shell_stream=agent_pb2.ShellStream(stdout=agent_pb2.ShellStreamStdout(data="out")),
    )
    for message in (read, shell):
        wire = agent_pb2.AgentClientMessage(exec_client_message=message).SerializeToString()
        decoded = agent_pb2.AgentClientMessage.FromString(wire)
        assert decoded.exec_client_message == message
        assert decoded.SerializeToString() == wire


def test_an_undeclared_exec_branch_is_kept_but_not_mistaken_for_a_known_one() -> None:
    # 22 computer_use_args is left out of our schema.
    wire = _varint(1 << 3) + _varint(7) + _length_delimited(22, b"\x0a\x01z")

    decoded = agent_pb2.ExecServerMessage.FromString(wire)

    assert decoded.id == 7
    assert decoded.WhichOneof("message") is None
    assert decoded.SerializeToString() == wire


def test_bidi_append_carries_the_client_message_as_hex() -> None:
    client_message = agent_pb2.AgentClientMessage(run_request=_run_request())
    append = bidi_pb2.BidiAppendRequest(
        data=client_message.SerializeToString().hex(),
        request_id=bidi_pb2.BidiRequestId(request_id="0b7c1f0e-req"),
        append_seqno=3,
    )

    decoded = bidi_pb2.BidiAppendRequest.FromString(append.SerializeToString())
    inner = agent_pb2.AgentClientMessage.FromString(bytes.fromhex(decoded.data))

    assert decoded.request_id.request_id == "0b7c1f0e-req"
    assert decoded.append_seqno == 3
    assert inner == client_message


def test_bidi_append_accepts_the_connect_json_shape_of_real_clients() -> None:
    camel = '{"requestId":{"requestId":"r-1"},"appendSeqno":"3","data":"3a00"}'
    snake = '{"request_id":{"request_id":"r-1"},"append_seqno":3,"data":"3a00"}'

    for text in (camel, snake):
        append = json_format.Parse(text, bidi_pb2.BidiAppendRequest())
        assert (append.request_id.request_id, append.append_seqno) == ("r-1", 3)
        inner = agent_pb2.AgentClientMessage.FromString(bytes.fromhex(append.data))
        assert inner.WhichOneof("message") == "client_heartbeat"
