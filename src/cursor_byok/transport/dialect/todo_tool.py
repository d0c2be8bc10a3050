"""`TodoWrite`: the model keeps a to-do list, which Cursor shows as a card.

No exec exists for to-dos: the server writes the list itself (a
`ServerTool`), as the official server does (protocol/agent-features.md §2).
The arguments are read leniently (statuses as models write them, `merge`
true when absent); the rules of a write are `loop.todos`. The card shows the
whole list after the write (`result.success.todos`, which is what the CLI
draws); the model reads it as lines, with a nudge when nothing is in
progress and a reminder when finished items pile up. Checkpoints name each
item by blob id (checkpoints.py), as the clients expect.

There is no tool to read the list: the model reads it whole after every
write (and a summary keeps what is open), no current harness offers one,
and one more definition would ride on every request.
"""

from __future__ import annotations

from typing import Any

from cursor_byok.llm.types import JSONObject, ToolCall
from cursor_byok.loop.todos import (
    FINISHED,
    TodoChange,
    TodoError,
    TodoItem,
    TodoStatus,
    lines,
    parse_status,
    write,
)
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool, ToolContext
from cursor_byok.transport.dialect.tool_base import ToolOutcome, cap, list_value, object_schema
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

STATUS_PB = {
    TodoStatus.PENDING: pb.TODO_STATUS_PENDING,
    TodoStatus.IN_PROGRESS: pb.TODO_STATUS_IN_PROGRESS,
    TodoStatus.COMPLETED: pb.TODO_STATUS_COMPLETED,
    TodoStatus.CANCELLED: pb.TODO_STATUS_CANCELLED,
}

CLEANUP_AFTER = 20
"""Finished items past which the model is reminded to clear them out."""

UPDATED = "The to-do list was updated."
NOTHING_IN_PROGRESS = (
    "Some items are pending but none is in progress: mark the one you work on next as "
    "in_progress before you start it."
)
CLEANUP = (
    f"More than {CLEANUP_AFTER} items are completed or cancelled: when you next write the "
    "list, write it with merge=false and only the items still relevant."
)


def item_to_pb(item: TodoItem) -> pb.TodoItem:
    return pb.TodoItem(
        id=item.id,
        content=item.content,
        status=STATUS_PB[item.status],
        created_at=item.created_at,
        updated_at=item.updated_at,
        dependencies=item.dependencies,
    )


def model_text(todos: tuple[TodoItem, ...]) -> str:
    """What the model reads after a write: the list as it now is."""
    parts = [UPDATED]
    statuses = [item.status for item in todos]
    if TodoStatus.PENDING in statuses and TodoStatus.IN_PROGRESS not in statuses:
        parts.append(NOTHING_IN_PROGRESS)
    if sum(status in FINISHED for status in statuses) > CLEANUP_AFTER:
        parts.append(CLEANUP)
    parts.append("Current to-dos:\n" + lines(todos) if todos else "The list is empty.")
    return cap("\n\n".join(parts))


def _merge(arguments: JSONObject) -> bool:
    flag = arguments.get("merge", True)
    if isinstance(flag, str):
        return flag.strip().lower() not in ("false", "no", "0")
    return flag is not False


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def changes(arguments: JSONObject) -> list[TodoChange]:
    """The write's items; TodoError naming the first one that cannot be read."""
    if "todos" not in arguments:
        raise TodoError("`todos` is missing: give the list of to-dos to write")
    found: list[TodoChange] = []
    for number, entry in enumerate(list_value(arguments.get("todos")), 1):
        if not isinstance(entry, dict):
            raise TodoError(f"to-do {number} is not an object with id, content and status")
        status = None
        if (word := _text(entry.get("status"))) is not None:
            status = parse_status(word)
            if status is None:
                allowed = ", ".join(s.value for s in TodoStatus)
                raise TodoError(f"to-do {number}: status {word!r} is none of {allowed}")
        found.append(TodoChange(_text(entry.get("id")) or "", _text(entry.get("content")), status))
    return found


class TodoWrite(ServerTool):
    name = "TodoWrite"
    description = (
        "Keep a to-do list for the current task and show it to the user. Use it for work of "
        "several steps: write the steps as to-dos, mark one in_progress when you start it and "
        "completed as soon as it is done (cancelled when it no longer applies). With merge=true "
        "(the default) the items update those of the same id and new ids are added; with "
        "merge=false they replace the whole list. A new item needs its content; an existing "
        "one keeps the content you leave out. The result is the whole list."
    )
    parameters = object_schema(
        {
            "todos": {
                "type": "array",
                "description": "The to-dos to write.",
                "items": object_schema(
                    {
                        "id": {"type": "string", "description": "A short, stable id."},
                        "content": {"type": "string", "description": "What is to be done."},
                        "status": {
                            "type": "string",
                            "enum": [status.value for status in TodoStatus],
                        },
                    },
                    ["id", "status"],
                ),
            },
            "merge": {
                "type": "boolean",
                "description": "true: update by id and add; false: replace the list.",
            },
        },
        ["todos"],
    )

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        """The call as written (statuses read leniently, unknown ones left out)."""
        del result
        args = pb.UpdateTodosArgs(merge=_merge(call.arguments))
        for entry in list_value(call.arguments.get("todos")):
            if isinstance(entry, dict):
                word = _text(entry.get("status"))
                status = parse_status(word) if word is not None else None
                args.todos.append(
                    pb.TodoItem(
                        id=_text(entry.get("id")) or "",
                        content=_text(entry.get("content")) or "",
                        status=STATUS_PB[status]
                        if status is not None
                        else pb.TODO_STATUS_UNSPECIFIED,
                    )
                )
        card = pb.UpdateTodosToolCall(args=args)
        return pb.ToolCall(update_todos_tool_call=card, tool_call_id=call.id)

    def partial_card(self, call: ToolCall) -> pb.ToolCall | None:
        """While the arguments stream: the items written so far."""
        card = self.card(call)
        return card if card.update_todos_tool_call.args.todos else None

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        merge = _merge(call.arguments)
        try:
            written = changes(call.arguments)
            todos = write(context.state.todos, written, merge, context.now_ms())
        except TodoError as error:
            return self.failed(call, str(error))
        ids = {change.id for change in written}
        args = pb.UpdateTodosArgs(
            todos=[item_to_pb(item) for item in todos if item.id in ids], merge=merge
        )
        success = pb.UpdateTodosSuccess(
            todos=[item_to_pb(item) for item in todos], total_count=len(todos), was_merge=merge
        )
        card = pb.UpdateTodosToolCall(args=args, result=pb.UpdateTodosResult(success=success))
        outcome = ToolOutcome(model_text(todos), False)
        completed = pb.ToolCall(update_todos_tool_call=card, tool_call_id=call.id)
        return ServerOutcome(completed, outcome, todos)

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        """Nothing written: the card and the model say why."""
        card = self.card(call)
        card.update_todos_tool_call.result.error.error = error
        return ServerOutcome(card, ToolOutcome(f"The to-do list was not changed: {error}", True))
