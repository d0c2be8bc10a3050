"""The dashboard behind a load balancer without sticky sessions: two `serve`
processes on one PostgreSQL database, a browser signed in through one and
sent to the other. Its session is found there (the same user, pages and
forms, whose CSRF token is the same on both), signing out on one ends it on
both, and revoking a user's token ends their sessions on every process."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from cursor_byok.store.scratch_postgres import PostgresServer
from tests.e2e.dashboard_client import Browser, csrf_of
from tests.e2e.test_users_two_processes import two_processes, users_command


async def test_a_sign_in_on_one_process_holds_on_the_other(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database = postgres_server.new_database()
    ana_token = users_command(database, "add", "ana")
    async with two_processes(tmp_path, database) as pair, aiohttp.ClientSession() as http:
        on_a = Browser(pair.a, http)
        page = await on_a.sign_in(ana_token)
        assert "ana" in page
        on_b = Browser(pair.b, http, cookies=dict(on_a.cookies))
        for path in ("/ui/", "/ui/conversations"):
            status, page, _ = await on_b.get(path)
            assert status == 200 and "Sign out" in page, (path, status)
        # A form from a page of a, posted to b: the same session, the same CSRF.
        status, page_a, _ = await on_a.get("/ui/")
        status, _, headers = await on_b.post("/ui/logout", {"csrf": csrf_of(page_a)})
        assert status == 303 and headers["Location"] == "/ui/login"
        status, _, headers = await on_a.get("/ui/")
        assert status == 303 and headers["Location"] == "/ui/login"
        # Signed in again through b; ana's token revoked: out on both.
        again = Browser(pair.b, http)
        await again.sign_in(ana_token)
        elsewhere = Browser(pair.a, http, cookies=dict(again.cookies))
        assert (await elsewhere.get("/ui/"))[0] == 200
        users_command(database, "revoke", "ana")
        for browser in (again, elsewhere):
            status, _, headers = await browser.get("/ui/")
            assert status == 303 and headers["Location"] == "/ui/login"
