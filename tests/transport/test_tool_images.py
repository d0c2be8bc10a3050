"""Images a tool returns, in the dialect: a `read` answered with image bytes
(`ReadSuccess.data`, no type) and an MCP result with image items become
images in the tool result, typed by their bytes; the read card names the
image by blob id after `set_blob`, never with its bytes."""

from __future__ import annotations

import base64
from hashlib import sha256

from cursor_byok.llm.types import ImageContent, TextContent
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.dialect.tools import NativeTool, NextExec, ToolSet, mcp_tools
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import tool_call
from tests.image_samples import WEBP, png

PICTURE = png(3, 2)


def read_image(data: bytes, path: str = "shot.png") -> pb.ExecClientMessage:
    success = pb.ReadSuccess(path=path, data=data, total_lines=0, file_size=len(data) + 100)
    return pb.ExecClientMessage(read_result=pb.ReadResult(success=success))


def test_a_read_image_reaches_the_model_as_an_image_typed_by_its_bytes() -> None:
    tool = ToolSet.for_run().get("read_file")
    assert isinstance(tool, NativeTool)
    call = tool_call("call_1", "shot.png")
    outcome = tool.step(call, read_image(PICTURE), {})
    assert not isinstance(outcome, NextExec)
    message = dialect.tool_result_message(call, outcome, 7)
    assert message.content == (
        TextContent(f"shot.png: an image file of {len(PICTURE) + 100} bytes"),
        ImageContent(base64.b64encode(PICTURE).decode("ascii"), "image/png"),
    )
    assert not message.is_error


def test_an_image_of_an_unknown_format_becomes_a_clear_note() -> None:
    tool = ToolSet.for_run().get("read_file")
    assert isinstance(tool, NativeTool)
    call = tool_call("call_1", "scan.bmp")
    bitmap = b"BM" + bytes(60)
    outcome = tool.step(call, read_image(bitmap, "scan.bmp"), {})
    assert not isinstance(outcome, NextExec)
    _, note = dialect.tool_result_message(call, outcome, 7).content
    assert note == TextContent(
        "[the tool returned an image that was left out: its 62 bytes are "
        "not a PNG, JPEG, GIF or WebP image]"
    )


def test_the_read_card_names_the_image_by_blob_id_after_set_blob() -> None:
    tool = ToolSet.for_run().get("read_file")
    assert isinstance(tool, NativeTool)
    context = dialect.StreamContext(stream_id="s")
    messages = dialect.encode_tool_completed(
        tool_call("call_1", "shot.png"), tool, read_image(PICTURE), context
    )
    kinds = [m.WhichOneof("message") for m in messages]
    assert kinds == ["kv_server_message", "interaction_update"]
    stored = messages[0].kv_server_message.set_blob_args
    assert stored.blob_id == sha256(PICTURE).digest() and stored.blob_data == PICTURE
    card = messages[1].interaction_update.tool_call_completed.tool_call.read_tool_call
    success = card.result.success
    assert success.WhichOneof("output") == "data_blob_id"
    assert success.data_blob_id == sha256(PICTURE).digest()
    assert success.path == "shot.png" and not success.is_empty
    assert PICTURE not in messages[1].SerializeToString()
    # The same image read again in the stream is not stored twice.
    again = dialect.encode_tool_completed(
        tool_call("call_2", "shot.png"), tool, read_image(PICTURE), context
    )
    assert [m.WhichOneof("message") for m in again] == ["interaction_update"]


def test_a_text_read_card_is_as_before() -> None:
    tool = ToolSet.for_run().get("read_file")
    assert isinstance(tool, NativeTool)
    text = pb.ExecClientMessage(
        read_result=pb.ReadResult(success=pb.ReadSuccess(path="a.txt", content="hi\n"))
    )
    [update] = dialect.encode_tool_completed(
        tool_call("call_1"), tool, text, dialect.StreamContext(stream_id="s")
    )
    success = update.interaction_update.tool_call_completed.tool_call.read_tool_call.result.success
    assert success.WhichOneof("output") == "content" and success.content == "hi\n"


def test_mcp_image_items_become_images_and_text_items_stay_text() -> None:
    [tool] = mcp_tools([pb.McpToolDefinition(name="shots-take", provider_identifier="shots")])
    call = tool_call("call_1", name=tool.name)
    items = [
        pb.McpToolResultContentItem(text=pb.McpTextContent(text="two screenshots")),
        # The server's claim is not trusted: the WebP is typed by its bytes.
        pb.McpToolResultContentItem(image=pb.McpImageContent(data=WEBP, mime_type="image/png")),
        pb.McpToolResultContentItem(image=pb.McpImageContent(data=PICTURE, mime_type="")),
    ]
    result = pb.ExecClientMessage(mcp_result=pb.McpResult(success=pb.McpSuccess(content=items)))
    message = dialect.tool_result_message(call, tool.outcome(result), 7)
    assert message.content == (
        TextContent("two screenshots"),
        ImageContent(base64.b64encode(WEBP).decode("ascii"), "image/webp"),
        ImageContent(base64.b64encode(PICTURE).decode("ascii"), "image/png"),
    )


def test_an_mcp_result_of_images_alone_carries_no_empty_text() -> None:
    [tool] = mcp_tools([pb.McpToolDefinition(name="shots-take", provider_identifier="shots")])
    item = pb.McpToolResultContentItem(image=pb.McpImageContent(data=PICTURE))
    result = pb.ExecClientMessage(mcp_result=pb.McpResult(success=pb.McpSuccess(content=[item])))
    call = tool_call("call_1", name=tool.name)
    message = dialect.tool_result_message(call, tool.outcome(result), 7)
    assert message.content == (
        ImageContent(base64.b64encode(PICTURE).decode("ascii"), "image/png"),
    )
