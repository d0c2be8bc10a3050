"""`TodoWrite`'s side of the protocol: arguments read the way models write
them, the text the model reads (with its nudges), and the cards."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from cursor_byok.llm.types import JSONObject, JSONValue, ToolCall
from cursor_byok.loop.state import ConversationState
from cursor_byok.loop.todos import TodoChange, TodoError, TodoItem, TodoStatus
from cursor_byok.transport.dialect.server_tool import QueryWaits
from cursor_byok.transport.dialect.todo_tool import (
    CLEANUP,
    NOTHING_IN_PROGRESS,
    TodoWrite,
    changes,
    item_to_pb,
    model_text,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


@dataclass
class Context:
    """What `run` reads: the committed state and the clock."""

    state: ConversationState
    conversation_id: str = "c"
    sent: list[pb.AgentServerMessage] = field(default_factory=list)
    mode: str = "agent"
    waits: QueryWaits = field(default_factory=QueryWaits)

    def now_ms(self) -> int:
        return 1_000

    def answers(self, query: str) -> bool:
        return False

    def send(self, message: pb.AgentServerMessage) -> None:
        self.sent.append(message)

    def started(self) -> None:
        pass

    async def ask(
        self, query: pb.InteractionQuery, timeout_s: float
    ) -> pb.InteractionResponse | None:
        raise AssertionError("TodoWrite asks nothing")

    project_folder = ""

    async def write(self, path: str, text: str, timeout_s: float) -> pb.WriteResult | None:
        raise AssertionError("TodoWrite writes nothing")


def call(**arguments: JSONValue) -> ToolCall:
    return ToolCall("t1", "TodoWrite", arguments, raw_arguments=json.dumps(arguments))


def test_arguments_are_read_leniently() -> None:
    written = changes(
        {"todos": json.dumps([{"id": 7, "content": " Fix ", "status": "In Progress"}])}
    )
    assert written == [TodoChange("7", "Fix", TodoStatus.IN_PROGRESS)]
    assert changes({"todos": [{"id": "a"}]}) == [TodoChange("a")]


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ({}, "`todos` is missing"),
        ({"todos": ["not an object"]}, "to-do 1 is not an object"),
        ({"todos": [{"id": "a", "status": "someday"}]}, "status 'someday' is none of"),
    ],
)
def test_arguments_that_cannot_be_read_say_why(arguments: JSONObject, why: str) -> None:
    with pytest.raises(TodoError, match=why):
        changes(arguments)


async def test_merge_is_the_default_and_false_replaces() -> None:
    before = ConversationState("c", todos=(TodoItem("old", "Old", created_at=1, updated_at=1),))
    new = [{"id": "n", "content": "New", "status": "pending"}]
    merged = await TodoWrite().run(call(todos=new), Context(before))
    assert [t.id for t in merged.todos or ()] == ["old", "n"]
    assert merged.card.update_todos_tool_call.result.success.was_merge
    for flag in (False, "false"):
        replaced = await TodoWrite().run(call(todos=new, merge=flag), Context(before))
        assert [t.id for t in replaced.todos or ()] == ["n"]
        success = replaced.card.update_todos_tool_call.result.success
        assert not success.was_merge and success.total_count == 1


async def test_a_write_that_fails_keeps_the_list_and_shows_the_error() -> None:
    failed = await TodoWrite().run(
        call(todos=[{"id": "x", "status": "done"}]), Context(ConversationState("c"))
    )
    assert failed.todos is None and failed.outcome.is_error
    assert "needs its content" in failed.card.update_todos_tool_call.result.error.error


def items(*statuses: TodoStatus) -> tuple[TodoItem, ...]:
    return tuple(TodoItem(str(n), f"item {n}", s) for n, s in enumerate(statuses))


def test_the_model_is_nudged_when_nothing_is_in_progress() -> None:
    assert NOTHING_IN_PROGRESS in model_text(items(TodoStatus.PENDING, TodoStatus.COMPLETED))
    assert NOTHING_IN_PROGRESS not in model_text(items(TodoStatus.PENDING, TodoStatus.IN_PROGRESS))
    assert NOTHING_IN_PROGRESS not in model_text(items(TodoStatus.COMPLETED))


def test_the_model_is_reminded_to_clear_finished_items_past_twenty() -> None:
    assert CLEANUP not in model_text(items(*[TodoStatus.COMPLETED] * 20))
    text = model_text(items(*[TodoStatus.COMPLETED] * 15, *[TodoStatus.CANCELLED] * 6))
    assert CLEANUP in text and text.endswith("- **CANCELLED**: item 20 (id: 20)")
    assert model_text(()).endswith("The list is empty.")


def test_the_cards_show_the_call_as_written_and_grow_an_item_at_a_time() -> None:
    written = call(todos=[{"id": "a", "content": "A", "status": "done"}, {"id": "b"}])
    card = TodoWrite().card(written).update_todos_tool_call
    assert [(t.id, t.content, t.status) for t in card.args.todos] == [
        ("a", "A", pb.TODO_STATUS_COMPLETED),
        ("b", "", pb.TODO_STATUS_UNSPECIFIED),
    ]
    assert card.args.merge and not card.HasField("result")
    assert TodoWrite().partial_card(call(todos=[])) is None
    assert TodoWrite().card_kind() == "update_todos_tool_call"


def test_an_item_on_the_wire_keeps_every_field() -> None:
    item = TodoItem("a", "A", TodoStatus.CANCELLED, 5, 9, ("b",))
    assert item_to_pb(item) == pb.TodoItem(
        id="a",
        content="A",
        status=pb.TODO_STATUS_CANCELLED,
        created_at=5,
        updated_at=9,
        dependencies=["b"],
    )
