"""What a client can make the server hold stays within the memory budget,
over a real socket: floods of big out-of-order appends and of tiny appends on
new request ids, measured as accounted bytes and checked against what the
sessions really buffer; a turn that loses input it needed ends with an error;
an append may carry more than other requests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from cursor_byok.client.client import (
    ClientError,
    CursorClient,
    End,
    HTTPReply,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.loop.state import IDLE_STATUSES
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.sessions.memory_budget import SESSION_BYTES
from tests.e2e.test_turn import ANSWER, READ_TURN
from tests.factories import stream_of
from tests.fakes import ScriptedLLM

MiB = 1024 * 1024
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
HEARTBEAT = pb.AgentClientMessage(client_heartbeat=pb.ClientHeartbeat())


@asynccontextmanager
async def running(
    tmp_path: Path, llm: ScriptedLLM | None = None, **options: object
) -> AsyncIterator[tuple[str, Service]]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, llm or ScriptedLLM([]), **options)  # type: ignore[arg-type]
    async with serving(service) as url:
        yield url, service
    store.close()


async def binary_append(
    client: CursorClient, request_id: str, seqno: int, payload: bytes
) -> HTTPReply:
    """An append with `data_binary`: the bytes the server buffers are the bytes sent."""
    request = bidi_pb2.BidiAppendRequest(
        data_binary=payload,
        request_id=bidi_pb2.BidiRequestId(request_id=request_id),
        append_seqno=seqno,
    )
    return await client.post(
        BIDI_APPEND, request.SerializeToString(), {"content-type": "application/proto"}
    )


def really_held(service: Service) -> int:
    """What the live sessions hold, counted from the sessions themselves."""
    sessions = list(service.hub.sessions)
    return len(sessions) * SESSION_BYTES + sum(s.inbox.pending_bytes for s in sessions)


async def test_out_of_order_4_mib_appends_on_new_request_ids_stay_under_the_budget(
    tmp_path: Path,
) -> None:
    total = 24 * MiB
    async with running(tmp_path, memory_budget_bytes=total, request_memory_bytes=20 * MiB) as (
        url,
        service,
    ):
        budget = service.hub.budget
        client = CursorClient(url)
        try:
            for number in range(6):
                for seqno in range(1, 5):  # seqno 0 never comes: all are buffered
                    answer = await binary_append(client, f"flood-{number}", seqno, b"x" * 4 * MiB)
                    assert answer.status == 200
                    assert budget.used <= total and really_held(service) <= total
            metrics = (await client.get("/metrics")).text
        finally:
            await client.close()
    # 96 MiB were sent; each request id's 16 MiB fit once, older ones were dropped.
    assert budget.stats.dropped["session"] >= 4
    assert budget.used == really_held(service) > 16 * MiB
    assert 'cursor_byok_memory_dropped_total{kind="session"}' in metrics


async def test_tiny_appends_on_many_new_request_ids_stay_under_the_budget(tmp_path: Path) -> None:
    total = 100 * SESSION_BYTES
    limit = total
    async with running(tmp_path, memory_budget_bytes=total, request_memory_bytes=limit) as (
        url,
        service,
    ):
        client = CursorClient(url)
        try:
            for number in range(400):
                answer = await binary_append(client, f"tiny-{number}", 1, b"x")
                assert answer.status == 200
                assert service.hub.budget.used <= total
        finally:
            await client.close()
    assert len(service.hub.sessions) < 100 and really_held(service) <= total
    assert service.hub.budget.stats.dropped["session"] >= 300
    assert service.hub.sessions.get("tiny-399") is not None  # the newest stay


async def test_a_turn_whose_buffered_input_passes_the_request_cap_ends_with_an_error(
    tmp_path: Path,
) -> None:
    llm = ScriptedLLM([stream_of(READ_TURN, chunk=3)])
    async with running(tmp_path, llm, request_memory_bytes=MiB) as (url, service):
        client = CursorClient(url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, run_request("What is in a.txt?"))
            await stream.until(lambda item: kind(item) == "exec")
            # The tool result's append 1 is still on its way; append 2 is too big to wait.
            answer = await client.append_raw("req-1", 2, b"x" * 2 * MiB)
            assert answer.status == 200
            end = await stream.until(lambda item: isinstance(item, End))
            late = await client.append_raw("req-1", 1, b"\x3a\x00")
            assert late.status == 200
        finally:
            await client.close()
        assert isinstance(end, End) and end.error is not None
        assert end.error["code"] == "resource_exhausted"
        message = str(end.error["message"])
        assert "append 2 could not be buffered" in message and "per request id" in message
        state = await wait_idle(service, "conv-1")
        assert state in IDLE_STATUSES  # the turn ended: nothing waits for the tool result
        assert service.hub.counters.over_budget_appends == 1
        assert service.hub.budget.held("request req-1") == SESSION_BYTES  # nothing buffered


async def test_a_tool_result_over_the_request_cap_fails_that_tool_call_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    """The tool's result comes ahead of an append still on its way and is too
    big to wait: that one tool call gets an error result the model sees, the
    appends after it are applied, and the turn completes."""
    llm = ScriptedLLM([stream_of(READ_TURN, chunk=3), stream_of(ANSWER)])
    async with running(tmp_path, llm, request_memory_bytes=MiB) as (url, service):
        client = CursorClient(url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, run_request("What is in a.txt?"))
            item = await stream.until(lambda item: kind(item) == "exec")
            assert isinstance(item, pb.AgentServerMessage)
            request = item.exec_server_message
            content = pb.ReadSuccess(path="a.txt", content="x" * 2 * MiB, total_lines=1)
            result = exec_reply(request, read_result=pb.ReadResult(success=content))
            # Append 1 (a heartbeat) is still on its way; the result (2) cannot wait.
            assert (await client.append("req-1", 2, result)).status == 200
            assert (await client.append("req-1", 1, HEARTBEAT)).status == 200
            assert (await client.append("req-1", 3, stream_close(request.id))).status == 200
            end = await stream.until(lambda item: isinstance(item, End))
        finally:
            await client.close()
        kinds = [kind(item) for item in stream.received]
        assert isinstance(end, End) and end.error is None
        assert "tool_call_completed" in kinds and kinds[-2:] == ["turn_ended", "end"]
        assert stream.text().endswith("The file says: hello world")
        told = llm.requests[1][1].decode()
        assert "over the server's memory budget" in told and "per request id" in told
        assert service.hub.counters.over_budget_appends == 1
        assert service.hub.budget.held("request req-1") == SESSION_BYTES  # nothing buffered


async def test_an_idle_turn_dropped_for_room_ends_and_its_stream_says_why(tmp_path: Path) -> None:
    llm = ScriptedLLM([stream_of(READ_TURN, chunk=3)])
    total = 4 * MiB
    async with running(tmp_path, llm, memory_budget_bytes=total, request_memory_bytes=2 * MiB) as (
        url,
        service,
    ):
        client = CursorClient(url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, run_request("What is in a.txt?"))
            await stream.until(lambda item: kind(item) == "exec")
            assert stream.task is not None
            stream.task.cancel()  # the client went away; the session waits for it
            session = service.hub.sessions.get("req-1")
            assert session is not None
            await until(lambda: session.readers == 0)
            for number in range(4):
                await client.append_raw(f"other-{number}", 1, b"x" * MiB)
            assert service.hub.sessions.get("req-1") is None
            with pytest.raises(ClientError, match=r"HTTP 429.*request dropped.*memory budget"):
                await client.open("req-1")
        finally:
            await client.close()
        assert await wait_idle(service, "conv-1") in IDLE_STATUSES


async def test_an_append_may_be_bigger_than_other_requests_up_to_its_own_limit(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, max_body_bytes=MiB, max_append_bytes=8 * MiB) as (url, service):
        client = CursorClient(url)
        try:
            # 3 MiB as hex (the official client's way) is a 6 MiB body.
            big = await client.append_raw("big", 1, b"x" * 3 * MiB)
            too_big = await client.append_raw("big", 2, b"x" * 5 * MiB)
            unary = await client.post(
                "/aiserver.v1.NetworkService/IsConnected",
                body=b"x" * 2 * MiB,
                headers={"content-type": "application/proto"},
            )
        finally:
            await client.close()
    assert big.status == 200
    session = service.hub.sessions.get("big")
    assert session is not None and session.inbox.pending == {1: b"x" * 3 * MiB}
    assert too_big.status == 429 and b"exceeds the limit of 8388608 bytes" in too_big.body
    assert unary.status == 429 and b"limit of 1048576 bytes" in unary.body
    assert service.hub.budget.in_flight == 0


def read_answer(request: pb.ExecServerMessage, content: str) -> pb.AgentClientMessage:
    success = pb.ReadSuccess(path="a.txt", content=content, total_lines=1)
    return exec_reply(request, read_result=pb.ReadResult(success=success))


async def resent_while_waiting(
    tmp_path: Path, first: str, resent: str
) -> tuple[list[int], ScriptedLLM, End]:
    """A turn whose tool result (append 2) arrives before append 1 and is
    sent again while it waits in the inbox; then append 1 comes. Returns the
    bytes the budget holds for the request id after each of those three
    appends, the model, and how the stream ended."""
    llm = ScriptedLLM([stream_of(READ_TURN, chunk=3), stream_of(ANSWER)])
    async with running(tmp_path, llm) as (url, service):
        budget = service.hub.budget
        client = CursorClient(url)
        try:
            stream = await client.open("req-1")
            await client.append("req-1", 0, run_request("What is in a.txt?"))
            item = await stream.until(lambda i: kind(i) == "exec", within=5)
            assert isinstance(item, pb.AgentServerMessage)
            request = item.exec_server_message
            held = []
            await client.append("req-1", 2, read_answer(request, first))
            held.append(budget.held("request req-1"))
            await client.append("req-1", 2, read_answer(request, resent))
            held.append(budget.held("request req-1"))
            await client.append("req-1", 1, HEARTBEAT)
            held.append(budget.held("request req-1"))
            end = await stream.until(lambda i: isinstance(i, End), within=5)
        finally:
            await client.close()
    assert isinstance(end, End)
    return held, llm, end


async def test_a_resent_append_waiting_in_the_inbox_is_charged_once(tmp_path: Path) -> None:
    """A client that retries an append still waiting for an earlier seqno
    sends the same bytes twice: the budget holds them once, and has nothing
    left charged once the gap is filled."""
    held, llm, end = await resent_while_waiting(tmp_path, "hello", "hello")
    assert end.error is None
    assert held[0] > SESSION_BYTES  # append 2 waits in the inbox
    assert held == [held[0], held[0], SESSION_BYTES]
    assert len(llm.requests) == 2


async def test_a_resent_append_waiting_in_the_inbox_does_not_replace_the_first(
    tmp_path: Path,
) -> None:
    """The first payload under a seqno is the one applied; a different one
    sent again under the same seqno is a duplicate, not a replacement."""
    _held, llm, end = await resent_while_waiting(tmp_path, "the first answer", "a second one")
    assert end.error is None
    assert len(llm.requests) == 2
    assert b"the first answer" in llm.requests[1][1]
    assert b"a second one" not in llm.requests[1][1]


async def until(condition: Callable[[], bool], within: float = 5.0) -> None:
    """Poll the server's own state (no event to wait on from outside it)."""
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def wait_idle(service: Service, conversation_id: str) -> object:
    async with asyncio.timeout(5):
        while True:
            state = await service.runner.state_of(conversation_id)
            if state is not None and state.status in IDLE_STATUSES:
                return state.status
            await asyncio.sleep(0.02)
