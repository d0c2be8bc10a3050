"""The checkpoints a real turn sends carry what the official server puts
there beside the turns: `plan`, the blob id of the conversation's plan (a
`ConversationPlan` stored in the client's KV store first), and
`completed_ask_question_tool_call_ids`, the questions that have their
answer. Decoded as the client keeps them, and carried on by the next run
from the checkpoint the client sends back."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursor_byok.client.client import CODECS
from cursor_byok.transport.dialect.question_tool import question_args
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import NEWER, choose, never, user_message
from tests.e2e.test_official_cli import answer, clean, rig, uses
from tests.e2e.test_questions import ANSWERS, FORM, LATER, PLAN, as_build, plan_action


@pytest.mark.parametrize("codec", CODECS)
async def test_the_plan_is_named_in_every_checkpoint_after_it_is_shown(
    tmp_path: Path, codec: str
) -> None:
    scripts = [uses(PLAN), answer("Plan ready."), answer("Editing.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, choose())
        turn = await r.cli.run(plan_action(r.cli), "sonnet")
        execute = pb.ConversationAction(execute_plan_action=pb.ExecutePlanAction())
        after = await r.cli.run(execute, "sonnet")
        blobs = dict(r.cli.blobs)
    clean(turn)
    clean(after)
    named = turn.checkpoints[-1].plan
    assert len(named) == 32
    plan = pb.ConversationPlan.FromString(blobs[named])
    assert plan.plan == PLAN.arguments["plan"]
    # The next run starts from the client's checkpoint and names the same plan.
    assert after.checkpoints and all(c.plan == named for c in after.checkpoints)


@pytest.mark.parametrize("codec", CODECS)
async def test_answered_questions_are_listed_in_the_checkpoints(tmp_path: Path, codec: str) -> None:
    scripts = [uses(FORM), answer("PostgreSQL it is."), answer("Hello again.")]
    async with rig(tmp_path, codec, scripts) as r:
        as_build(r.cli, NEWER, ANSWERS)
        turn = await r.cli.run(user_message("set up the service", r.cli.context), "sonnet")
        after = await r.cli.run(user_message("thanks", r.cli.context), "sonnet")
    clean(turn)
    clean(after)
    assert list(turn.checkpoints[-1].completed_ask_question_tool_call_ids) == ["call_ask_1"]
    assert list(after.checkpoints[-1].completed_ask_question_tool_call_ids) == ["call_ask_1"]
    assert not turn.checkpoints[-1].plan  # no plan was shown


@pytest.mark.parametrize("codec", CODECS)
async def test_a_question_answered_later_is_listed_once_its_answer_arrives(
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
    clean(first)
    clean(second)
    assert list(first.checkpoints[-1].completed_ask_question_tool_call_ids) == []
    assert list(second.checkpoints[-1].completed_ask_question_tool_call_ids) == ["call_ask_2"]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_question_answered_later_on_the_live_stream_is_listed(
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
    clean(turn)
    assert list(turn.checkpoints[-1].completed_ask_question_tool_call_ids) == ["call_ask_2"]
