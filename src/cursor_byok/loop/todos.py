"""A conversation's to-do list: its items and the rules that change it.

The list is part of the committed state (`ConversationState.todos`): it
survives a restart and a compaction. The model changes it with one write
(the `TodoWrite` tool, which the server runs itself): a merge updates items
by id and adds new ones at the end; a replace makes the written items the
whole list. An item keeps the time it was created; the time it was last
written is the write's.

Pure: the time of a write comes in as an argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any


class TodoStatus(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


FINISHED = frozenset({TodoStatus.COMPLETED, TodoStatus.CANCELLED})

_STATUS_WORDS = {
    "pending": TodoStatus.PENDING,
    "todo": TodoStatus.PENDING,
    "open": TodoStatus.PENDING,
    "notstarted": TodoStatus.PENDING,
    "inprogress": TodoStatus.IN_PROGRESS,
    "active": TodoStatus.IN_PROGRESS,
    "doing": TodoStatus.IN_PROGRESS,
    "started": TodoStatus.IN_PROGRESS,
    "completed": TodoStatus.COMPLETED,
    "complete": TodoStatus.COMPLETED,
    "done": TodoStatus.COMPLETED,
    "finished": TodoStatus.COMPLETED,
    "cancelled": TodoStatus.CANCELLED,
    "canceled": TodoStatus.CANCELLED,
    "cancel": TodoStatus.CANCELLED,
    "skipped": TodoStatus.CANCELLED,
}


def parse_status(text: str) -> TodoStatus | None:
    """A status the way models write it: any case, `-`, `_` or spaces,
    Cursor's own enum names (`TODO_STATUS_IN_PROGRESS`), common synonyms.
    None for anything else."""
    word = text.strip().lower()
    word = word.removeprefix("todo_status_").removeprefix("todo-status-")
    for mark in ("_", "-", " "):
        word = word.replace(mark, "")
    return _STATUS_WORDS.get(word)


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One to-do; times are milliseconds since the epoch."""

    id: str
    content: str
    status: TodoStatus = TodoStatus.PENDING
    created_at: int = 0
    updated_at: int = 0
    dependencies: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TodoChange:
    """One written item: `content` or `status` None keeps the item's own
    (a new item needs content; its status is then pending)."""

    id: str
    content: str | None = None
    status: TodoStatus | None = None


class TodoError(ValueError):
    """A write that cannot be applied; the message says why, for the model."""


def write(
    current: tuple[TodoItem, ...], changes: Iterable[TodoChange], merge: bool, now_ms: int
) -> tuple[TodoItem, ...]:
    """The list after a write. Merge: each change updates the item of its
    id, or adds one at the end. Replace: the written items are the list,
    each keeping the creation time of an item of its id that was there.
    An item written twice takes both changes, in order."""
    before = {item.id: item for item in current}
    items: dict[str, TodoItem] = dict(before) if merge else {}
    for change in changes:
        if not change.id:
            raise TodoError("every to-do needs a non-empty id")
        found = items.get(change.id)
        if found is None:
            if not change.content:
                raise TodoError(f"the new to-do {change.id!r} needs its content")
            created = before[change.id].created_at if change.id in before else now_ms
            found = TodoItem(change.id, change.content, created_at=created)
        items[change.id] = replace(
            found,
            content=change.content or found.content,
            status=change.status or found.status,
            updated_at=now_ms,
        )
    return tuple(items.values())


def unfinished(todos: tuple[TodoItem, ...]) -> tuple[TodoItem, ...]:
    return tuple(item for item in todos if item.status not in FINISHED)


def lines(todos: Iterable[TodoItem]) -> str:
    """The list as the model reads it, one item a line."""
    return "\n".join(
        f"- **{item.status.value.upper()}**: {item.content} (id: {item.id})" for item in todos
    )


# -- JSON, for the stored state -----------------------------------------------------------


def todo_to_json(item: TodoItem) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": item.id,
        "content": item.content,
        "status": item.status.value,
        "createdAt": item.created_at,
        "updatedAt": item.updated_at,
    }
    if item.dependencies:
        doc["dependencies"] = list(item.dependencies)
    return doc


def todo_from_json(doc: Mapping[str, Any]) -> TodoItem:
    """KeyError or ValueError for a document that is no to-do."""
    return TodoItem(
        id=str(doc["id"]),
        content=str(doc["content"]),
        status=TodoStatus(doc["status"]),
        created_at=int(doc["createdAt"]),
        updated_at=int(doc["updatedAt"]),
        dependencies=tuple(str(d) for d in doc.get("dependencies", ())),
    )
