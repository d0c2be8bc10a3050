"""The dashboard in a real browser (the machine's Chromium, driven by
Playwright): sign in with the form, open every page, follow a link to a
conversation and check a model call's figures on its timeline against the
database, and keep a screenshot of each under the test's tmp_path.
Skipped, with the reason, where no Chromium is installed, except under CI,
where it fails (`.ci/run` installs Debian's)."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from cursor_byok.client.client import run_request
from cursor_byok.llm.models import Price, with_cost
from cursor_byok.llm.types import TextContent, Usage
from tests.e2e.users import ADMIN_TOKEN, Team, team, to_the_end
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

pytestmark = pytest.mark.timeout(120)

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
PRICE = Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
USAGE = with_cost(Usage(input=1200, output=1100, cache_read=4000, total_tokens=6300), "m", PRICE)
"""$0.0036 + $0.0165 + $0.0012 = $0.0213 (dollars per million tokens)."""


def browser_or_skip() -> str:
    found = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    if found is None:
        reason = "no Chromium installed (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason + ": CI must run the browser test")
        pytest.skip(reason)
    return found


@pytest.fixture
async def t(tmp_path: Path) -> AsyncIterator[Team]:
    answer = ScriptedLLM([stream_of(replace(assistant(TextContent("Hi Ana.")), usage=USAGE))])
    async with team(tmp_path, answer) as running:
        stream = await running.ana.client.open("req-1")
        await running.ana.client.append("req-1", 0, run_request("Hello?", "conv-ana"))
        await to_the_end(stream)
        yield running


async def test_every_page_opens_in_a_browser(t: Team, tmp_path: Path) -> None:
    executable = browser_or_skip()
    from playwright.async_api import async_playwright  # noqa: PLC0415

    shots = tmp_path / "screenshots"
    shots.mkdir()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox"]
        )
        try:
            page = await browser.new_page()
            await page.goto(t.url + "/ui/")
            assert page.url.endswith("/ui/login")
            await page.screenshot(path=shots / "login.png")
            await page.fill("input[name=token]", ADMIN_TOKEN)
            await page.click("button[type=submit]")
            await page.wait_for_url("**/ui/")
            assert await page.inner_text("h1") == "Overview"
            assert await page.locator("svg").count() >= 2
            await page.screenshot(path=shots / "overview.png", full_page=True)
            await page.click("text=Users")
            assert await page.inner_text("h1") == "Users"
            assert "ana" in await page.inner_text("table")
            await page.screenshot(path=shots / "users.png", full_page=True)
            await page.click("text=Conversations")
            assert await page.inner_text("h1") == "Conversations"
            await page.screenshot(path=shots / "conversations.png", full_page=True)
            await page.click("text=conv-ana")
            assert "Hi Ana." in await page.inner_text("main")
            # the model call's figures, as the page shows them, are the database's
            (call,) = t.store.model_calls(t.key(t.ana, "conv-ana"))
            table = page.locator(f'table[id="call-{call.call_id}-1"]')

            async def figure(name: str) -> str:
                return await table.locator(f'[data-figure="{name}"]').inner_text()

            assert await figure("outcome") == "ok"
            assert await figure("duration") == f"{call.duration_ms:,} ms"
            assert await figure("ttft") == f"{call.ttft_ms:,} ms"
            assert await figure("input") == f"{call.input:,}" and call.input > 0
            assert await figure("output") == f"{call.output:,}" and call.output > 0
            assert await figure("cache-read") == f"{call.cache_read:,}"
            cost = "unknown" if call.cost_usd is None else f"${call.cost_usd:,.6f}"
            assert await figure("cost") == cost and call.cost_usd == pytest.approx(0.0213)
            await page.screenshot(path=shots / "conversation.png", full_page=True)
            await page.click("text=Sign out")
            await page.wait_for_url("**/ui/login")
        finally:
            await browser.close()
    assert sorted(p.name for p in shots.iterdir()) == [
        "conversation.png",
        "conversations.png",
        "login.png",
        "overview.png",
        "users.png",
    ]
