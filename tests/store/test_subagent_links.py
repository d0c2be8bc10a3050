"""The links from a parent's Task call to the conversation its client-run
subagent is (`store.subagent_links`, `sessions.child_links`), on a real
SQLite file: a subagent resumed by agent ID goes on in a conversation that
already rests with an answer, and that old answer is never taken as the new
call's, whatever point a crash stops at."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import Message, TextContent
from cursor_byok.loop.state import ConversationState, Status
from cursor_byok.runtime.child_status import child_now
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.subagent_links import LinkedChild, link_child, linked
from cursor_byok.transport.sessions.child_links import ChildLinks
from tests.factories import assistant, user

PARENT, CHILD = "conv-parent", "agent-1"


def commit(store: SQLiteStore, version: int, messages: tuple[Message, ...]) -> None:
    state = replace(
        ConversationState(CHILD, version),
        messages=messages,
        messages_hash=messages_hash(messages),
        status=Status.FINAL,
    )
    store.commit_input(f"in-{version}", version - 1, state, None)


FIRST = (user("look at a"), assistant(TextContent("a holds 1.")))
SECOND = (*FIRST, user("and b?"), assistant(TextContent("b holds 2.")))


async def test_a_resumed_child_s_old_answer_is_not_the_new_call_s(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3")
    try:
        commit(store, 1, FIRST)  # the first Task call's subagent, at rest
        link_child(store, PARENT, "t1", CHILD)
        link_child(store, PARENT, "t2", CHILD)  # resumed by a second Task call
        assert linked(store, PARENT, "t2") == LinkedChild(CHILD, 2)
        # Linked, its new input not yet committed (a crash here): nothing of t2's.
        now = child_now(store, CHILD, after=2)
        assert now is not None and now.message_count == 0 and now.answer == ""
        links = ChildLinks(store)
        child = await links.child(PARENT, "t2")
        assert child is not None
        waited = await links.rested(child, timeout_s=0.3)
        assert waited is not None and waited.message_count == 0  # never started: ask again
        # Once the resumed turn is committed, its answer is t2's.
        commit(store, 2, SECOND)
        done = await links.rested(child, timeout_s=1.0)
        assert done is not None and done.answer == "b holds 2."
    finally:
        store.close()
