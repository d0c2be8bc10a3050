"""A fetched page longer than the fetch's cap, through the real server: the
card and the model get the cut text, and the whole page is written to a
file in the client's folder for the project (a `write_args` exec of the
tool's own) and named in `WebFetchSuccess.output_location`, as the official
server does; a client that names no such folder gets the cut text alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from aiohttp import web

from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.web_tools import WebFetch
from cursor_byok.transport.http.app import build_service, serving
from tests.e2e.independent_cli import OfficialCli, Run
from tests.e2e.test_official_cli import answer, call, uses
from tests.e2e.test_web_tools import IDE, completed, web_action
from tests.fakes import ScriptedLLM
from tests.runtime.web.sites import Site, loopback_allowed

LINES = [f"Line {i}: the parser reads token {i}." for i in range(400)]
TEXT = "\n".join(LINES) + "\n"
MAX_CHARS = 2000


async def _long(_request: web.Request) -> web.Response:
    return web.Response(text=TEXT, content_type="text/plain")


@asynccontextmanager
async def rig(tmp_path: Path) -> AsyncIterator[tuple[str, Site, ScriptedLLM]]:
    site = await Site({"/long": _long}).start()
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([])
    fetch = WebFetch(loopback_allowed(max_chars=MAX_CHARS), 60.0)
    service = build_service(
        store, llm, retry=RetryPolicy(1, 0.001, 0.01), heartbeat_s=0.3, server_tools=[fetch]
    )
    try:
        async with serving(service) as url:
            yield url, site, llm
    finally:
        store.close()
        await site.stop()


async def fetch_long(tmp_path: Path, folder: str) -> tuple[Run, str]:
    async with rig(tmp_path) as (url, site, llm):
        page = site.url("/long")
        llm.scripts += [uses(call("call_long1", "WebFetch", url=page)), answer("Read.")]
        async with OfficialCli(url, "proto", tmp_path) as client:
            client.client_headers = IDE
            action = web_action(client, "read the long page", True, True)
            action.user_message_action.request_context.env.project_folder = folder
            run = await client.start("conv-long", "m", action).finish()
        said = llm.requests[1][1].decode()
    return run, said


async def test_a_page_longer_than_the_cap_is_written_whole_to_a_file(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "demo"
    run, said = await fetch_long(tmp_path, str(folder))
    assert run.errors == [] and run.end is not None and run.end.ok
    success = completed(run, "web_fetch_tool_call").result.success
    assert len(success.markdown) < MAX_CHARS + 200 and "cut at" in success.markdown
    location = success.output_location
    written = folder / "agent-tools" / "web-fetch-call_long1.md"
    assert location.file_path == str(written)
    assert written.read_text() == TEXT
    assert (location.size_bytes, location.line_count) == (len(TEXT.encode()), 400)
    assert f"is in {written}: read the rest there" in said


async def test_a_client_without_a_project_folder_gets_the_cut_text_alone(
    tmp_path: Path,
) -> None:
    run, said = await fetch_long(tmp_path, "")
    assert run.errors == [] and run.end is not None and run.end.ok
    success = completed(run, "web_fetch_tool_call").result.success
    assert "cut at" in success.markdown and not success.HasField("output_location")
    assert "read the rest there" not in said
