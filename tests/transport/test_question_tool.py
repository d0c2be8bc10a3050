"""AskQuestion's reading of the model's arguments and its words for the
model: each way the client answers, and arguments that make no form."""

from __future__ import annotations

import pytest

from cursor_byok.llm.types import JSONValue, ToolCall
from cursor_byok.transport.dialect.question_tool import (
    OTHER,
    AskQuestion,
    QuestionError,
    answered_later,
    question_args,
    result_text,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

FORM: dict[str, JSONValue] = {
    "title": "Setup",
    "questions": [
        {"id": "db", "prompt": "Which database?", "options": ["PostgreSQL", "SQLite"]},
        {"id": "name", "prompt": "Its name?"},
    ],
}


def answers(*given: pb.AskQuestionSuccess.Answer) -> pb.AskQuestionResult:
    return pb.AskQuestionResult(success=pb.AskQuestionSuccess(answers=given))


def test_options_given_as_labels_get_ids_and_every_answer_reads_as_words() -> None:
    args = question_args(FORM)
    assert [(o.id, o.label) for o in args.questions[0].options] == [
        ("1", "PostgreSQL"),
        ("2", "SQLite"),
    ]
    said = result_text(
        args,
        answers(
            pb.AskQuestionSuccess.Answer(
                question_id="db", selected_option_ids=[OTHER], freeform_text=" MariaDB "
            )
        ),
    )
    assert not said.is_error
    assert said.text.splitlines() == [
        "The user answered:",
        "- Which database?",
        '  -> "MariaDB"',
        "- Its name?",
        "  -> (no answer)",
    ]


def test_a_skip_an_error_and_a_later_answer_each_say_what_happened() -> None:
    args = question_args(FORM)
    skipped = result_text(args, pb.AskQuestionResult(rejected=pb.AskQuestionRejected()))
    assert skipped.text.startswith("The user skipped the questions. Go on")
    failed = result_text(
        args, pb.AskQuestionResult(error=pb.AskQuestionError(error_message="no terminal"))
    )
    assert failed.is_error and "no terminal" in failed.text
    pending = pb.AskQuestionResult()
    getattr(pending, "async").SetInParent()
    assert "will answer later" in result_text(args, pending).text
    later = pb.AsyncAskQuestionCompletionAction(
        original_args=args,
        result=answers(pb.AskQuestionSuccess.Answer(question_id="db", selected_option_ids=["2"])),
    )
    assert "Which database?\n  -> SQLite" in answered_later(later)


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "`questions` is empty"),
        ({"questions": ["Which?"]}, "question 1 is not an object"),
        ({"questions": [{"id": "a"}]}, "question 1 has no prompt"),
        (
            {"questions": [{"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"}]},
            "two questions have the same id",
        ),
    ],
)
async def test_arguments_that_make_no_form_are_refused_with_the_reason(
    arguments: dict[str, JSONValue], error: str
) -> None:
    with pytest.raises(QuestionError, match=error):
        question_args(arguments)
    failed = AskQuestion().failed(ToolCall("c1", "AskQuestion", arguments), error)
    assert failed.outcome.is_error and error in failed.outcome.text
    assert failed.card.ask_question_tool_call.result.error.error_message == error
    assert failed.card.tool_call_id == "c1"
