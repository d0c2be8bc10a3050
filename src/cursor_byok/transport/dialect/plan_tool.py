"""`CreatePlan`: in plan mode the model writes its plan, and Cursor shows it.

The server runs it (a `ServerTool`), offered in plan mode only. Every
client in the table draws its card (`create_plan_tool_call` 17, in the
Nov-2025 CLI's list too), so every one gets it; only a client that answers
the plan query (`create_plan_request_query` 7: the newer CLI and IDE, which
write the plan to a file of the user's and return its `plan_uri`) is sent
it. The Nov-2025 CLI has no query 7 in its schema (one it cannot decode
fails its run), so it gets the card alone (protocol/agent-features.md §6):
the plan is in the conversation either way, which is what
`execute_plan_action` carries out. No answer to the query within
`QueryWaits.approval_s` ends as an error the model reads; the plan is still
shown.
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
from cursor_byok.transport.dialect.tool_base import ToolOutcome, object_schema
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

QUERY = "create_plan_request_query"
SHOWN = (
    "The plan is shown to the user{where}. Stop here: the user reviews it and starts carrying "
    "it out (or asks for changes)."
)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def plan_args(arguments: JSONObject) -> pb.CreatePlanArgs:
    args = pb.CreatePlanArgs(
        plan=_text(arguments.get("plan")),
        name=_text(arguments.get("name")),
        overview=_text(arguments.get("overview")),
    )
    todos = arguments.get("todos")
    for number, entry in enumerate(todos if isinstance(todos, list) else [], 1):
        if isinstance(entry, dict) and _text(entry.get("content")):
            item_id = _text(entry.get("id")) or str(number)
            content = _text(entry.get("content"))
            args.todos.append(
                pb.TodoItem(id=item_id, content=content, status=pb.TODO_STATUS_PENDING)
            )
    return args


class CreatePlan(ServerTool):
    name = "CreatePlan"
    description = (
        "Write the plan for the user's request, once you have studied the workspace: a "
        "markdown document with the files to change, what changes in each, and how to check "
        "the result, plus its steps as to-dos. The user reviews it before it is carried out."
    )
    parameters = object_schema(
        {
            "name": {"type": "string", "description": "A short name for the plan."},
            "overview": {"type": "string", "description": "One or two sentences."},
            "plan": {"type": "string", "description": "The plan, in markdown."},
            "todos": {
                "type": "array",
                "description": "The plan's steps, in order.",
                "items": object_schema(
                    {"id": {"type": "string"}, "content": {"type": "string"}},
                    ["id", "content"],
                ),
            },
        },
        ["name", "plan"],
    )

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        card = pb.CreatePlanToolCall(args=plan_args(call.arguments))
        if isinstance(result, pb.CreatePlanResult):
            card.result.CopyFrom(result)
        return pb.ToolCall(create_plan_tool_call=card, tool_call_id=call.id)

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        args = plan_args(call.arguments)
        if not args.plan:
            return self.failed(call, "`plan` is empty: write the plan in markdown")
        if not context.answers(QUERY):
            result = pb.CreatePlanResult(success=pb.CreatePlanSuccess())
            outcome = ToolOutcome(SHOWN.format(where=""), False)
            return ServerOutcome(self.card(call, result), outcome)
        query = pb.InteractionQuery(
            id=query_id(call.id),
            create_plan_request_query=pb.CreatePlanRequestQuery(args=args, tool_call_id=call.id),
        )
        wait_s = context.waits.approval_s
        response = await context.ask(query, timeout_s=wait_s)
        if response is None or not response.HasField("create_plan_request_response"):
            minutes = max(1, round(wait_s / 60))
            return self.failed(call, f"the client did not confirm it within {minutes} minutes")
        result = response.create_plan_request_response.result
        if result.HasField("error"):
            return self.failed(call, result.error.error or "the client could not save it")
        where = f" and saved as {result.plan_uri}" if result.plan_uri else ""
        return ServerOutcome(self.card(call, result), ToolOutcome(SHOWN.format(where=where), False))

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        card = self.card(call)
        card.create_plan_tool_call.result.error.error = error
        return ServerOutcome(card, ToolOutcome(f"The plan was not saved: {error}", True))
