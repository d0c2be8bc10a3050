"""Subagents the server runs itself, through the real server over a real
socket, against a client that plays a CLI new enough for the Task card: the
child is a conversation of its own (its own history and model requests,
never the parent's), its updates reach the client on the Task card, its
execs go over the parent's exec channel, and its answer reaches the parent
model once, in the documented form."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from cursor_byok.cli.conversations_command import show_conversation
from cursor_byok.client.client import cancel
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent
from cursor_byok.loop.state import IDLE_STATUSES, Status
from cursor_byok.store.base import Loaded
from cursor_byok.store.owners import client_id_of
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.subagent_types import EXPLORE_TOOLS
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.memory_budget import SESSION_BYTES
from cursor_byok.transport.sessions.subagent_launch import child_conversation_id
from tests.e2e.official_cli import resume, user_message
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
from tests.factories import assistant, error_event, stream_of

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


def three_tasks() -> list[ResponseEvent]:
    calls = [
        call(f"call_task_{n}", "Task", description=f"Part {n}", prompt=f"CHILD-{n}: look at {n}")
        for n in (1, 2, 3)
    ]
    return stream_of(assistant(TextContent("Splitting it up."), *calls), chunk=4)


async def test_three_task_calls_of_one_response_run_at_once_each_on_its_card(
    tmp_path: Path,
) -> None:
    children = [f"CHILD-{n}" for n in (1, 2, 3)]
    scripts = {key: [answer(f"Part {key[-1]} is fine.")] for key in children}
    llm = RoutedLLM(
        {**scripts, "check all three": [three_tasks(), answer("All fine.")]},
        together=frozenset(children),  # the first to call waits for the other two
    )
    async with subagent_rig(tmp_path, llm) as r:
        turn = await r.cli.run(user_message("check all three", r.cli.context), "sonnet")
    clean(turn)
    assert turn.text.endswith("All fine.")
    for n in (1, 2, 3):
        call_id = f"call_task_{n}"
        assert child_text(turn, call_id) == f"Part {n} is fine."
        task = completed_task(turn, call_id)
        steps = task.result.success.conversation_steps
        assert [s.assistant_message.text for s in steps] == [f"Part {n} is fine."]
        # Each card's updates follow its started card and precede its completed one.
        started = turn.cards.index(next(c for c in turn.cards if is_card(c, "started", call_id)))
        ended = turn.cards.index(next(c for c in turn.cards if is_card(c, "completed", call_id)))
        deltas = [
            i
            for i, c in enumerate(turn.cards)
            if c.WhichOneof("message") == "tool_call_delta" and c.tool_call_delta.call_id == call_id
        ]
        assert deltas and started < min(deltas) and max(deltas) < ended
    # The parent model read the three results in its calls' order, once each.
    results = [
        m for m in llm.requests["check all three"][1]["messages"] if m["role"] == "toolResult"
    ]
    assert [m["toolCallId"] for m in results] == ["call_task_1", "call_task_2", "call_task_3"]
    assert all(
        f"Part {n} is fine." in json.dumps(m) for n, m in zip((1, 2, 3), results, strict=True)
    )


def is_card(card: pb.InteractionUpdate, kind: str, call_id: str) -> bool:
    field = f"tool_call_{kind}"
    named: str = getattr(card, field).call_id
    return card.WhichOneof("message") == field and named == call_id


async def test_a_cancel_of_the_parent_stops_its_child_and_the_childs_model_call(
    tmp_path: Path,
) -> None:
    llm = RoutedLLM(
        {
            CHILD: [uses(call("call_read", "read_file", path="notes.txt")), answer("never")],
            PARENT: [uses(TASK)],
        },
    )
    llm.gates[CHILD], llm.free_calls[CHILD] = asyncio.Event(), 1  # its second call waits
    async with subagent_rig(tmp_path, llm) as r:
        (r.cli.workspace / "notes.txt").write_text("ship on Friday\n")
        turn = await r.cli.run(
            user_message(PARENT, r.cli.context), "sonnet", during=[cancel()], during_after="exec"
        )
        child_id = child_conversation_id("conv-cli", "call_task_a")
        child = await settled(r.store, child_id)
        parent = r.store.load("conv-cli")
    assert turn.error is not None  # the turn ended canceled
    assert child.state.status is Status.CANCELED
    assert llm.stopped == [CHILD]  # its model call was closed, not left waiting
    assert parent is not None and parent.state.status is Status.CANCELED


async def settled(store: SQLiteStore, conversation_id: str) -> Loaded:
    """The conversation once it is idle (a cancel lands a moment after the stream ends)."""
    for _ in range(100):
        loaded = store.load(conversation_id)
        if loaded is not None and loaded.state.status in IDLE_STATUSES:
            return loaded
        await asyncio.sleep(0.05)
    raise AssertionError(f"{conversation_id} never settled")


async def test_a_child_that_fails_gives_the_parent_an_error_result_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    llm = RoutedLLM(
        {
            CHILD: [[error_event("upstream 500")]],
            PARENT: [uses(TASK), answer("The subagent failed; I will read it myself.")],
        }
    )
    async with subagent_rig(tmp_path, llm) as r:
        turn = await r.cli.run(user_message(PARENT, r.cli.context), "sonnet")
    clean(turn)
    task = completed_task(turn, "call_task_a")
    assert "upstream 500" in task.result.error.error
    result = last_message(llm.requests[PARENT][1])
    assert "Error: " in result and "upstream 500" in result
    assert turn.text.endswith("I will read it myself.")


async def test_resume_by_agent_id_continues_the_child_with_what_it_knows(tmp_path: Path) -> None:
    agent_id = client_id_of(child_conversation_id("conv-cli", "call_task_a"))
    again = call("call_task_b", "Task", description="More", prompt="and the date?", resume=agent_id)
    llm = RoutedLLM(
        {
            CHILD: [answer("Ship on Friday."), answer("The 13th.")],
            PARENT: [uses(TASK), answer("Friday."), uses(again), answer("Friday the 13th.")],
        }
    )
    async with subagent_rig(tmp_path, llm) as r:
        first = await r.cli.run(user_message(PARENT, r.cli.context), "sonnet")
        second = await r.cli.run(user_message("which date?", r.cli.context), "sonnet")
        child = r.store.load(child_conversation_id("conv-cli", "call_task_a"))
    clean(first)
    clean(second)
    assert child_text(second, "call_task_b") == "The 13th."
    assert completed_task(second, "call_task_b").result.success.agent_id == agent_id
    # The child's second request extends its first conversation, byte for byte.
    earlier, later = (message_bytes(q) for q in llm.requests[CHILD])
    assert later[: len(earlier)] == earlier and "and the date?" in str(later[-1])
    assert child is not None and len(child.state.messages) == 4
    assert "The 13th." in last_message(llm.requests[PARENT][3])


async def test_a_background_child_answers_at_once_and_its_end_reaches_the_parent_once(
    tmp_path: Path,
) -> None:
    behind = call(
        "call_task_bg", "Task", description="Slow job", prompt=CHILD, run_in_background=True
    )
    llm = RoutedLLM(
        {
            CHILD: [answer("The slow job is done.")],
            PARENT: [uses(behind), answer("Started it."), answer("Noted: it is done.")],
        }
    )
    llm.gates[CHILD] = release = asyncio.Event()  # the child answers after the parent's turn
    async with subagent_rig(tmp_path, llm) as r:
        turn = await r.cli.run(user_message(PARENT, r.cli.context), "sonnet")
        # The parent's turn ended while its child was still held: it did not wait.
        assert sorted(llm.calls) == sorted([PARENT, CHILD, PARENT])
        assert await r.running_gauge() == 1.0  # nobody waits for it, but it is counted
        release.set()
        parent = await settled_after(r.store, "conv-cli", messages=6)
        assert await r.running_gauge() == 0.0
    clean(turn)
    task = completed_task(turn, "call_task_bg")
    assert task.result.success.is_background
    assert "running in the background" in last_message(llm.requests[PARENT][1])
    assert turn.text.endswith("Started it.")
    # The child's end came to the parent as a message of its own, once.
    delivered = last_message(llm.requests[PARENT][2])
    assert '"role": "user"' in delivered and "has finished" in delivered
    assert "The slow job is done." in delivered
    ends = [m for m in parent.state.messages if "has finished" in str(m)]
    assert len(ends) == 1 and len(llm.requests[PARENT]) == 3


async def settled_after(store: SQLiteStore, conversation_id: str, messages: int) -> Loaded:
    """The conversation once it holds `messages` messages and is idle."""
    for _ in range(200):
        loaded = store.load(conversation_id)
        grown = loaded is not None and len(loaded.state.messages) >= messages
        if grown and loaded is not None and loaded.state.status in IDLE_STATUSES:
            return loaded
        await asyncio.sleep(0.05)
    raise AssertionError(f"{conversation_id} never reached {messages} messages")


async def test_the_user_stops_one_child_and_the_parents_turn_goes_on(tmp_path: Path) -> None:
    calls = [
        call("call_task_1", "Task", description="Slow", prompt="CHILD-1: think long"),
        call("call_task_2", "Task", description="Read", prompt="CHILD-2: read notes.txt"),
    ]
    llm = RoutedLLM(
        {
            "CHILD-1": [answer("never")],
            "CHILD-2": [uses(call("call_read", "read_file", path="notes.txt")), answer("Friday.")],
            PARENT: [
                stream_of(assistant(TextContent("Two at once."), *calls), chunk=4),
                answer("One was stopped; the other says Friday."),
            ],
        }
    )
    llm.gates["CHILD-1"] = asyncio.Event()  # its model call never answers
    slow = client_id_of(child_conversation_id("conv-cli", "call_task_1"))
    stop = pb.AgentClientMessage(
        conversation_action=pb.ConversationAction(
            cancel_subagent_action=pb.CancelSubagentAction(subagent_id=slow)
        )
    )
    async with subagent_rig(tmp_path, llm) as r:
        (r.cli.workspace / "notes.txt").write_text("ship on Friday\n")
        turn = await r.cli.run(
            user_message(PARENT, r.cli.context), "sonnet", during=[stop], during_after="exec"
        )
        child = await settled(r.store, child_conversation_id("conv-cli", "call_task_1"))
    clean(turn)
    assert llm.stopped == ["CHILD-1"]  # its model call was closed
    assert child.state.status is Status.CANCELED
    assert "canceled" in completed_task(turn, "call_task_1").result.error.error
    assert completed_task(turn, "call_task_2").result.success.agent_id
    results = last_message(llm.requests[PARENT][1])
    assert "Friday." in results
    assert turn.text.endswith("the other says Friday.")


async def test_show_puts_a_server_run_child_under_its_task_call_with_its_state(
    tmp_path: Path,
) -> None:
    llm = RoutedLLM({CHILD: [answer("Ship on Friday.")], PARENT: [uses(TASK), answer("Friday.")]})
    async with subagent_rig(tmp_path, llm) as r:
        clean(await r.cli.run(user_message(PARENT, r.cli.context), "sonnet"))
    out = io.StringIO()
    assert show_conversation(tmp_path / "db.sqlite3", "conv-cli", None, False, out) == 0
    lines = out.getvalue().splitlines()
    agent_id = client_id_of(child_conversation_id("conv-cli", "call_task_a"))
    [at] = [i for i, line in enumerate(lines) if f"subagent {agent_id} (final)" in line]
    assert "2 messages" in lines[at] and "Task" in lines[at - 1]
    assert lines[at + 1].startswith("        ") and "CHILD-A" in lines[at + 1]
    assert lines[at + 2].startswith("        ") and "Ship on Friday." in lines[at + 2]


async def test_the_request_memory_budget_counts_the_children_a_response_starts(
    tmp_path: Path,
) -> None:
    scripts = {f"CHILD-{n}": [answer(f"Part {n} is fine.")] for n in (1, 2, 3)}
    llm = RoutedLLM({**scripts, "check all three": [three_tasks(), answer("All fine.")]})
    llm.gates["CHILD-1"] = llm.gates["CHILD-2"] = release = asyncio.Event()
    # Room for two children's sessions per request, not three.
    async with subagent_rig(tmp_path, llm, request_memory_bytes=2 * SESSION_BYTES + 1000) as r:
        asked = asyncio.ensure_future(
            r.cli.run(user_message("check all three", r.cli.context), "sonnet")
        )
        for _ in range(100):
            if "CHILD-1" in llm.calls and "CHILD-2" in llm.calls:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        assert "CHILD-3" not in llm.calls  # no room for a third while two run
        assert await r.running_gauge() == 2.0
        release.set()
        turn = await asyncio.wait_for(asked, 30)
    clean(turn)
    # The third started when its own call came, once the first two had ended.
    assert llm.calls.index("CHILD-3") > max(llm.calls.index(f"CHILD-{n}") for n in (1, 2))
    for n in (1, 2, 3):
        assert child_text(turn, f"call_task_{n}") == f"Part {n} is fine."
    assert turn.text.endswith("All fine.")


def offered(request: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in request["tools"]}


async def test_a_child_gets_no_task_and_no_question_and_an_explorer_only_looks(
    tmp_path: Path,
) -> None:
    general = call("call_task_g", "Task", description="Do", prompt="CHILD-G: do it")
    explore = call(
        "call_task_e", "Task", description="Look", prompt="CHILD-E: look", subagent_type="explore"
    )
    llm = RoutedLLM(
        {
            "CHILD-G": [answer("Done.")],
            "CHILD-E": [answer("Seen.")],
            PARENT: [stream_of(assistant(general, explore), chunk=4), answer("Both back.")],
        }
    )
    async with subagent_rig(tmp_path, llm) as r:
        clean(await r.cli.run(user_message(PARENT, r.cli.context), "sonnet"))
    parents = offered(llm.requests[PARENT][0])
    assert {"Task", "AskQuestion"} <= parents
    general_tools = offered(llm.requests["CHILD-G"][0])
    assert "run_terminal_cmd" in general_tools and "edit_file" in general_tools
    assert not general_tools & {"Task", "AskQuestion", "SwitchMode", "CreatePlan"}
    assert offered(llm.requests["CHILD-E"][0]) == EXPLORE_TOOLS
    # Each is told what it is, on top of the parent's system prompt.
    system = llm.requests["CHILD-E"][0]["systemPrompt"]
    assert system.startswith(llm.requests[PARENT][0]["systemPrompt"]) and "subagent" in system


async def test_a_stream_that_takes_the_turn_over_finds_the_child_where_it_stands(
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
        lost = await r.cli.run(
            user_message(PARENT, r.cli.context), "sonnet", drop_after="exec_server_message"
        )
        resumed = await r.cli.run(resume(), "sonnet")
        child = r.store.load(child_conversation_id("conv-cli", "call_task_a"))
        parent = r.store.load("conv-cli")
    assert lost.dropped_stream and [e.WhichOneof("message") for e in lost.execs] == ["read_args"]
    clean(resumed)
    assert resumed.text.endswith("Friday it is.")
    # The child's read, lost with the old stream, is asked again on the new
    # one (a read may run twice); the child goes on from where it stood.
    [read] = [e for e in resumed.execs if e.HasField("read_args")]
    assert read.read_args.path.endswith("notes.txt")
    assert child_text(resumed, "call_task_a").endswith("The notes say: ship on Friday.")
    assert llm.calls == [PARENT, CHILD, CHILD, PARENT]
    assert child is not None and len(child.state.messages) == 4
    assert parent is not None
    results = [m for m in parent.state.messages if getattr(m, "tool_call_id", "") == "call_task_a"]
    assert len(results) == 1
