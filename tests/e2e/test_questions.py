"""Questions to the user through the real server, against the client that
plays the official CLI (official_cli.py) as a given build, in each codec:
the model's `AskQuestion` becomes the started card, the question query
(with the call's id), the completed card with the answer, and a tool result
the model reads in words; a skip, an answer given later (`async{}`, then
the completion action as a new run, taken once), and no answer at all
(withdrawn after the bounded wait) each reach the model. The Nov-2025 CLI,
which fails its whole run on a question, is never offered the tool nor sent
the query."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.cli.main import main
from cursor_byok.client.client import CODECS, CursorClient, cancel
from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.question_tool import question_args
from cursor_byok.transport.dialect.server_tool import QueryWaits, query_id
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import (
    NEWER,
    CliTurn,
    OfficialCli,
    User,
    choose,
    never,
    skip,
    user_message,
)
from tests.e2e.test_official_cli import answer, call, card_of, clean, rig, uses

FORM = call(
    "call_ask_1",
    "AskQuestion",
    title="Before I start",
    questions=[
        {
            "id": "db",
            "prompt": "Which database?",
            "options": [{"id": "pg", "label": "PostgreSQL"}, {"id": "lite", "label": "SQLite"}],
        },
        {
            "id": "os",
            "prompt": "Which systems must it run on?",
            "options": [
                {"id": "linux", "label": "Linux"},
                {"id": "mac", "label": "macOS"},
                {"id": "win", "label": "Windows"},
            ],
            "allow_multiple": True,
        },
        {"id": "name", "prompt": "What should the service be called?"},
        {
            "id": "style",
            "prompt": "Which log format?",
            "options": [{"id": "json", "label": "JSON"}, {"id": "text", "label": "Plain text"}],
        },
    ],
)
LATER = call(
    "call_ask_2",
    "AskQuestion",
    questions=[
        {
            "id": "db",
            "prompt": "Which database?",
            "options": [{"id": "pg", "label": "PostgreSQL"}, {"id": "lite", "label": "SQLite"}],
        }
    ],
    run_async=True,
)
ANSWERS = choose(db=["pg"], os=["linux", "mac"], name="ledger", style="logfmt, please")


def as_build(cli: OfficialCli, build: str, user: User = never) -> OfficialCli:
    """The client as `build` of the CLI, with `user` answering its queries."""
    client = cli.client
    headers = {"x-cursor-client-type": "cli", "x-cursor-client-version": build}
    cli.client = CursorClient(client.base_url, client.codec, headers=headers)
    cli.build, cli.user = build, user
    return cli


def offered(request: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in request["tools"]}


def last_message(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"][-1])


def question_order(turn: CliTurn) -> list[str]:
    return [
        kind
        for kind in turn.order
        if kind in ("tool_call_started", "interaction_query", "tool_call_completed")
    ]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_question_is_asked_answered_and_read_by_the_model(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, [uses(FORM), answer("PostgreSQL it is.")]) as r:
        as_build(r.cli, NEWER, ANSWERS)
        turn = await r.cli.run(user_message("set up the service", r.cli.context), "sonnet")
    clean(turn)
    assert "AskQuestion" in offered(r.request(0))
    # started -> query -> completed, the query naming the call, with a stable id.
    assert question_order(turn) == [
        "tool_call_started",
        "interaction_query",
        "tool_call_completed",
    ]
    [query] = turn.queries
    asked = query.ask_question_interaction_query
    assert asked.tool_call_id == "call_ask_1" and query.id == query_id("call_ask_1")
    assert [q.id for q in asked.args.questions] == ["db", "os", "name", "style"]
    assert asked.args.questions[1].allow_multiple and not asked.args.questions[0].allow_multiple
    assert asked.args.title == "Before I start" and not asked.args.questions[2].options
    completed = card_of(turn, "tool_call_completed").ask_question_tool_call
    assert [a.question_id for a in completed.result.success.answers] == [
        "db",
        "os",
        "name",
        "style",
    ]
    # The model reads each prompt and what was chosen or written, in the same turn.
    result = last_message(r.request(1))
    assert "Which database?" in result and "-> PostgreSQL" in result
    assert "-> Linux, macOS" in result
    assert '-> \\"ledger\\"' in result
    assert '-> \\"logfmt, please\\"' in result and "__freeform_other__" not in result
    assert turn.text.endswith("PostgreSQL it is.")


@pytest.mark.parametrize("codec", CODECS)
async def test_a_skipped_question_tells_the_model_the_user_skipped(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, [uses(FORM), answer("I'll assume SQLite.")]) as r:
        as_build(r.cli, NEWER, skip)
        turn = await r.cli.run(user_message("set up the service", r.cli.context), "sonnet")
    clean(turn)
    completed = card_of(turn, "tool_call_completed").ask_question_tool_call
    assert completed.result.rejected.reason == "Questions skipped by user"
    result = last_message(r.request(1))
    assert "The user skipped the questions (Questions skipped by user)" in result


@pytest.mark.parametrize("codec", CODECS)
async def test_an_unanswered_question_is_withdrawn_after_the_wait(
    tmp_path: Path, codec: str
) -> None:
    scripts = [uses(FORM), answer("No answer; assuming SQLite.")]
    async with rig(tmp_path, codec, scripts, query_waits=QueryWaits(question_s=1.2)) as r:
        as_build(r.cli, NEWER, never)
        turn = await r.cli.run(user_message("set up the service", r.cli.context), "sonnet")
    clean(turn)
    assert turn.heartbeats_waiting >= 1  # the stream is kept alive while nobody answers
    completed = card_of(turn, "tool_call_completed").ask_question_tool_call
    assert completed.result.rejected.reason == "no answer within 1 minutes"
    assert "No answer came within 1 minutes" in last_message(r.request(1))
    assert turn.text.endswith("assuming SQLite.")


@pytest.mark.parametrize("codec", CODECS)
async def test_an_answer_given_later_arrives_as_a_user_message_once(
    tmp_path: Path, codec: str
) -> None:
    scripts = [uses(LATER), answer("Going on meanwhile."), answer("PostgreSQL, noted.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, never)
        r.cli.later = choose(db=["pg"])
        first = await r.cli.run(user_message("set up the service", r.cli.context), "sonnet")
        [later] = r.cli.answer_later
        action = pb.ConversationAction(async_ask_question_completion_action=later)
        second = await r.cli.run(action, "sonnet")
        again = await r.cli.run(action, "sonnet")  # sent twice: taken once
    for turn in (first, second, again):
        clean(turn)
    completed = card_of(first, "tool_call_completed").ask_question_tool_call
    assert completed.result.HasField("async")
    assert "will answer later" in last_message(r.request(1))
    answered = last_message(r.request(2))
    assert '"role": "user"' in answered
    assert "Answers to the questions asked earlier" in answered
    assert "Which database?" in answered and "-> PostgreSQL" in answered
    assert second.text == "PostgreSQL, noted."
    assert len(r.llm.requests) == 3 and again.text == ""


@pytest.mark.parametrize("codec", CODECS)
async def test_the_nov_2025_cli_is_never_offered_nor_asked_a_question(
    tmp_path: Path, codec: str
) -> None:
    scripts = [uses(FORM), answer("Going on without asking.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, "cli-2025.11.25-d5b3271", ANSWERS)
        turn = await r.cli.run(user_message("set up the service", r.cli.context), "sonnet")
    clean(turn)  # a query sent to it would be a violation: its run fails
    assert turn.queries == []
    assert "AskQuestion" not in offered(r.request(0))
    assert "Unknown tool 'AskQuestion'" in last_message(r.request(1))


TO_ASK = call("call_mode_1", "SwitchMode", target_mode_id="ask", explanation="Only questions.")
EDIT = call("call_shell_1", "run_terminal_cmd", command="echo hello")


def mode_card(turn: CliTurn) -> pb.SwitchModeToolCall:
    return card_of(turn, "tool_call_completed").switch_mode_tool_call


@pytest.mark.parametrize("codec", CODECS)
async def test_an_approved_switch_changes_the_mode_and_what_the_model_may_do(
    tmp_path: Path, codec: str
) -> None:
    scripts = [uses(TO_ASK), uses(EDIT), answer("Read-only now."), answer("Asked.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, choose())
        turn = await r.cli.run(user_message("tidy up", r.cli.context), "sonnet")
        asked = user_message("and now?", r.cli.context)
        asked.user_message_action.user_message.mode = pb.AGENT_MODE_ASK
        after = await r.cli.run(asked, "sonnet")
    clean(turn)
    clean(after)
    assert "SwitchMode" in offered(r.request(0))
    [query] = turn.queries
    switch = query.switch_mode_request_query.args
    assert (switch.target_mode_id, switch.tool_call_id) == ("ask", "call_mode_1")
    assert switch.explanation == "Only questions."
    card = mode_card(turn)
    assert (card.result.success.from_mode_id, card.result.success.to_mode_id) == ("agent", "ask")
    assert "now in ask mode" in last_message(r.request(1))
    # The rest of the turn is in ask mode: a command is refused, never sent to the client.
    assert turn.execs == []
    assert "run_terminal_cmd is not available in ask mode" in last_message(r.request(2))
    assert turn.checkpoints[-1].mode == pb.AGENT_MODE_ASK
    # The next message in ask mode is offered only the tools that look and ask.
    tools = offered(r.request(3))
    assert {"read_file", "grep", "AskQuestion", "SwitchMode"} <= tools
    assert not tools & {"write_file", "edit_file", "run_terminal_cmd", "delete_file"}


@pytest.mark.parametrize("codec", CODECS)
async def test_a_rejected_switch_leaves_the_mode_as_it_was(tmp_path: Path, codec: str) -> None:
    scripts = [uses(TO_ASK), uses(EDIT), answer("Written.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, skip)
        turn = await r.cli.run(user_message("tidy up", r.cli.context), "sonnet")
    clean(turn)
    card = mode_card(turn)
    assert card.result.rejected.reason == "User rejected the mode switch"
    assert "still in agent mode" in last_message(r.request(1))
    assert [e.WhichOneof("message") for e in turn.execs] == ["shell_stream_args"]
    assert turn.checkpoints[-1].mode == pb.AGENT_MODE_AGENT


@pytest.mark.parametrize("codec", CODECS)
async def test_the_nov_2025_cli_is_never_offered_a_mode_switch(tmp_path: Path, codec: str) -> None:
    async with rig(tmp_path, codec, [answer("Hi.")]) as r:
        as_build(r.cli, "cli-2025.11.25-d5b3271", choose())
        turn = await r.cli.run(user_message("hi", r.cli.context), "sonnet")
    clean(turn)
    assert not offered(r.request(0)) & {"SwitchMode", "AskQuestion", "CreatePlan"}


PLAN = ToolCall(
    "call_plan_1",
    "CreatePlan",
    {
        "name": "Fix the parser",
        "overview": "One off-by-one.",
        "plan": "# Fix\n\n1. Edit parser.py.\n2. Run the tests.",
        "todos": [
            {"id": "edit", "content": "Edit parser.py"},
            {"id": "test", "content": "Run tests"},
        ],
    },
)


def plan_action(cli: OfficialCli) -> pb.ConversationAction:
    plan = pb.StartPlanAction(
        user_message=pb.UserMessage(text="plan the fix", message_id="p1"),
        request_context=cli.context,
    )
    return pb.ConversationAction(start_plan_action=plan)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_plan_is_shown_and_saved_by_a_client_that_takes_the_plan_query(
    tmp_path: Path, codec: str
) -> None:
    scripts = [uses(PLAN), answer("Plan ready."), answer("Editing.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, choose())
        turn = await r.cli.run(plan_action(r.cli), "sonnet")
        execute = pb.ConversationAction(execute_plan_action=pb.ExecutePlanAction())
        after = await r.cli.run(execute, "sonnet")
    clean(turn)
    clean(after)
    assert {"CreatePlan", "AskQuestion", "SwitchMode"} <= offered(r.request(0))
    assert "CreatePlan" not in offered(r.request(2))  # carried out in agent mode
    assert after.checkpoints[-1].mode == pb.AGENT_MODE_AGENT
    assert question_order(turn) == ["tool_call_started", "interaction_query", "tool_call_completed"]
    [query] = turn.queries
    asked = query.create_plan_request_query
    assert asked.tool_call_id == "call_plan_1" and asked.args.name == "Fix the parser"
    assert [t.id for t in asked.args.todos] == ["edit", "test"]
    card = card_of(turn, "tool_call_completed").create_plan_tool_call
    assert card.result.plan_uri == "file:///plan.md" and card.result.HasField("success")
    assert "saved as file:///plan.md" in last_message(r.request(1))
    assert turn.checkpoints[-1].mode == pb.AGENT_MODE_PLAN


@pytest.mark.parametrize("codec", CODECS)
async def test_the_nov_2025_cli_gets_the_plan_card_and_never_the_plan_query(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, [uses(PLAN), answer("Plan ready.")]) as r:
        as_build(r.cli, "cli-2025.11.25-d5b3271", choose())
        turn = await r.cli.run(plan_action(r.cli), "sonnet")
    clean(turn)  # a plan query sent to it would be a violation: its run fails
    assert turn.queries == []
    assert "CreatePlan" in offered(r.request(0))
    assert not offered(r.request(0)) & {"AskQuestion", "SwitchMode"}
    card = card_of(turn, "tool_call_completed").create_plan_tool_call
    assert card.args.plan.startswith("# Fix") and card.result.HasField("success")
    assert "The plan is shown to the user. Stop here" in last_message(r.request(1))


async def test_show_prints_the_questions_with_their_answers_and_mode_switches(
    tmp_path: Path,
) -> None:
    scripts = [uses(FORM), uses(TO_ASK), answer("Done.")]
    async with rig(tmp_path, "proto", scripts) as r:
        as_build(r.cli, NEWER, ANSWERS)
        clean(await r.cli.run(user_message("set up the service", r.cli.context), "sonnet"))
    out = io.StringIO()
    database = str(tmp_path / "db.sqlite3")
    assert main(["show", "conv-cli", "--database", database], out=out) == 0
    shown = out.getvalue()
    assert "tool       AskQuestion" in shown
    assert "- Which database?\n               -> PostgreSQL" in shown
    assert "-> Linux, macOS" in shown and '-> "ledger"' in shown
    assert "tool       SwitchMode" in shown
    assert "The user approved: the conversation is now in ask mode." in shown


@pytest.mark.parametrize("codec", CODECS)
async def test_an_answer_given_later_on_the_live_stream_is_taken_once(
    tmp_path: Path, codec: str
) -> None:
    done = pb.AsyncAskQuestionCompletionAction(
        original_tool_call_id="call_ask_2",
        original_args=question_args(LATER.arguments),
        result=pb.AskQuestionResult(
            success=pb.AskQuestionSuccess(
                answers=[pb.AskQuestionSuccess.Answer(question_id="db", selected_option_ids=["pg"])]
            )
        ),
    )
    action = pb.ConversationAction(async_ask_question_completion_action=done)
    typed = pb.AgentClientMessage(conversation_action=action)
    scripts = [uses(LATER), answer("PostgreSQL, noted.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, never)
        r.cli.later = choose(db=["pg"])
        turn = await r.cli.run(
            user_message("set up the service", r.cli.context), "sonnet", during=[typed]
        )
        again = await r.cli.run(action, "sonnet")  # the same answer as a run: not again
    clean(turn)
    clean(again)
    # It entered history once, after the call's result, and the model went on with it.
    answered = [json.dumps(m) for m in r.request(1)["messages"]]
    assert "asked earlier" in answered[-1] and "-> PostgreSQL" in answered[-1]
    assert sum("asked earlier" in m for m in answered) == 1
    assert len(r.llm.requests) == 2 and again.text == ""


@pytest.mark.parametrize("codec", CODECS)
async def test_a_cancel_while_a_question_waits_ends_the_wait_with_the_turn(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, [uses(FORM)]) as r:
        as_build(r.cli, NEWER, never)
        turn = await r.cli.run(
            user_message("set up the service", r.cli.context),
            "sonnet",
            during=[cancel()],
            during_after="query",
        )
        loaded = r.store.load("conv-cli")
    assert turn.violations == [] and len(turn.queries) == 1
    assert turn.error_details is not None
    assert turn.error_details.details.detail == "User aborted request"
    assert len(r.llm.requests) == 1  # no model call after: the wait ended with the turn
    assert loaded is not None and not loaded.state.waiting
