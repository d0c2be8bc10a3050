"""What real clients do to a server, over a real socket: shuffled and
duplicate appends, reused request ids, dropped streams, cancels, upstream
errors, malformed bodies."""

from __future__ import annotations

import asyncio
import base64
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from cursor_byok.client.client import (
    CursorClient,
    End,
    cancel,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.llm.events import ErrorEvent, ResponseEvent
from cursor_byok.llm.types import AssistantMessage, TextContent, ToolCall, UserMessage
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2
from tests.factories import assistant, error_event, stream_of, tool_call
from tests.fakes import ScriptedLLM


@asynccontextmanager
async def server(
    tmp_path: Path, scripts: list[list[ResponseEvent]], delay: float = 0.0, grace_s: float = 30
) -> AsyncIterator[tuple[CursorClient, SQLiteStore, ScriptedLLM]]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM(scripts, delay)
    service = build_service(
        store, llm, retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.2, grace_s=grace_s
    )
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            yield client, store, llm
        finally:
            await client.close()
    store.close()


def follow_up(text: str) -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        conversation_action=pb.ConversationAction(
            user_message_action=pb.UserMessageAction(user_message=pb.UserMessage(text=text))
        )
    )


def is_end(item: object) -> bool:
    return isinstance(item, End)


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


async def test_a_shuffled_window_of_16_appends_is_applied_in_seqno_order(tmp_path: Path) -> None:
    async with server(tmp_path, [answer("first"), answer("second")], delay=0.01) as (
        client,
        store,
        _llm,
    ):
        stream = await client.open("r")
        messages = [run_request("start")] + [follow_up(f"m{n}") for n in range(1, 16)]
        order = list(range(16))
        random.Random(7).shuffle(order)
        await asyncio.gather(*(client.append("r", n, messages[n]) for n in order))
        await stream.until(is_end, within=20)
        loaded = store.load("conv-1")
    assert loaded is not None
    users = [m.content for m in loaded.state.messages if isinstance(m, UserMessage)]
    assert users == ["start"] + [f"m{n}" for n in range(1, 16)]


async def test_a_duplicate_exec_result_is_applied_once(tmp_path: Path) -> None:
    first = stream_of(assistant(tool_call("call_1", "a.txt")))
    async with server(tmp_path, [first, answer("done")]) as (client, store, llm):
        stream = await client.open("r")
        await client.append("r", 0, run_request("read a.txt"))
        item = await stream.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        request = item.exec_server_message
        reply = exec_reply(
            request, read_result=pb.ReadResult(success=pb.ReadSuccess(path="a.txt", content="x"))
        )
        await client.append("r", 1, reply)
        await client.append("r", 1, reply)  # the same append again
        await client.append("r", 2, reply)  # the same result under a new seqno
        await client.append("r", 3, stream_close(request.id))
        await stream.until(is_end)
        loaded = store.load("conv-1")
    assert loaded is not None
    kinds = [type(m).__name__ for m in loaded.state.messages]
    assert kinds.count("ToolResultMessage") == 1 and len(llm.requests) == 2


async def test_a_request_id_reused_from_seqno_0_runs_a_new_turn(tmp_path: Path) -> None:
    async with server(tmp_path, [answer("one"), answer("two")]) as (client, store, _llm):
        first = await client.open("same")
        await client.append("same", 0, run_request("first question"))
        assert (await first.until(is_end)).error is None  # type: ignore[union-attr]
        second = await client.open("same")
        await client.append("same", 0, run_request("second question"))
        end = await second.until(is_end)
        assert isinstance(end, End) and end.error is None
        loaded = store.load("conv-1")
    assert loaded is not None
    assert [m.content for m in loaded.state.messages if isinstance(m, UserMessage)] == [
        "first question",
        "second question",
    ]


async def test_a_dropped_stream_reopened_with_the_same_id_gets_the_rest(tmp_path: Path) -> None:
    long = answer("a fairly long answer that streams in many small pieces " * 3)
    async with server(tmp_path, [long], delay=0.02) as (client, store, _llm):
        first = await client.open("r")
        await client.append("r", 0, run_request("talk"))
        await first.until(lambda i: kind(i) == "text_delta")
        assert first.task is not None
        first.task.cancel()  # the connection drops mid-turn
        await asyncio.sleep(0.1)
        again = await client.open("r")
        end = await again.until(is_end, within=20)
        assert isinstance(end, End) and end.error is None
        assert "turn_ended" in [kind(i) for i in again.received]
        loaded = store.load("conv-1")
    assert loaded is not None and len(loaded.state.messages) == 2


async def test_cancel_mid_stream_ends_with_canceled_and_keeps_what_streamed(tmp_path: Path) -> None:
    long = answer("word " * 300)
    async with server(tmp_path, [long], delay=0.01) as (client, store, llm):
        stream = await client.open("r")
        await client.append("r", 0, run_request("go"))
        await stream.until(lambda i: kind(i) == "text_delta")
        await client.append("r", 1, cancel("user pressed stop"))
        end = await stream.until(is_end)
        await asyncio.sleep(0.05)
        loaded = store.load("conv-1")
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "canceled"
    assert llm.streams[0].closed
    assert loaded is not None
    _, kept = loaded.state.messages
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert kept.text and ("word " * 300).startswith(kept.text)


async def test_an_upstream_error_mid_stream_ends_with_error_details(tmp_path: Path) -> None:
    broken = ErrorEvent("error", error_event("upstream 500: overloaded").message, 500)
    partial: list[ResponseEvent] = [*answer("partial answer")[:3], broken]
    async with server(tmp_path, [partial]) as (client, store, _llm):
        stream = await client.open("r")
        await client.append("r", 0, run_request("go"))
        end = await stream.until(is_end)
        loaded = store.load("conv-1")
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "unavailable"
    details = end.error["details"]
    assert isinstance(details, list) and details[0]["type"] == "aiserver.v1.ErrorDetails"
    value = details[0]["value"]
    decoded = error_details_pb2.ErrorDetails.FromString(
        base64.b64decode(value + "=" * (-len(value) % 4))
    )
    assert decoded.details.detail == "upstream 500: overloaded" and decoded.details.is_retryable
    assert any(kind(i) == "text_delta" for i in stream.received)  # partial text was shown
    assert loaded is not None and len(loaded.state.messages) == 1  # but never committed


async def test_a_malformed_runsse_body_is_invalid_argument(tmp_path: Path) -> None:
    async with server(tmp_path, []) as (client, _store, _llm):
        bad = await client.post(
            "/agent.v1.AgentService/RunSSE",
            body=b"\x00\x00\x00\x00\x09\x0a",  # an envelope that claims 9 bytes, has 1
            headers={"content-type": "application/connect+proto"},
        )
        assert bad.status == 400 and bad.json()["code"] == "invalid_argument"
        empty = await client.post(
            "/agent.v1.AgentService/RunSSE",
            body=b"",
            headers={"content-type": "application/connect+proto"},
        )
        assert empty.json()["code"] == "invalid_argument"


async def test_a_stream_left_without_a_reader_is_canceled_after_the_grace(tmp_path: Path) -> None:
    long = answer("slow " * 200)
    async with server(tmp_path, [long], delay=0.02, grace_s=0.3) as (client, store, _llm):
        first = await client.open("r")
        await client.append("r", 0, run_request("go"))
        await first.until(lambda i: kind(i) == "text_delta")
        assert first.task is not None
        first.task.cancel()
        for _ in range(100):
            loaded = store.load("conv-1")
            if loaded is not None and len(loaded.state.messages) == 2:
                break
            await asyncio.sleep(0.05)
    assert loaded is not None and loaded.state.status.value == "canceled"
    # What had streamed when the grace period ran out is kept, marked interrupted.
    kept = loaded.state.messages[-1]
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert kept.text and ("slow " * 200).startswith(kept.text)


async def test_the_run_request_may_arrive_before_the_stream_opens(tmp_path: Path) -> None:
    async with server(tmp_path, [answer("early bird")], delay=0.0) as (client, _store, _llm):
        await client.append("r", 0, run_request("hello first"))
        await asyncio.sleep(0.2)  # the model may already be done: nothing may be lost
        stream = await client.open("r")
        end = await stream.until(is_end)
        assert isinstance(end, End) and end.error is None
    text = stream.text()
    assert text == "early bird"


async def test_a_cancel_with_nothing_running_does_not_leak_into_the_next_turn(
    tmp_path: Path,
) -> None:
    async with server(tmp_path, [answer("first"), answer("second")]) as (client, _s, _l):
        one = await client.open("r1")
        await client.append("r1", 0, run_request("one"))
        await one.until(is_end)
        await client.append("r1", 1, cancel("late stop"))  # the turn is already over
        two = await client.open("r2")
        await client.append("r2", 0, run_request("two"))
        end = await two.until(is_end)
    assert isinstance(end, End) and end.error is None
    text = two.text()
    assert text == "second"


async def test_a_new_stream_taking_over_a_waiting_tool_call_gets_the_request_again(
    tmp_path: Path,
) -> None:
    first = stream_of(assistant(tool_call("call_1", "a.txt")))
    async with server(tmp_path, [first, answer("done")]) as (client, store, _llm):
        old = await client.open("r1")
        await client.append("r1", 0, run_request("read"))
        await old.until(lambda i: kind(i) == "exec")
        new = await client.open("r2")
        await client.append("r2", 0, run_request("are you there?"))
        item = await new.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        request = item.exec_server_message
        assert request.read_args.path == "a.txt"
        reply = exec_reply(
            request, read_result=pb.ReadResult(success=pb.ReadSuccess(path="a.txt", content="x"))
        )
        await client.append("r2", 1, reply)
        end = await new.until(is_end)
        assert isinstance(end, End) and end.error is None
        loaded = store.load("conv-1")
    assert loaded is not None
    users = [m.content for m in loaded.state.messages if isinstance(m, UserMessage)]
    assert users == ["read", "are you there?"]  # the queued message was taken too


async def test_reopening_a_finished_stream_ends_at_once(tmp_path: Path) -> None:
    async with server(tmp_path, [answer("ok")]) as (client, _s, _l):
        first = await client.open("r")
        await client.append("r", 0, run_request("hi"))
        await first.until(is_end)
        again = await client.open("r")
        end = await again.until(is_end, within=3)
    assert isinstance(end, End) and end.error is None
    assert [kind(i) for i in again.received] == ["end"]


async def test_an_append_that_fails_inside_still_gets_200_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    async with server(tmp_path, [answer("fine")]) as (client, _s, llm):
        stream = await client.open("r")
        message = run_request("go")
        message.run_request.mcp_tools.mcp_tools.append(
            pb.McpToolDefinition(name="t", tool_name="t", input_schema_json="{not json")
        )
        response = await client.append("r", 0, message)
        assert response.status == 200
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is None and len(llm.requests) == 1


async def test_an_edit_reads_then_writes_the_file_in_one_tool_call(tmp_path: Path) -> None:
    edit = ToolCall(
        "call_e", "edit_file", {"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
    )
    workspace = {"a.py": "import os\nx = 1\nprint(x)\n"}
    async with server(tmp_path, [stream_of(assistant(edit)), answer("edited")]) as (
        client,
        store,
        llm,
    ):
        stream = await client.open("r")
        await client.append("r", 0, run_request("bump x"))
        item = await stream.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        read = item.exec_server_message
        assert read.WhichOneof("message") == "read_args" and read.read_args.path == "a.py"
        content = workspace["a.py"]
        await client.append(
            "r",
            1,
            exec_reply(
                read,
                read_result=pb.ReadResult(success=pb.ReadSuccess(path="a.py", content=content)),
            ),
        )
        item = await stream.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        write = item.exec_server_message
        assert write.WhichOneof("message") == "write_args" and write.exec_id != read.exec_id
        workspace["a.py"] = write.write_args.file_text
        await client.append(
            "r",
            2,
            exec_reply(
                write,
                write_result=pb.WriteResult(success=pb.WriteSuccess(path="a.py", lines_created=3)),
            ),
        )
        end = await stream.until(is_end)
        loaded = store.load("conv-1")
    assert isinstance(end, End) and end.error is None
    assert workspace["a.py"] == "import os\nx = 2\nprint(x)\n"
    completed = next(i for i in stream.received if kind(i) == "tool_call_completed")
    assert isinstance(completed, pb.AgentServerMessage)
    card = completed.interaction_update.tool_call_completed.tool_call.edit_tool_call
    assert card.result.success.path == "a.py" and "+x = 2" in card.result.success.diff_string
    assert loaded is not None
    result = loaded.state.messages[2]
    assert result.content[0].text == "Edited a.py: 1 replacement(s)."  # type: ignore[union-attr]
    assert len(llm.requests) == 2


async def test_appends_go_out_while_more_streams_are_open_than_a_default_pool_holds(
    tmp_path: Path,
) -> None:
    """Appends are posted while the client's streams hold their connections,
    as the official client does: with 101 streams open on one client (one
    more than aiohttp's default pool), the last one still opens and every
    append still goes out."""
    count = 101
    async with server(tmp_path, [answer("fine") for _ in range(count)]) as (client, _s, _llm):
        streams = [await client.open(f"r-{n}") for n in range(count)]
        for n in range(count):
            await client.append(f"r-{n}", 0, run_request("go", conversation_id=f"conv-{n}"))
        ends = [await stream.until(is_end, within=30) for stream in streams]
    assert all(isinstance(end, End) and end.error is None for end in ends)
    assert all(stream.text() == "fine" for stream in streams)
