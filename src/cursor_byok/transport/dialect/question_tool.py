"""`AskQuestion`: the model asks the user, and reads the answers.

The server runs it (a `ServerTool`): the started card, then the client's
question form through an interaction query (`ask_question_interaction_query`
3, `tool_call_id` never empty: the Nov-2025 CLI throws on an empty one and
is never offered the tool anyway), then the completed card with the
client's answer, which the model reads in words (protocol/agent-features.md
§4). A question with options is single or multiple choice; one without is
answered in free text; the CLI adds its own "Other" row
(`__freeform_other__`), whose text comes back as `freeform_text`. The user
may skip (`rejected`), or, when the model asked for it (`run_async`), the
client answers `async{}` at once and sends the answers later as a new run's
`async_ask_question_completion_action`, which becomes the user's message
(`answered_later`). No answer within `QueryWaits.question_s` withdraws the
question: the model is told, the turn goes on.

The query's id is made from the tool call's id, so a question asked again
(after a restart, or on a stream that took the turn over) is asked under the
same id, and an answer to the first asking still finds it.
"""

from __future__ import annotations

from typing import Any

from cursor_byok.llm.types import JSONObject, ToolCall
from cursor_byok.transport.dialect.server_tool import (
    ServerOutcome,
    ServerTool,
    ToolContext,
    query_id,
)
from cursor_byok.transport.dialect.tool_base import ToolOutcome, cap, list_value, object_schema
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

OTHER = "__freeform_other__"
"""The option id of the row the CLI adds for a free-text answer."""

MAX_QUESTIONS = 10
MAX_OPTIONS = 20

SKIPPED = (
    "The user skipped the questions{reason}. Go on without the answers: make a sensible "
    "assumption and say which, or ask in your reply."
)
PENDING = (
    "The questions are shown to the user, who will answer later: the answers will arrive as "
    "a user message. Go on with what does not depend on them."
)
UNANSWERED = (
    "No answer came within {minutes} minutes, so the questions were withdrawn. Go on without "
    "the answers: make a sensible assumption and say which, or ask in your reply."
)


class QuestionError(ValueError):
    """Arguments that make no question form."""


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return value is True


def _option(number: int, entry: Any) -> pb.AskQuestionArgs.Option:
    """An option: an object with id and label, or just its label."""
    if isinstance(entry, dict):
        label = _text(entry.get("label")) or _text(entry.get("text"))
        return pb.AskQuestionArgs.Option(id=_text(entry.get("id")) or str(number), label=label)
    return pb.AskQuestionArgs.Option(id=str(number), label=_text(entry))


def question_args(arguments: JSONObject, strict: bool = True) -> pb.AskQuestionArgs:
    """The form to show; QuestionError naming what is wrong (`strict`),
    else what can be read of it (for a card while arguments stream)."""
    args = pb.AskQuestionArgs(title=_text(arguments.get("title")))
    args.run_async = _flag(arguments.get("run_async"))
    entries = list_value(arguments.get("questions"))
    if strict and not entries:
        raise QuestionError("`questions` is empty: give at least one question")
    if strict and len(entries) > MAX_QUESTIONS:
        raise QuestionError(f"ask at most {MAX_QUESTIONS} questions at once")
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            if strict:
                raise QuestionError(f"question {number} is not an object with id and prompt")
            continue
        prompt = _text(entry.get("prompt")) or _text(entry.get("question"))
        if strict and not prompt:
            raise QuestionError(f"question {number} has no prompt")
        options = [_option(n, o) for n, o in enumerate(list_value(entry.get("options")), 1)]
        if strict and len(options) > MAX_OPTIONS:
            raise QuestionError(f"question {number}: at most {MAX_OPTIONS} options")
        if strict and any(not option.label for option in options):
            raise QuestionError(f"question {number}: every option needs a label")
        args.questions.append(
            pb.AskQuestionArgs.Question(
                id=_text(entry.get("id")) or str(number),
                prompt=prompt,
                options=options,
                allow_multiple=_flag(entry.get("allow_multiple")),
            )
        )
    ids = [question.id for question in args.questions]
    if strict and len(set(ids)) != len(ids):
        raise QuestionError("two questions have the same id")
    return args


def answers_text(args: pb.AskQuestionArgs, success: pb.AskQuestionSuccess) -> str:
    """The answers as the model reads them: each prompt, then the chosen
    options' labels and any text the user wrote."""
    by_id = {answer.question_id: answer for answer in success.answers}
    lines = ["The user answered:"]
    for question in args.questions:
        answer = by_id.get(question.id)
        labels = {option.id: option.label for option in question.options}
        chosen: list[str] = []
        if answer is not None:
            for option_id in answer.selected_option_ids:
                if option_id == OTHER:
                    continue  # its text is `freeform_text`
                chosen.append(labels.get(option_id) or option_id)
            if answer.freeform_text.strip():
                chosen.append(f'"{answer.freeform_text.strip()}"')
        lines.append(f"- {question.prompt}")
        lines.append(f"  -> {', '.join(chosen) if chosen else '(no answer)'}")
    return cap("\n".join(lines))


def result_text(args: pb.AskQuestionArgs, result: pb.AskQuestionResult) -> ToolOutcome:
    """What the model reads for each way the client answers."""
    match result.WhichOneof("result"):
        case "success":
            return ToolOutcome(answers_text(args, result.success), False)
        case "async":
            return ToolOutcome(PENDING, False)
        case "rejected":
            reason = result.rejected.reason.strip()
            return ToolOutcome(SKIPPED.format(reason=f" ({reason})" if reason else ""), False)
        case "error":
            return ToolOutcome(
                f"The questions could not be shown: {result.error.error_message}", True
            )
        case _:
            return ToolOutcome(SKIPPED.format(reason=""), False)


ANSWERED_LATER = "Answers to the questions asked earlier"
SKIPPED_LATER = "I skipped the questions asked earlier"
"""How the user's message an answer given later becomes starts (`show` prints it whole)."""


def answered_later(action: pb.AsyncAskQuestionCompletionAction) -> str:
    """The user's message an answer given later becomes."""
    result = action.result
    args = action.original_args
    if result.WhichOneof("result") == "success":
        said = answers_text(args, result.success).removeprefix("The user answered:")
        return f"{ANSWERED_LATER} ({args.title or 'AskQuestion'}):{said}"
    reason = result.rejected.reason.strip() if result.HasField("rejected") else ""
    return SKIPPED_LATER + (f" ({reason})." if reason else ".")


class AskQuestion(ServerTool):
    name = "AskQuestion"
    queries = ("ask_question_interaction_query",)
    description = (
        "Ask the user one or more questions and wait for the answers, when you cannot go on "
        "well without them (a choice between approaches, a missing requirement). Prefer "
        "options the user can pick (allow_multiple for several); leave options out for a "
        "free-text answer (the user can always write their own answer too). Do not add an "
        "'Other' option. The user may skip. Set run_async to let the user answer later while "
        "you go on; the answers then come as a user message."
    )
    parameters = object_schema(
        {
            "title": {"type": "string", "description": "A short title for the questions."},
            "questions": {
                "type": "array",
                "description": "The questions, in the order shown.",
                "items": object_schema(
                    {
                        "id": {"type": "string", "description": "A short, unique id."},
                        "prompt": {"type": "string", "description": "The question."},
                        "options": {
                            "type": "array",
                            "description": "The choices; leave out for a free-text answer.",
                            "items": object_schema(
                                {"id": {"type": "string"}, "label": {"type": "string"}},
                                ["id", "label"],
                            ),
                        },
                        "allow_multiple": {
                            "type": "boolean",
                            "description": "true: the user may pick several options.",
                        },
                    },
                    ["id", "prompt"],
                ),
            },
            "run_async": {
                "type": "boolean",
                "description": "true: do not wait; the answers come later as a user message.",
            },
        },
        ["questions"],
    )

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        card = pb.AskQuestionToolCall(args=question_args(call.arguments, strict=False))
        if isinstance(result, pb.AskQuestionResult):
            card.result.CopyFrom(result)
        return pb.ToolCall(ask_question_tool_call=card, tool_call_id=call.id)

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        try:
            args = question_args(call.arguments)
        except QuestionError as error:
            return self.failed(call, str(error))
        query = pb.InteractionQuery(
            id=query_id(call.id),
            ask_question_interaction_query=pb.AskQuestionInteractionQuery(
                args=args, tool_call_id=call.id
            ),
        )
        wait_s = context.waits.question_s
        response = await context.ask(query, timeout_s=wait_s)
        if response is None or not response.HasField("ask_question_interaction_response"):
            minutes = max(1, round(wait_s / 60))
            reason = f"no answer within {minutes} minutes"
            result = pb.AskQuestionResult(rejected=pb.AskQuestionRejected(reason=reason))
            outcome = ToolOutcome(UNANSWERED.format(minutes=minutes), False)
        else:
            result = response.ask_question_interaction_response.result
            outcome = result_text(args, result)
        card = pb.AskQuestionToolCall(args=args, result=result)
        return ServerOutcome(
            pb.ToolCall(ask_question_tool_call=card, tool_call_id=call.id), outcome
        )

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        card = self.card(call)
        card.ask_question_tool_call.result.error.error_message = error
        return ServerOutcome(card, ToolOutcome(f"The questions were not asked: {error}", True))
