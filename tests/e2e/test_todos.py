"""To-dos through the real server, against the client that plays the
official CLI (official_cli.py) in each codec: the model writes its list
three times (a new list, a merge, a replace); the server runs `TodoWrite`
itself (no exec), draws the cards the CLI draws, names the list in every
checkpoint by blob ids of `TodoItem`s stored on the client first, gives the
model the list, keeps it through /compress, and `show` prints it."""

from __future__ import annotations

import io
from itertools import dropwhile
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.cli.main import main
from cursor_byok.client.client import CODECS
from cursor_byok.loop.todos import TodoStatus
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import CliTurn, OfficialCli, user_message
from tests.e2e.test_official_cli import answer, call, clean, rig, uses

FIRST = call(
    "call_todo_1",
    "TodoWrite",
    todos=[
        {"id": "read", "content": "Read the parser", "status": "in_progress"},
        {"id": "fix", "content": "Fix the off-by-one", "status": "pending"},
        {"id": "test", "content": "Run the tests", "status": "pending"},
    ],
)
MERGE = call(
    "call_todo_2",
    "TodoWrite",
    todos=[
        {"id": "read", "status": "completed"},
        {"id": "fix", "status": "In-Progress"},
        {"id": "docs", "content": "Update the changelog", "status": "pending"},
    ],
    merge=True,
)
REPLACE = call(
    "call_todo_3",
    "TodoWrite",
    todos=[{"id": "ship", "content": "Ship the fix", "status": "in_progress"}],
    merge=False,
)


def todo_updates(turn: CliTurn) -> list[tuple[str, pb.UpdateTodosToolCall]]:
    """Each to-do card in order, as (kind, card)."""
    return [
        (kind, getattr(card, kind).tool_call.update_todos_tool_call)
        for card in turn.cards
        if (kind := card.WhichOneof("message") or "")
        and getattr(card, kind).tool_call.HasField("update_todos_tool_call")
    ]


def listed(items: Any) -> list[tuple[str, str, int]]:
    return [(item.id, item.content, item.status) for item in items]


def checkpoint_todos(cli: OfficialCli, state: pb.ConversationStateStructure) -> list[pb.TodoItem]:
    """The checkpoint's to-dos, read back as the CLI does: each a blob id."""
    items = []
    for blob_id in state.todos:
        assert len(blob_id) == 32, "a blob id, not an inline item"
        items.append(pb.TodoItem.FromString(cli.blobs[blob_id]))
    return items


@pytest.mark.parametrize("codec", CODECS)
async def test_todo_write_merges_replaces_and_names_the_list_by_blob_in_checkpoints(
    tmp_path: Path, codec: str
) -> None:
    scripts = [
        uses(FIRST),
        uses(MERGE),
        answer("Half done."),
        answer("Still on the fix."),
        uses(REPLACE),
        answer("Done."),
    ]
    async with rig(tmp_path, codec, scripts) as r:
        first = await r.cli.run(user_message("fix the parser", r.cli.context), "sonnet")
        r.cli.checkpoint = None  # a client without the checkpoint: the server's list still shows
        middle = await r.cli.run(user_message("how is it going?", r.cli.context), "sonnet")
        second = await r.cli.run(user_message("start over", r.cli.context), "sonnet")
        loaded = r.store.load("conv-cli")
    for turn in (first, middle, second):
        clean(turn)
        assert turn.execs == []  # no exec: the server writes the list itself
    # The model is offered the tool, and reads the list after each write.
    assert "TodoWrite" in {tool["name"] for tool in r.request(0)["tools"]}
    after_first = str(r.request(1)["messages"][-1])
    assert "- **IN_PROGRESS**: Read the parser (id: read)" in after_first
    assert "- **PENDING**: Run the tests (id: test)" in after_first
    after_merge = str(r.request(2)["messages"][-1])
    assert "- **COMPLETED**: Read the parser (id: read)" in after_merge
    assert "- **IN_PROGRESS**: Fix the off-by-one (id: fix)" in after_merge
    assert "- **PENDING**: Update the changelog (id: docs)" in after_merge
    after_replace = str(r.request(5)["messages"][-1])
    assert "Ship the fix (id: ship)" in after_replace and "(id: read)" not in after_replace

    # The cards, in order, for each call: partial (empty, then growing), started, completed.
    updates = todo_updates(first)
    kinds = [kind for kind, _ in updates]
    assert kinds[0] == "partial_tool_call" and not updates[0][1].args.todos
    first_call = kinds[: kinds.index("tool_call_completed") + 1]
    assert first_call[-2:] == ["tool_call_started", "tool_call_completed"]
    growing = [len(card.args.todos) for kind, card in updates[: len(first_call) - 2]]
    assert growing == [0, 1, 2, 3], "an empty card, then one more item a card"
    started = updates[len(first_call) - 2][1]
    assert listed(started.args.todos) == [
        ("read", "Read the parser", pb.TODO_STATUS_IN_PROGRESS),
        ("fix", "Fix the off-by-one", pb.TODO_STATUS_PENDING),
        ("test", "Run the tests", pb.TODO_STATUS_PENDING),
    ]
    merged = [card for kind, card in updates if kind == "tool_call_completed"][1]
    success = merged.result.success
    assert success.was_merge and success.total_count == 4
    assert listed(success.todos) == [
        ("read", "Read the parser", pb.TODO_STATUS_COMPLETED),
        ("fix", "Fix the off-by-one", pb.TODO_STATUS_IN_PROGRESS),
        ("test", "Run the tests", pb.TODO_STATUS_PENDING),
        ("docs", "Update the changelog", pb.TODO_STATUS_PENDING),
    ]
    assert [item.id for item in merged.args.todos] == ["read", "fix", "docs"]
    written = {i.id: i for i in updates[len(first_call) - 1][1].result.success.todos}
    kept = {item.id: item for item in success.todos}
    assert kept["read"].created_at == written["read"].created_at > 0  # kept from the first write
    assert kept["read"].updated_at >= written["read"].updated_at  # the merge's time
    assert kept["test"].updated_at == written["test"].updated_at  # untouched by the merge
    [replaced] = [card for kind, card in todo_updates(second) if kind == "tool_call_completed"]
    assert not replaced.result.success.was_merge and replaced.result.success.total_count == 1

    # After each write: the to-do blobs, then a checkpoint naming them.
    after = first.order[first.order.index("tool_call_completed") + 1 :]
    stored = len(after) - len(list(dropwhile(lambda kind: kind == "kv_server_message", after)))
    assert stored >= 3 and after[stored] == "conversation_checkpoint_update"
    # (The client checks each checkpoint's blobs as it comes: `clean` says none was missing.)
    final_first = checkpoint_todos(r.cli, first.checkpoints[-1])
    assert listed(final_first) == listed(success.todos)
    assert all(item.updated_at > 0 for item in final_first)
    # A turn that writes nothing names the committed list in its checkpoints, even
    # to a client that sent none.
    assert listed(checkpoint_todos(r.cli, middle.checkpoints[-1])) == listed(success.todos)
    assert listed(checkpoint_todos(r.cli, second.checkpoints[-1])) == [
        ("ship", "Ship the fix", pb.TODO_STATUS_IN_PROGRESS)
    ]
    # The committed state has the list.
    assert loaded is not None
    assert [(t.id, t.status) for t in loaded.state.todos] == [("ship", TodoStatus.IN_PROGRESS)]


@pytest.mark.parametrize("codec", CODECS)
async def test_compress_keeps_the_list_and_the_summary_sees_what_is_open(
    tmp_path: Path, codec: str
) -> None:
    scripts = [
        uses(FIRST),
        uses(MERGE),
        answer("Working on it."),
        answer("Summary: parser read; fixing the off-by-one next."),
        uses(call("call_todo_4", "TodoWrite", todos=[{"id": "fix", "status": "completed"}])),
        answer("Fixed."),
    ]
    async with rig(tmp_path, codec, scripts) as r:
        clean(await r.cli.run(user_message("fix the parser", r.cli.context), "sonnet"))
        summarize = pb.ConversationAction(summarize_action=pb.SummarizeAction())
        compressed = await r.cli.run(summarize, "sonnet")
        after = await r.cli.run(user_message("go on", r.cli.context), "sonnet")
        loaded = r.store.load("conv-cli")
    clean(compressed)
    clean(after)
    summary_request = str(r.request(3)["messages"][-1])
    assert "Fix the off-by-one (id: fix)" in summary_request
    assert "Update the changelog (id: docs)" in summary_request
    assert "(id: read)" not in summary_request, "finished items are left out"
    # The list outlives the summary: the checkpoints name it, a merge after it merges into it.
    assert len(checkpoint_todos(r.cli, compressed.checkpoints[-1])) == 4
    assert loaded is not None and loaded.state.resets
    assert [(t.id, t.status.value) for t in loaded.state.todos] == [
        ("read", "completed"),
        ("fix", "completed"),
        ("test", "pending"),
        ("docs", "pending"),
    ]
    out = io.StringIO()
    database = str(tmp_path / "db.sqlite3")
    assert main(["show", "conv-cli", "--database", database], out=out) == 0
    shown = out.getvalue()
    assert "to-dos: 4 (2 finished)" in shown
    assert "[completed]    Fix the off-by-one  (id: fix)" in shown
    assert "[pending]      Update the changelog  (id: docs)" in shown


async def test_a_write_the_server_cannot_apply_changes_nothing_and_says_why(
    tmp_path: Path,
) -> None:
    bad = call("call_bad", "TodoWrite", todos=[{"id": "new", "status": "pending"}])
    async with rig(tmp_path, "proto", [uses(FIRST), uses(bad), answer("Ok.")]) as r:
        turn = await r.cli.run(user_message("plan", r.cli.context), "sonnet")
        loaded = r.store.load("conv-cli")
    clean(turn)
    [_, failed] = [card for kind, card in todo_updates(turn) if kind == "tool_call_completed"]
    assert "needs its content" in failed.result.error.error
    assert "needs its content" in str(r.request(2)["messages"][-1])
    assert r.request(2)["messages"][-1]["isError"] is True
    assert loaded is not None and [t.id for t in loaded.state.todos] == ["read", "fix", "test"]
