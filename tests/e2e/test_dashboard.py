"""The dashboard at `/ui`, through the real server on a real socket and a
real SQLite file: signing in with a token (never in a URL), the session
cookie's flags, CSRF and cross-site refusals, what a user may and may not
see, and the numbers on the pages against the database."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from html import unescape
from pathlib import Path

import aiohttp
import pytest

from cursor_byok.client.client import run_request
from cursor_byok.llm.types import TextContent
from cursor_byok.store.base import CallStatus, CallStatusUpdate, LLMCallRecord
from cursor_byok.store.periods import day_of
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.usage import CallUsage
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.dashboard import conversations
from tests.e2e.dashboard_client import Browser, csrf_of, text_of
from tests.e2e.users import ADMIN_TOKEN, Member, Team, team, to_the_end
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def t(tmp_path: Path) -> AsyncIterator[Team]:
    answers = [stream_of(assistant(TextContent(f"Answer {n}."))) for n in range(4)]
    async with team(tmp_path, ScriptedLLM(answers)) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def a_turn(member: Member, conversation_id: str) -> None:
    request_id = f"req-{conversation_id}"
    stream = await member.client.open(request_id)
    await member.client.append(request_id, 0, run_request("Hello?", conversation_id))
    await to_the_end(stream)


def spend(t: Team, member_id: int, model: str, cost: float, tokens: int, call_id: str) -> None:
    """A model call of today's that ended, written as a turn's commit writes it."""
    key = f"conv-{call_id}"
    record = LLMCallRecord(call_id, key, model, "r", "h", 1, None, CallStatus.PLANNED)
    t.store.save_llm_call(record)
    today = day_of(int(time.time() * 1000))
    usage = CallUsage(call_id, member_id, model, today, tokens, 7, 300, 0, 0, cost, 40, 90)
    t.store.save_llm_call(CallStatusUpdate(call_id, CallStatus.COMMITTED, 1, usage=usage))


async def test_signing_in_sets_a_safe_session_cookie_and_signing_out_ends_it(
    t: Team, http: aiohttp.ClientSession
) -> None:
    browser = Browser(t.url, http)
    status, _, headers = await browser.get("/ui/")
    assert status == 303 and headers["Location"] == "/ui/login"
    page = await browser.sign_in(t.ana.token)
    assert "ana" in text_of(page) and "Users" not in text_of(page)
    session = next(c for c in browser.set_cookies if c.startswith("cursor_byok_ui="))
    flags = {part.strip().lower() for part in session.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/ui"} <= flags
    assert "secure" not in flags  # plain HTTP here; over TLS it is Secure
    assert t.ana.token not in session
    status, page, headers = await browser.get("/ui/conversations")
    assert status == 200 and headers["Content-Security-Policy"].startswith("default-src 'none'")
    status, _, headers = await browser.post("/ui/logout", {"csrf": csrf_of(page)})
    assert status == 303
    status, _, headers = await browser.get("/ui/")
    assert status == 303 and headers["Location"] == "/ui/login"


async def test_behind_a_proxy_that_ends_tls_the_cookie_is_secure_and_forms_work(
    t: Team, http: aiohttp.ClientSession
) -> None:
    browser = Browser(t.url, http, extra={"X-Forwarded-Proto": "https"})
    _, page, _ = await browser.get("/ui/login")
    https = t.url.replace("http://", "https://")
    status, _, _ = await browser.post(
        "/ui/login", {"token": t.ana.token, "csrf": csrf_of(page)}, origin=https
    )
    assert status == 303
    session = next(c for c in browser.set_cookies if c.startswith("cursor_byok_ui="))
    assert "secure" in {part.strip().lower() for part in session.split(";")}
    _, page, _ = await browser.get("/ui/")
    status, _, _ = await browser.post("/ui/logout", {"csrf": csrf_of(page)}, origin=https)
    assert status == 303


async def test_a_wrong_token_is_refused_and_a_token_in_the_url_too(
    t: Team, http: aiohttp.ClientSession
) -> None:
    browser = Browser(t.url, http)
    _, page, _ = await browser.get("/ui/login")
    status, page, _ = await browser.post("/ui/login", {"token": "nope", "csrf": csrf_of(page)})
    assert status == 401 and "not valid" in page
    assert not any(c.startswith("cursor_byok_ui=") for c in browser.set_cookies)
    status, page, _ = await browser.get(f"/ui/login?token={t.ana.token}")
    assert status == 400 and "URL" in page
    status, _, _ = await browser.get(f"/ui/?x={t.ana.token}")
    assert status == 400


async def test_a_cross_site_post_and_a_post_without_the_csrf_token_are_refused(
    t: Team, http: aiohttp.ClientSession
) -> None:
    browser = Browser(t.url, http)
    page = await browser.sign_in(ADMIN_TOKEN)
    csrf = csrf_of(page)
    elsewhere = "https://evil.example"
    status, page, _ = await browser.post(
        "/ui/users/revoke", {"name": "ana", "csrf": csrf}, origin=elsewhere
    )
    assert status == 403 and "another site" in page
    status, _, _ = await browser.post("/ui/users/revoke", {"name": "ana", "csrf": "forged"})
    assert status == 403
    status, _, _ = await browser.post("/ui/users/revoke", {"name": "ana"}, origin=None)
    assert status == 403
    ana = t.store.user("ana")
    assert ana is not None and not ana.revoked
    # A sign-in form posted from elsewhere, or without its own token, is refused too.
    status, _, _ = await Browser(t.url, http).post("/ui/login", {"token": ADMIN_TOKEN, "csrf": ""})
    assert status == 403


async def test_a_user_cannot_reach_an_administrators_page(
    t: Team, http: aiohttp.ClientSession
) -> None:
    browser = Browser(t.url, http)
    page = await browser.sign_in(t.ana.token)
    status, _, _ = await browser.get("/ui/users")
    assert status == 403
    status, _, _ = await browser.post("/ui/users/revoke", {"name": "bob", "csrf": csrf_of(page)})
    assert status == 403
    bob = t.store.user("bob")
    assert bob is not None and not bob.revoked


async def test_another_users_conversation_is_missing_like_one_never_made(
    t: Team, http: aiohttp.ClientSession
) -> None:
    await a_turn(t.bob, "conv-bob")
    await a_turn(t.ana, "conv-ana")
    ana = Browser(t.url, http)
    await ana.sign_in(t.ana.token)
    status, page, _ = await ana.get("/ui/conversations")
    assert status == 200 and "conv-ana" in page and "conv-bob" not in page
    status, page, _ = await ana.get("/ui/conversations/conv-ana")
    assert status == 200 and "Answer" in page and "Hello?" in page
    theirs = await ana.get("/ui/conversations/conv-bob")
    never = await ana.get("/ui/conversations/conv-never")
    theirs_by_key = await ana.get(f"/ui/conversations/conv-bob.{t.bob.user.id}")
    assert theirs[0] == never[0] == theirs_by_key[0] == 404
    assert theirs[1] == never[1] == theirs_by_key[1]
    admin = Browser(t.url, http)
    await admin.sign_in(ADMIN_TOKEN)
    status, page, _ = await admin.get("/ui/conversations?user=bob")
    assert status == 200 and "conv-bob" in page and "conv-ana" not in page
    status, page, _ = await admin.get(f"/ui/conversations/conv-bob.{t.bob.user.id}")
    assert status == 200 and "Answer" in page and "User bob." in page
    assert "<h1>Conversation conv-bob</h1>" in page


async def test_the_numbers_on_the_pages_are_the_databases(
    t: Team, http: aiohttp.ClientSession
) -> None:
    spend(t, t.ana.user.id, "sonnet", 1.25, 700, "c1")
    spend(t, t.ana.user.id, "gpt-5.1", 0.5, 300, "c2")
    spend(t, t.bob.user.id, "sonnet", 2.0, 1000, "c3")
    ana = Browser(t.url, http)
    words = text_of(await ana.sign_in(t.ana.token))
    # Ana's own: $1.75 over 2 calls; 1,000 input + 600 cache read = 1,600 prompt tokens.
    assert "$1.7500 over 2 model calls, 1,600 prompt tokens" in words
    assert "cache hits 37.5%" in words  # 600 / 1,600
    assert "$2.0000" not in words and "bob" not in words
    admin = Browser(t.url, http)
    words = text_of(await admin.sign_in(ADMIN_TOKEN))
    assert "$3.7500 over 3 model calls" in words
    assert "bob 1 1,000 7 300 0 23.1% $2.0000" in words  # 300 / 1,300
    status, page, _ = await admin.get("/ui/users")
    words = text_of(page)
    assert status == 200 and "ana" in words and "$1.7500" in words and "$2.0000" in words


async def test_revoke_and_rotate_from_the_users_page(t: Team, http: aiohttp.ClientSession) -> None:
    ana = Browser(t.url, http)
    await ana.sign_in(t.ana.token)
    admin = Browser(t.url, http)
    page = await admin.sign_in(ADMIN_TOKEN)
    status, page, _ = await admin.post("/ui/users/revoke", {"name": "ana", "csrf": csrf_of(page)})
    assert status == 200 and "Revoked ana" in page
    revoked = t.store.user("ana")
    assert revoked is not None and revoked.revoked
    status, _, headers = await ana.get("/ui/")  # her session ends at its next request
    assert status == 303 and headers["Location"] == "/ui/login"
    status, page, _ = await admin.post("/ui/users/rotate", {"name": "ana", "csrf": csrf_of(page)})
    assert status == 200
    token = text_of(page).split("only its hash is stored):")[1].split()[0]
    assert token != t.ana.token
    again = Browser(t.url, http)
    assert "ana" in text_of(await again.sign_in(token))
    _, page, _ = await admin.get("/ui/users")
    assert token not in page  # shown once


async def test_the_conversations_page_pages_newest_first_and_filters_by_model(
    t: Team, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conversations, "PAGE_SIZE", 1)
    for name in ("conv-1", "conv-2", "conv-3"):
        await a_turn(t.ana, name)
    ana = Browser(t.url, http)
    await ana.sign_in(t.ana.token)
    seen = []
    path: str | None = "/ui/conversations"
    while path is not None:
        status, page, _ = await ana.get(path)
        assert status == 200
        seen += re.findall(r'href="/ui/conversations/([^"]+)"', page)
        older = re.search(r'href="(/ui/conversations\?[^"]*before=[^"]*)">Older', page)
        path = None if older is None else unescape(older.group(1))
    assert seen == ["conv-3", "conv-2", "conv-1"]
    _, page, _ = await ana.get("/ui/conversations?model=test-model")
    assert "conv-3" in page
    _, page, _ = await ana.get("/ui/conversations?model=another-model")
    assert "No conversations here." in page


async def test_an_administrators_session_ends_when_the_configured_token_changes(
    t: Team, http: aiohttp.ClientSession, tmp_path: Path
) -> None:
    """Sessions outlive a restart (they are in the database): one opened with
    the administrator's token holds on a server configured with that token,
    and not on one configured with another."""
    admin = Browser(t.url, http)
    await admin.sign_in(ADMIN_TOKEN)
    for token, expected in ((ADMIN_TOKEN, 200), ("a-new-administrators-token", 303)):
        store = SQLiteStore(tmp_path / "team.sqlite3", synchronous="NORMAL")
        service = build_service(store, t.llm, access_token=token)
        try:
            async with serving(service) as url:
                restarted = Browser(url, http, cookies=dict(admin.cookies))
                status, _, _ = await restarted.get("/ui/")
                assert status == expected, token
        finally:
            store.close()
