"""Failures end the stream with one `ErrorEvent`, for every adapter: HTTP
error statuses, a connection cut mid-stream, cancellation, garbage lines."""

from __future__ import annotations

import asyncio
import re

import pytest

from cursor_byok.llm.events import ErrorEvent, StartEvent, TextDelta
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages
from tests.factories import READ_TOOL, user
from tests.llm.adapters import CASES, AdapterCase
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes, fixture_json
from tests.llm.streams import collect, done_of, error_of

REQUEST = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL,))
pytestmark = pytest.mark.parametrize("case", CASES, ids=str)


async def call(server: LoopbackServer, case: AdapterCase, reply: Reply) -> list:  # type: ignore[type-arg]
    server.replies.append(reply)
    llm = case.make(server.base_url)
    try:
        return await collect(await llm.call(CallContext("c1", "s1"), REQUEST))
    finally:
        await llm.aclose()


def error_reply(fixture: str, status: int, **headers: str) -> Reply:
    return Reply(fixture_bytes(fixture), status, "application/json", headers)


async def test_http_400_is_a_final_error_with_the_provider_message(
    server: LoopbackServer, case: AdapterCase
) -> None:
    events = await call(server, case, error_reply(case.error_400, 400))
    error = error_of(events)
    assert len(events) == 1, "no start before an HTTP error"
    body = fixture_json(case.error_400)
    assert error.status == 400 and not error.retryable
    text = error.message.error_message
    assert text is not None and text.startswith(body["error"]["message"])
    param = body["error"].get("param")
    if isinstance(param, str) and param not in body["error"]["message"]:
        assert text.endswith(f"(param: {param})")  # OpenAI names the field apart
    assert error.message.content == ()


async def test_http_401_is_not_retryable(server: LoopbackServer, case: AdapterCase) -> None:
    fixture = case.error_401 or case.error_400
    error = error_of(await call(server, case, error_reply(fixture, 401)))
    assert (error.status, error.retryable) == (401, False)


async def test_http_429_is_retryable_after_the_header_delay(
    server: LoopbackServer, case: AdapterCase
) -> None:
    fixture = case.error_429 or case.error_400
    error = error_of(await call(server, case, error_reply(fixture, 429, **{"retry-after": "7"})))
    assert (error.status, error.retryable, error.retry_after) == (429, True, 7.0)
    ms = error_of(await call(server, case, error_reply(fixture, 429, **{"retry-after-ms": "250"})))
    assert ms.retry_after == 0.25


async def test_http_500_with_a_plain_body_keeps_the_text(
    server: LoopbackServer, case: AdapterCase
) -> None:
    reply = Reply(b"upstream connect error", 500, "text/plain")
    error = error_of(await call(server, case, reply))
    assert (error.status, error.retryable) == (500, True)
    assert error.message.error_message == "upstream connect error"


async def test_connection_cut_mid_stream_is_a_retryable_error(
    server: LoopbackServer, case: AdapterCase
) -> None:
    body = fixture_bytes(case.text_fixture)
    events = await call(server, case, Reply(body, cut_after=len(body) // 2, chunk_size=64))
    error = error_of(events)
    assert isinstance(events[0], StartEvent)
    assert error.retryable and error.status is None


async def test_body_ending_early_without_terminator_is_an_error(
    server: LoopbackServer, case: AdapterCase
) -> None:
    body = fixture_bytes(case.text_fixture)
    boundary = re.compile(rb"\r?\n\r?\n").search(body, len(body) // 3)
    assert boundary is not None
    events = await call(server, case, Reply(body[: boundary.end()]))
    assert error_of(events).retryable


async def test_malformed_lines_are_skipped(server: LoopbackServer, case: AdapterCase) -> None:
    body = fixture_bytes(case.text_fixture)
    noise = b": keep-alive\n\ndata: {not json\n\nbogus line\ndata:\n\n"
    clean = done_of(await call(server, case, Reply(body)))
    noisy = done_of(await call(server, case, Reply(noise + body + noise)))
    assert noisy.message.content == clean.message.content
    assert noisy.reason == clean.reason


async def test_aclose_mid_stream_closes_the_connection_and_aborts(
    server: LoopbackServer, case: AdapterCase
) -> None:
    body = fixture_bytes(case.text_fixture)
    server.replies.append(Reply(body[: len(body) // 2], hang=True, chunk_size=64))
    llm = case.make(server.base_url)
    stream = await llm.call(CallContext("c1", "s1"), REQUEST)
    assert isinstance(await stream.recv(), StartEvent)
    await stream.aclose()
    rest = await collect(stream)
    assert len(rest) == 1 and isinstance(rest[0], ErrorEvent) and rest[0].reason == "aborted"
    await asyncio.wait_for(server.closed_early.wait(), 5)
    await llm.aclose()


async def test_task_cancel_while_waiting_aborts_and_closes(
    server: LoopbackServer, case: AdapterCase
) -> None:
    body = fixture_bytes(case.text_fixture)
    server.replies.append(Reply(body[: len(body) // 2], hang=True, chunk_size=64))
    llm = case.make(server.base_url)
    stream = await llm.call(CallContext("c1", "s1"), REQUEST)
    seen = []

    async def consume() -> None:
        while True:
            seen.append(await stream.recv())

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert isinstance(seen[0], StartEvent)
    rest = await collect(stream)
    assert isinstance(rest[-1], ErrorEvent) and rest[-1].reason == "aborted"
    # The abort carries what had streamed, the open block included.
    streamed = "".join(e.delta for e in seen + rest if isinstance(e, TextDelta))
    assert rest[-1].message.text == streamed
    await asyncio.wait_for(server.closed_early.wait(), 5)
    await llm.aclose()


async def test_unreachable_host_is_a_retryable_error(case: AdapterCase) -> None:
    llm = case.make("http://127.0.0.1:9")
    try:
        events = await collect(await llm.call(CallContext("c1", "s1"), REQUEST))
    finally:
        await llm.aclose()
    error = error_of(events)
    assert error.retryable and error.status is None
