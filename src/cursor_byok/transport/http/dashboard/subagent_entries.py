"""Subagents on a conversation's timeline: each child conversation where
the Task call that started it is (right after the answer that made the
call), with its kind, model and state and a link to its own timeline; and
on a child's timeline, whose it is.

Every lookup is by key, never a scan: a server-run child's key is made
from its parent's and the call's id (`subagent_launch.child_conversation_id`);
a client-run child is found through the link its first run recorded
(`store.subagent_links`). A child's figures come from the first two
messages of its timeline and their model calls (`Store.timeline_window`),
so a long child costs no more than a short one. Runs in the page's worker
thread."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape
from urllib.parse import quote

from cursor_byok.llm.types import AssistantMessage, Message, ToolCall
from cursor_byok.store.base import Store, User
from cursor_byok.store.owners import client_id_of
from cursor_byok.store.subagent_links import linked_child, linked_parent
from cursor_byok.transport.sessions.subagent_launch import (
    CHILD_MARK,
    DIGEST_CHARS,
    child_conversation_id,
    parent_of,
)

TASK = "Task"


def _task_calls(messages: Sequence[Message], start: int) -> Iterator[tuple[int, ToolCall]]:
    """Each Task call of the window, with the index of the answer that made it."""
    for index, message in enumerate(messages, start):
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCall) and block.name == TASK:
                    yield index, block


def _link(viewer: User, key: str) -> str:
    ident = key if viewer.is_admin else client_id_of(key)
    return f'<a href="/ui/conversations/{quote(ident, safe="")}">{escape(ident)}</a>'


def _child(store: Store, viewer: User, key: str, call: ToolCall) -> str | None:
    """The entry of the call's child, or None when no child is stored."""
    for child in (child_conversation_id(key, call.id), linked_child(store, key, call.id)):
        if child is None:
            continue
        window = store.timeline_window(child, 0, 2)
        if window is None:
            continue
        models = [c.model for c in window.calls]
        models += [m.model for m in window.messages if isinstance(m, AssistantMessage)]
        argument = call.arguments.get("model")
        model = models[0] if models else (argument if isinstance(argument, str) else "")
        kind = call.arguments.get("subagent_type")
        kind_name = kind if isinstance(kind, str) and kind else "generalPurpose"
        count = window.message_count
        return (
            f"<p class=meta>Subagent {_link(viewer, child)} ({escape(kind_name)}, "
            f"model {escape(model or 'unknown')}, {escape(window.status)}, {count} "
            f"message{'' if count == 1 else 's'}), started by Task call {escape(call.id)}.</p>"
        )
    return None


def subagent_entries(
    store: Store, viewer: User, key: str, messages: Sequence[Message], start: int
) -> Iterator[tuple[int, str]]:
    """(history index, HTML) of the subagents the window's Task calls
    started, and, on a child's first page, its parent."""
    for index, call in _task_calls(messages, start):
        html = _child(store, viewer, key, call)
        if html is not None:
            yield index + 1, html
    if start != 0:
        return
    linked = linked_parent(store, key)
    if linked is not None:
        parent, call_id = linked
        yield (
            0,
            (
                f"<p class=meta>A subagent of {_link(viewer, parent)}, "
                f"started by its Task call {escape(call_id)}.</p>"
            ),
        )
        return
    parent_key = parent_of(key)
    digest = client_id_of(key).rpartition(CHILD_MARK)[2]
    if parent_key is not None and len(digest) == DIGEST_CHARS:  # (a branch has 8)
        yield 0, f"<p class=meta>A subagent of {_link(viewer, parent_key)}.</p>"
