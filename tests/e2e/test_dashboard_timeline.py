"""A conversation's timeline on the dashboard, through the real server on a
real socket and a real SQLite file: every model call attempt (a retried one
too) with its figures as the database has them, just before the answer it
brought; and, for a conversation whose history holds them, tool calls and
results, a history repair and a compaction, each where it happened, on
one page or read a page at a time."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from html import unescape
from pathlib import Path

import aiohttp
import pytest

from cursor_byok.client.client import run_request
from cursor_byok.llm.events import ErrorEvent, ResponseEvent, StartEvent
from cursor_byok.llm.serialize import EMPTY_MESSAGES_HASH, extend_messages_hash, message_hash
from cursor_byok.llm.types import (
    HistoryRepair,
    Message,
    RequestMessages,
    TextContent,
    UserMessage,
)
from cursor_byok.loop import ConversationState, Status
from cursor_byok.runtime.records import call_record
from cursor_byok.store.base import CallStatus, CallStatusUpdate
from cursor_byok.store.call_rows import ModelCallRow
from cursor_byok.transport.http.dashboard import timeline as timeline_module
from cursor_byok.transport.http.dashboard.timeline import SHOWN_CHARS
from tests.e2e.dashboard_client import Browser, text_of
from tests.e2e.users import ADMIN_TOKEN, Team, team, to_the_end
from tests.factories import assistant, error_event, result, stream_of, tool_call
from tests.fakes import ScriptedLLM

pytestmark = pytest.mark.timeout(60)

OVERLOADED = ErrorEvent("error", error_event("overloaded").message, 529, retryable=True)


@pytest.fixture
async def t(tmp_path: Path) -> AsyncIterator[Team]:
    answers: list[list[ResponseEvent]] = [
        [StartEvent(), OVERLOADED],
        stream_of(assistant(TextContent("Hi Ana."))),
    ]
    async with team(tmp_path, ScriptedLLM(answers)) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def figures(page: str, call_id: str, attempt: int) -> dict[str, str]:
    """The cells of one model call's table, by the figure each shows."""
    table = re.search(
        rf'<table class=call id="call-{re.escape(call_id)}-{attempt}">(.*?)</table>', page
    )
    assert table is not None, f"no table for {call_id} attempt {attempt}"
    return dict(re.findall(r'data-figure="([^"]+)">([^<]*)<', table.group(1)))


async def test_each_attempt_of_a_call_is_shown_with_the_databases_figures(
    t: Team, http: aiohttp.ClientSession
) -> None:
    stream = await t.ana.client.open("req-1")
    await t.ana.client.append("req-1", 0, run_request("Hello?", "conv-ana"))
    await to_the_end(stream, 20)
    key = t.key(t.ana, "conv-ana")
    retried, ok = t.store.model_calls(key)
    assert (retried.outcome, ok.outcome) == ("retried", "ok")
    ana = Browser(t.url, http)
    await ana.sign_in(t.ana.token)
    status, page, _ = await ana.get("/ui/conversations/conv-ana")
    assert status == 200
    shown = figures(page, ok.call_id, 2)
    assert shown["outcome"] == "ok"
    assert shown["duration"] == f"{ok.duration_ms:,} ms"
    assert shown["ttft"] == f"{ok.ttft_ms:,} ms"
    assert (shown["input"], shown["output"]) == (f"{ok.input:,}", f"{ok.output:,}")
    assert shown["cost"] == ("unknown" if ok.cost_usd is None else f"${ok.cost_usd:,.6f}")
    assert figures(page, ok.call_id, 1)["outcome"] == "retried"
    # in order: the question, the two attempts, then the answer they brought
    words = text_of(page)
    order = [words.index(w) for w in ("Hello?", "attempt 1", "attempt 2", "Hi Ana.")]
    assert order == sorted(order)
    assert "overloaded" in words


async def test_tool_calls_repairs_and_compactions_are_where_they_happened(
    t: Team, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "conv-steps"
    messages: tuple[Message, ...] = (
        UserMessage("Read a.", timestamp=1),
        HistoryRepair("tool_use ids must be unique"),
        assistant(TextContent("Reading."), tool_call("t1", "a.txt")),
        result("t1", "contents of a"),
        UserMessage("Summary: a was read." + "x" * SHOWN_CHARS, timestamp=4),
        assistant(TextContent("Done.")),
    )
    chain = EMPTY_MESSAGES_HASH
    for message in messages:
        chain = extend_messages_hash(chain, message_hash(message))
    state = ConversationState(key, 1, messages, chain, status=Status.FINAL, resets=(4,))
    t.store.commit_input("in-1", 0, state, None)
    for number, step in ((1, 2), (2, 5)):
        call_id = f"{key}:call:{number}"
        request = _request(messages[:step])
        t.store.save_llm_call(call_record(key, call_id, "test-model", request, "h"))
        row = ModelCallRow(call_id, 1, key, f"{key}:turn:1", step, "test-model", 1, 1_000, 12, 345)
        t.store.save_llm_call(
            CallStatusUpdate(call_id, CallStatus.COMMITTED, 1, attempts_made=(row,))
        )
    t.store.save_llm_call(call_record(key, f"{key}:call:3", "test-model", _request(()), "h"))
    admin = Browser(t.url, http)
    await admin.sign_in(ADMIN_TOKEN)
    status, page, _ = await admin.get(f"/ui/conversations/{key}")
    assert status == 200
    words = text_of(page)
    marks = (
        "Read a.",
        "History repaired",
        f"Model call {key}:call:1",
        "Tool call read_file",
        "Result of read_file",
        "Compaction: requests start here",
        "Summary: a was read.",
        f"Model call {key}:call:2",
        "Done.",
        "Model calls without figures",
        f"{key}:call:3",
    )
    at = [words.index(mark) for mark in marks]
    assert at == sorted(at), [m for m, _ in sorted(zip(marks, at, strict=True), key=lambda p: p[1])]
    assert figures(page, f"{key}:call:1", 1)["duration"] == "345 ms"
    # Two messages a page: the pages, read in turn, show the same, once.
    monkeypatch.setattr(timeline_module, "PAGE_MESSAGES", 2)
    pages = []
    path: str | None = f"/ui/conversations/{key}"
    while path is not None:
        status, page, _ = await admin.get(path)
        assert status == 200
        pages.append(page)
        later = re.search(r'href="([^"]*)">Later', page)
        path = None if later is None else unescape(later.group(1))
    assert len(pages) == 3 and "messages 5 to 6 of 6" in text_of(pages[-1])
    joined = " ".join(
        text_of(re.sub(r"<p>(<span class=meta>messages|<a ).*?</p>", "", p)) for p in pages
    )
    at = [joined.index(mark) for mark in marks]
    assert at == sorted(at)
    assert (
        joined.count(f"Model call {key}:call:1,") == joined.count(f"Model call {key}:call:2,") == 1
    )
    assert joined.count("Compaction: requests start here") == 1


def _request(messages: tuple[Message, ...]) -> RequestMessages:
    return RequestMessages("system", messages, ())
