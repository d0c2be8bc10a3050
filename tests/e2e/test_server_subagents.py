"""Subagents the server runs itself, through the real server over a real
socket, against a client that plays a CLI new enough for the Task card: the
child is a conversation of its own (its own history and model requests,
never the parent's), its updates reach the client on the Task card, its
execs go over the parent's exec channel, and its answer reaches the parent
model once, in the documented form."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.store.owners import client_id_of
from cursor_byok.transport.sessions.subagents import child_conversation_id
from tests.e2e.official_cli import user_message
from tests.e2e.subagent_rig import (
    RoutedLLM,
    child_text,
    completed_task,
    last_message,
    message_bytes,
    subagent_rig,
    task_deltas,
)
from tests.e2e.test_official_cli import answer, call, clean, uses

PARENT = "find out what the notes say"
CHILD = "CHILD-A: read notes.txt and report what it says"
TASK = call("call_task_a", "Task", description="Read the notes", prompt=CHILD)


async def test_one_subagent_runs_on_the_server_and_answers_the_parent_once(
    tmp_path: Path,
) -> None:
    llm = RoutedLLM(
        {
            CHILD: [
                uses(call("call_read", "read_file", path="notes.txt")),
                answer("The notes say: ship on Friday."),
            ],
            PARENT: [uses(TASK), answer("Friday it is.")],
        }
    )
    async with subagent_rig(tmp_path, llm) as r:
        (r.cli.workspace / "notes.txt").write_text("ship on Friday\n")
        turn = await r.cli.run(user_message(PARENT, r.cli.context), "sonnet")
        child_id = child_conversation_id("conv-cli", "call_task_a")
        child = r.store.load(child_id)
        parent = r.store.load("conv-cli")
    clean(turn)
    assert turn.text.endswith("Friday it is.")
    assert "ship on Friday" not in turn.text  # the child's words stay on its card
    # The child's updates came on the Task card: its text, its read card.
    assert child_text(turn, "call_task_a") == "Let me check.The notes say: ship on Friday."
    kinds = [u.WhichOneof("message") for u in task_deltas(turn, "call_task_a")]
    assert "tool_call_started" in kinds and "tool_call_completed" in kinds
    # Its exec went over the parent's channel and its result came back to it.
    [read] = [e for e in turn.execs if e.HasField("read_args")]
    assert read.read_args.path.endswith("notes.txt")
    assert "ship on Friday" in last_message(llm.requests[CHILD][1])
    # The completed card and the parent model's one result.
    agent_id = client_id_of(child_id)
    task = completed_task(turn, "call_task_a")
    steps = task.result.success.conversation_steps
    assert [s.assistant_message.text for s in steps] == ["The notes say: ship on Friday."]
    assert task.result.success.agent_id == agent_id
    assert task.result.success.duration_ms >= 0
    result = last_message(llm.requests[PARENT][1])
    assert "This is the output of the subagent" in result
    assert "The notes say: ship on Friday." in result and agent_id in result
    assert llm.calls == [PARENT, CHILD, CHILD, PARENT]
    # The child is a conversation of its own; the parent's history has one result.
    assert child is not None and parent is not None
    assert len(child.state.messages) == 4  # prompt, read call, its result, answer
    results = [m for m in parent.state.messages if getattr(m, "tool_call_id", "") == "call_task_a"]
    assert len(results) == 1
    # Its requests extend their own bytes and never carry the parent's history.
    first, second = (message_bytes(q) for q in llm.requests[CHILD])
    assert second[: len(first)] == first
    assert all(PARENT not in str(q) for q in llm.requests[CHILD])
    # The parent's last checkpoint carries the child's own.
    kept = turn.checkpoints[-1].subagent_states[agent_id]
    assert kept.HasField("conversation_state") and kept.conversation_state.turns
