"""Users and their tokens in the store, on both databases: only a hash is
kept, a token is found by its public id until it is rotated or revoked, and
each conversation's owner is the one its key names."""

from __future__ import annotations

import pytest

from cursor_byok.loop import transition
from cursor_byok.store.base import User, UserExists
from cursor_byok.store.owners import ADMIN_USER_ID, client_id_of, owner_of, scoped
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.tokens import PREFIX, new_token, token_matches
from tests.factories import fresh, start
from tests.store.conftest import Backend


def add(store: SQLStore, name: str, **options: object) -> tuple[User, str]:
    made = new_token()
    user = store.add_user(name, made.token_id, made.token_hash, **options)  # type: ignore[arg-type]
    return user, made.token


def test_the_administrator_is_user_one_and_listed_first(store: SQLStore) -> None:
    add(store, "ana")
    users = store.users()
    assert next((u.id, u.name, u.is_admin) for u in users) == (ADMIN_USER_ID, "admin", True)
    assert users[1].name == "ana" and users[1].id > ADMIN_USER_ID and not users[1].is_admin
    assert users[0].created_at_ms > 0


def test_a_user_keeps_their_models_and_budget(store: SQLStore) -> None:
    user, _ = add(store, "ana", models=("m1", "m2"), budget_usd=12.5, budget_period="week")
    assert store.user("ana") == user
    assert store.user_by_id(user.id) == user
    assert user.models == ("m1", "m2") and user.may_use("m1") and not user.may_use("m3")
    assert (user.budget_usd, user.budget_period) == (12.5, "week")
    everyone, _ = add(store, "bob")
    assert everyone.models is None and everyone.may_use("anything")
    assert everyone.budget_usd is None and everyone.last_used_at_ms is None


def test_a_name_is_taken_once(store: SQLStore) -> None:
    add(store, "ana")
    with pytest.raises(UserExists, match="ana"):
        add(store, "ana")
    with pytest.raises(UserExists):
        add(store, "admin")


def test_the_token_is_found_by_its_id_and_only_its_hash_is_stored(
    store: SQLStore, backend: Backend
) -> None:
    made = new_token()
    user = store.add_user("ana", made.token_id, made.token_hash)
    found = store.token_holder(made.token_id)
    assert found is not None
    holder, stored = found
    assert holder == user and stored == made.token_hash
    assert token_matches(made.token, stored)
    secret = made.token.removeprefix(f"{PREFIX}{made.token_id}_")  # may hold "_" itself
    dumped = repr(backend.rows("SELECT * FROM users"))
    assert made.token not in dumped and secret not in dumped


def test_a_revoked_token_is_found_no_more_and_rotation_gives_a_new_one(store: SQLStore) -> None:
    made = new_token()
    store.add_user("ana", made.token_id, made.token_hash)
    revoked = store.revoke("ana")
    assert revoked is not None and revoked.revoked
    assert store.token_holder(made.token_id) is None
    again = new_token()
    rotated = store.set_token("ana", again.token_id, again.token_hash)
    assert rotated is not None and not rotated.revoked
    assert store.token_holder(made.token_id) is None  # the old one stays dead
    assert store.token_holder(again.token_id) is not None


def test_the_administrator_and_strangers_cannot_be_revoked_or_rotated(store: SQLStore) -> None:
    made = new_token()
    assert store.revoke("admin") is None and store.revoke("nobody") is None
    assert store.set_token("admin", made.token_id, made.token_hash) is None
    assert store.set_token("nobody", made.token_id, made.token_hash) is None
    assert store.token_holder(made.token_id) is None


def test_last_use_only_moves_forward(store: SQLStore) -> None:
    user, _ = add(store, "ana")
    store.touch_user(user.id, 2_000)
    store.touch_user(user.id, 1_000)
    found = store.user("ana")
    assert found is not None and found.last_used_at_ms == 2_000


def test_a_conversation_belongs_to_the_user_its_key_names(
    store: SQLStore, backend: Backend
) -> None:
    user, _ = add(store, "ana")
    for key in ("conv-1", scoped(user.id, "conv-1")):
        state = transition(fresh(key), start("hi")).state
        store.commit_input("in-1", 0, state.committed, None)
    owners = dict(backend.rows("SELECT conversation_id, owner FROM conversations"))
    assert owners == {"conv-1": ADMIN_USER_ID, f"conv-1.{user.id}": user.id}
    mine = store.conversations(user.id)
    assert [(c.conversation_id, c.owner) for c in mine] == [(f"conv-1.{user.id}", user.id)]
    assert {c.conversation_id for c in store.conversations()} == set(owners)


def test_a_key_names_its_owner_and_the_clients_id() -> None:
    assert scoped(ADMIN_USER_ID, "abc") == "abc"
    assert scoped(7, "abc-1_x") == "abc-1_x.7"
    assert owner_of("abc-1_x.7") == 7 and client_id_of("abc-1_x.7") == "abc-1_x"
    assert owner_of("abc") == ADMIN_USER_ID and client_id_of("abc") == "abc"


def test_conversations_written_in_one_millisecond_list_in_one_order(
    store: SQLStore, backend: Backend
) -> None:
    """Newest first, ties by id: the same order with or without an owner,
    whichever plan the database picks for each query."""
    ids = ("conv-b", "conv-c", "conv-a")  # written in an order unlike the listing
    for conversation_id in ids:
        state = transition(fresh(conversation_id), start("hi")).state
        store.commit_input("in-1", 0, state.committed, None)
    backend.rows("UPDATE conversations SET updated_at_ms = 1000")
    backend.rows("UPDATE conversations SET updated_at_ms = 2000 WHERE conversation_id = 'conv-a'")
    expected = ["conv-a", "conv-c", "conv-b"]
    assert [c.conversation_id for c in store.conversations()] == expected
    assert [c.conversation_id for c in store.conversations(ADMIN_USER_ID)] == expected
