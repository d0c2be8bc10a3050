"""To-dos against the independent player of the official CLI
(independent_cli.py), in each codec, through a real `serve` process and the
Anthropic adapter on the replay provider: the model writes its list, the
process is killed (SIGKILL) while the next model call is streaming, and the
restarted server goes on: the same model request is sent again (the
write's result in it once), a merge after the restart applies once onto
the list as it was, and the checkpoints name each list by blobs stored
first."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.independent_cli import CODECS, OfficialCli, Run
from tests.e2e.test_independent_cli import CLAUDE, say
from tests.e2e.test_restart import start_serve
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.wire_streams import Call, Text, anthropic

WRITE = Call(
    "toolu_todo_1",
    "TodoWrite",
    {
        "todos": [
            {"id": "read", "content": "Read the parser", "status": "in_progress"},
            {"id": "fix", "content": "Fix the bug", "status": "pending"},
        ],
        "merge": False,
    },
)
MERGE = Call(
    "toolu_todo_2",
    "TodoWrite",
    {
        "todos": [
            {"id": "read", "status": "completed"},
            {"id": "ship", "content": "Ship it", "status": "pending"},
        ]
    },
)
STREAMING = anthropic([Text("Reading the parser now.")])
HANGING = STREAMING[: STREAMING.index(b"event: message_delta")]


def todo_cards(run: Run) -> list[tuple[str, pb.UpdateTodosToolCall]]:
    return [
        (kind, message.tool_call.update_todos_tool_call)
        for kind, message in run.events
        if kind in ("partial_tool_call", "tool_call_started", "tool_call_completed")
        and message.tool_call.HasField("update_todos_tool_call")
    ]


def stored_before_named(run: Run, held: dict[bytes, bytes]) -> list[list[pb.TodoItem]]:
    """Each checkpoint's to-dos, checking that every blob it names was set
    before the checkpoint came: on this stream, or before it (`held`)."""
    known = dict(held)
    lists = []
    for kind, message in run.events:
        if kind == "kv_set":
            known[message.blob_id] = message.blob_data
        elif kind == "checkpoint":
            items = []
            for blob_id in message.todos:
                assert blob_id in known, "a checkpoint names a to-do blob not stored before it"
                items.append(pb.TodoItem.FromString(known[blob_id]))
            lists.append(items)
    return lists


def results(database: Path) -> tuple[list[ToolResultMessage], list[tuple[str, str]]]:
    store = SQLiteStore(database)
    try:
        loaded = store.load("conv-t")
    finally:
        store.close()
    assert loaded is not None
    kept = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
    return kept, [(t.id, t.status.value) for t in loaded.state.todos]


def result_texts(body: dict[str, Any]) -> list[str]:
    """The tool results in an Anthropic request, as text."""
    return [
        json.dumps(block.get("content"))
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_kill_after_a_write_loses_nothing_and_applies_nothing_twice(
    tmp_path: Path, codec: str
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [
        Reply(anthropic([Text("Planning."), WRITE])),
        Reply(HANGING, hang=True),
        Reply(anthropic([Text("Read it."), MERGE])),
        say("Shipped."),
    ]
    config = tmp_path / "config.toml"
    config.write_text(CLAUDE.toml(provider.base_url))
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    try:
        async with OfficialCli(f"http://127.0.0.1:{port}", codec, workspace) as cli:
            handle = cli.start("conv-t", "m", cli.user_action("plan and fix the parser"))
            await handle.until(lambda _run: len(provider.received) == 2)
            await handle.until(lambda run: "Reading" in run.text())
            first.kill()
            await asyncio.to_thread(first.communicate, timeout=30)
            before = await handle.finish()
            held = dict(cli.blobs)
            second = await asyncio.to_thread(start_serve, config, database, port)
            resume = pb.ConversationAction()
            resume.resume_action.SetInParent()
            after = await cli.start("conv-t", "m", resume).finish(60)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await provider.stop()
    assert after.end is not None and after.end.ok, (after.end, after.errors)
    assert after.errors == [] and after.dropped == []
    # Before the kill: the write's cards, then its blobs and a checkpoint naming them.
    kinds = [kind for kind, _ in todo_cards(before)]
    assert kinds[0] == "partial_tool_call" and kinds[-2:] == [
        "tool_call_started",
        "tool_call_completed",
    ]
    assert [(i.id, i.status) for i in stored_before_named(before, {})[-1]] == [
        ("read", pb.TODO_STATUS_IN_PROGRESS),
        ("fix", pb.TODO_STATUS_PENDING),
    ]
    # The call cut by the kill is made again, the same bytes, the write's result in it once.
    assert len(provider.received) == 4
    assert provider.received[1].body == provider.received[2].body
    [written] = [t for t in result_texts(provider.requests[1]) if "to-do list" in t]
    assert "Read the parser (id: read)" in written and "was updated" in written
    # After the restart: the merge applies once, onto the list the write left.
    merged = [card for kind, card in todo_cards(after) if kind == "tool_call_completed"]
    assert [
        (card.result.success.total_count, card.result.success.was_merge) for card in merged
    ] == [(3, True)]
    expected = [
        ("read", pb.TODO_STATUS_COMPLETED),
        ("fix", pb.TODO_STATUS_PENDING),
        ("ship", pb.TODO_STATUS_PENDING),
    ]
    assert [(i.id, i.status) for i in stored_before_named(after, held)[-1]] == expected
    kept, todos = results(database)
    assert [m.tool_call_id for m in kept] == ["toolu_todo_1", "toolu_todo_2"]
    assert todos == [("read", "completed"), ("fix", "pending"), ("ship", "pending")]
    assert "Shipped." in after.text()
    assert all(isinstance(block, TextContent) for m in kept for block in m.content)
