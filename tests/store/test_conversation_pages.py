"""Conversations a page at a time (the dashboard's list): newest first,
every conversation of the owners asked for exactly once however the pages
fall (ties on the update time included), and only those with a call to a
model when one is named. On every backend."""

from __future__ import annotations

import pytest

from cursor_byok.loop import CallLLM, transition
from cursor_byok.runtime.records import call_record
from cursor_byok.store import conversation_pages
from cursor_byok.store.base import ConversationSummary
from cursor_byok.store.owners import scoped
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.tokens import new_token
from tests.factories import fresh, start


def made(store: SQLStore, owner: int, n: int, model: str = "m") -> None:
    key = scoped(owner, f"conv-{n:03d}")
    step = transition(fresh(key), start("hi"))
    command = step.command
    assert isinstance(command, CallLLM)
    record = call_record(key, command.call_id, model, command.request, command.messages_hash)
    store.commit_input(f"in-{owner}-{n}", 0, step.state.committed, None, [record])


def every_page(
    store: SQLStore, owners: list[int], limit: int, model: str | None = None
) -> list[ConversationSummary]:
    seen: list[ConversationSummary] = []
    before = None
    while True:
        page = store.conversation_page(owners, limit, before, model)
        assert len(page) <= limit
        seen += page
        if len(page) < limit:
            return seen
        before = (page[-1].updated_at_ms, page[-1].conversation_id)


@pytest.mark.parametrize("per_statement", [200, 2])
def test_pages_cover_each_conversation_once_newest_first(
    store: SQLStore, monkeypatch: pytest.MonkeyPatch, per_statement: int
) -> None:
    monkeypatch.setattr(conversation_pages, "OWNERS_PER_STATEMENT", per_statement)
    for name in ("ana", "bob"):
        made_token = new_token()
        store.add_user(name, made_token.token_id, made_token.token_hash)
    assert [u.id for u in store.users()] == [1, 2, 3]
    for n in range(40):
        made(store, 1 + n % 3, n, model="sonnet" if n % 4 == 0 else "gpt")
    seen = every_page(store, [1, 2, 3], 7)
    assert len(seen) == 40
    assert {c.conversation_id for c in seen} == {c.conversation_id for c in store.conversations()}
    order = [(c.updated_at_ms, c.conversation_id) for c in seen]
    assert order == sorted(order, reverse=True)
    bobs = every_page(store, [2], 5)
    assert {c.conversation_id for c in bobs} == {c.conversation_id for c in store.conversations(2)}
    assert all(c.owner == 2 for c in bobs) and len(bobs) == 13
    sonnet = every_page(store, [1, 2, 3], 3, model="sonnet")
    assert sorted(c.conversation_id for c in sonnet) == sorted(
        scoped(1 + n % 3, f"conv-{n:03d}") for n in range(0, 40, 4)
    )
    assert store.conversation_page([1, 2, 3], 10, model="nobody") == []
