"""Who sent a request: the administrator's token, a user's own token checked
once against its hash and then remembered, never past a rotation or a
revocation, and never a token in the URL. On a real SQLite store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.transport.connect.errors import Code
from cursor_byok.transport.connect.request_body import RequestError
from cursor_byok.transport.http.callers import ADMINISTRATOR, REFUSED, Authenticator

ADMIN_TOKEN = "the-administrators-token"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "state.sqlite3")


def add(store: SQLiteStore, name: str) -> str:
    made = new_token()
    store.add_user(name, made.token_id, made.token_hash)
    return made.token


async def refusal(authenticator: Authenticator, headers: dict[str, str], query: bytes = b"") -> str:
    with pytest.raises(RequestError) as refused:
        await authenticator.caller(headers, query)
    assert refused.value.error.code is Code.UNAUTHENTICATED
    return refused.value.error.message


async def test_the_configured_token_is_the_administrators(store: SQLiteStore) -> None:
    authenticator = Authenticator(ADMIN_TOKEN, store)
    assert await authenticator.caller(bearer(ADMIN_TOKEN)) is ADMINISTRATOR
    assert await refusal(authenticator, bearer(ADMIN_TOKEN + "x")) == REFUSED
    assert await refusal(authenticator, {}) == REFUSED


async def test_a_users_token_names_them_and_is_checked_slowly_once(store: SQLiteStore) -> None:
    token = add(store, "ana")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    for _ in range(3):
        caller = await authenticator.caller(bearer(token))
        assert caller.name == "ana" and not caller.is_admin
    assert authenticator.slow_checks == 1


async def test_a_remembered_check_expires(store: SQLiteStore) -> None:
    token = add(store, "ana")
    now = [0.0]
    authenticator = Authenticator(ADMIN_TOKEN, store, ttl_s=10.0, clock=lambda: now[0])
    await authenticator.caller(bearer(token))
    now[0] = 11.0
    await authenticator.caller(bearer(token))
    assert authenticator.slow_checks == 2


async def test_a_wrong_secret_with_a_real_id_is_refused(store: SQLiteStore) -> None:
    token = add(store, "ana")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert await refusal(authenticator, bearer(forged)) == REFUSED
    await authenticator.caller(bearer(token))  # the real one is still fine


async def test_a_revoked_token_stops_at_the_next_request_though_remembered(
    store: SQLiteStore, tmp_path: Path
) -> None:
    token = add(store, "ana")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    await authenticator.caller(bearer(token))
    other = SQLiteStore(tmp_path / "state.sqlite3")  # as `cursor-byok users` would
    other.revoke("ana")
    other.close()
    assert await refusal(authenticator, bearer(token)) == REFUSED
    assert authenticator.slow_checks == 1  # refused without a slow check


async def test_a_rotated_token_stops_and_the_new_one_works(store: SQLiteStore) -> None:
    old = add(store, "ana")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    await authenticator.caller(bearer(old))
    made = new_token()
    store.set_token("ana", made.token_id, made.token_hash)
    await refusal(authenticator, bearer(old))
    assert (await authenticator.caller(bearer(made.token))).name == "ana"


async def test_a_token_in_the_url_is_refused_even_with_a_good_header(store: SQLiteStore) -> None:
    token = add(store, "ana")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    for query in (f"token={token}", f"access_token={ADMIN_TOKEN}", f"x={token}", "auth=abc"):
        text = await refusal(authenticator, bearer(token), query.encode())
        assert "Authorization header" in text
    assert (await authenticator.caller(bearer(token), b"connect=v1")).name == "ana"


async def test_without_a_configured_token_the_gate_decides_but_a_bad_user_token_is_refused(
    store: SQLiteStore,
) -> None:
    token = add(store, "ana")
    authenticator = Authenticator(None, store)
    assert await authenticator.caller({}) is ADMINISTRATOR
    assert (await authenticator.caller(bearer(token))).name == "ana"
    store.revoke("ana")
    await refusal(authenticator, bearer(token))


async def test_last_use_is_recorded(store: SQLiteStore) -> None:
    token = add(store, "ana")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    await authenticator.caller(bearer(token))
    for _ in range(100):
        found = store.user("ana")
        if found is not None and found.last_used_at_ms is not None:
            break
        await asyncio.sleep(0.01)
    assert found is not None and found.last_used_at_ms is not None


async def test_no_token_reaches_the_logs(
    store: SQLiteStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    token = add(store, "ana")
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    authenticator = Authenticator(ADMIN_TOKEN, store)
    await authenticator.caller(bearer(token))
    await refusal(authenticator, bearer(forged))
    store.revoke("ana")
    await refusal(authenticator, bearer(token))
    await refusal(authenticator, bearer(token), f"token={token}".encode())
    logged = caplog.text
    assert "ana" in logged  # what happened is said, by the user's name
    # The token is cbk_<16 hex id>_<43 characters>; the secret part may hold
    # "_" itself, so it is cut by length, never split on "_".
    token_id, secret_part = token[4:20], token[21:]
    assert token == f"cbk_{token_id}_{secret_part}" and len(secret_part) == 43
    for secret in (token, forged, secret_part, token_id, ADMIN_TOKEN):
        assert secret not in logged
