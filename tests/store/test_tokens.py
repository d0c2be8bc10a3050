"""A user's token: its form, its public id, and the hash that alone is kept."""

from __future__ import annotations

import pytest

from cursor_byok.store.tokens import (
    PREFIX,
    BadHash,
    hash_token,
    looks_like_a_user_token,
    new_token,
    token_id_of,
    token_matches,
)


def test_a_new_token_names_its_id_and_matches_its_hash() -> None:
    made = new_token()
    assert looks_like_a_user_token(made.token) and len(made.token) == 64
    assert token_id_of(made.token) == made.token_id
    assert token_matches(made.token, made.token_hash)
    assert made.token not in made.token_hash
    secret = made.token.removeprefix(f"{PREFIX}{made.token_id}_")  # may hold "_" itself
    assert len(secret) == 43 and secret not in made.token_hash


def test_two_tokens_differ_and_so_do_two_hashes_of_one() -> None:
    one, two = new_token(), new_token()
    assert one.token != two.token and one.token_id != two.token_id
    assert hash_token(one.token) != hash_token(one.token)  # salted


def test_another_secret_with_the_same_id_does_not_match() -> None:
    made = new_token()
    forged = made.token[:-1] + ("A" if made.token[-1] != "A" else "B")
    assert token_id_of(forged) == made.token_id
    assert not token_matches(forged, made.token_hash)


@pytest.mark.parametrize(
    "text",
    ["", "cbk_", "cbk_0123456789abcdef", "cbk_0123456789ABCDEF_" + "a" * 43, "Bearer x"],
)
def test_anything_else_has_no_token_id(text: str) -> None:
    assert token_id_of(text) is None


@pytest.mark.parametrize("stored", ["", "bcrypt$x", "scrypt$16384$8$1$!!$!!", "scrypt$a$b$c$d$e"])
def test_a_hash_that_cannot_be_read_is_an_error_not_a_match(stored: str) -> None:
    with pytest.raises(BadHash):
        token_matches(new_token().token, stored)
