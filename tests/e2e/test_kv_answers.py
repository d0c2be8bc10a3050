"""The end of a turn's stream and the client's answers to its KV requests.

The server stores the turn's blobs on the client (`kv_server_message`
`set_blob_args`) just before `turn_ended`; the official clients answer them
after they read `turn_ended`. The stream's end waits (at most
`KV_ANSWER_WAIT_S`) for those answers: over HTTP/1.1 (RunSSE + BidiAppend)
a Connect client that aborts its appends when the stream ends loses none,
over HTTP/2 (`Run`) the answers still have a stream to go on. A client that
never answers gets its end after the bound; an answer after the end gets
200 and is counted. The real server on a real socket, the real bound."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from cursor_byok.client.client import CursorClient, End, Stream, kind, run_request
from cursor_byok.client.run_client import H2Client
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.connect.framing import encode_envelope
from cursor_byok.transport.http import late_data
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.kv_answers import KV_ANSWER_WAIT_S
from tests.e2e import nodes
from tests.e2e.official_cli import OfficialCli, user_message
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM


def answer(text: str) -> list[ResponseEvent]:
    return stream_of(assistant(TextContent(text)), chunk=4)


@dataclass
class Rig:
    service: Service
    url: str
    workspace: Path

    def cli(self, kv_answers: str) -> OfficialCli:
        return OfficialCli(
            self.url, "proto", self.workspace, kv_answers=kv_answers, aborts_appends_at_end=True
        )

    def metric(self, text: str, name: str) -> float:
        line = next(line for line in text.splitlines() if line.startswith(name))
        return float(line.rsplit(" ", 1)[1])


async def read_metrics(url: str) -> str:
    client = CursorClient(url)
    try:
        return (await client.get("/metrics")).text
    finally:
        await client.close()


@asynccontextmanager
async def rig(
    tmp_path: Path, scripts: list[list[ResponseEvent]], kv_wait_s: float = KV_ANSWER_WAIT_S
) -> AsyncIterator[Rig]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store,
        ScriptedLLM(scripts),
        retry=RetryPolicy(1, 0.001, 0.01),
        heartbeat_s=0.5,
        kv_wait_s=kv_wait_s,
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "a.txt").write_text("hello\n")
    async with serving(service) as url:
        yield Rig(service, url, workspace)
    store.close()


async def test_http1_answers_after_turn_ended_are_all_taken_before_the_end(
    tmp_path: Path,
) -> None:
    """A tool turn, then a second turn: every KV answer, sent only once the
    client has read turn_ended, reaches the server before its stream ends,
    so the client (which aborts appends in flight at the end) aborts none."""
    scripts = [
        stream_of(assistant(TextContent("Let me look."), tool_call("call_1", "a.txt"))),
        answer("It says hello."),
        answer("Again."),
    ]
    async with rig(tmp_path, scripts) as r:
        cli = r.cli("after turn_ended")
        try:
            first = await cli.run(user_message("What is in a.txt?", cli.context), "claude")
            second = await cli.run(user_message("And now?", cli.context), "claude")
        finally:
            await cli.close()
        counters = r.service.hub.counters
    for turn in (first, second):
        assert turn.error is None
        assert turn.violations == []
        assert turn.aborted_appends == 0
        assert turn.order[-1] == "turn_ended"
    assert first.text == "Let me look.It says hello."
    # Every blob a checkpoint names was stored, and the server heard every answer.
    assert second.checkpoints[-1].turns and all(
        t in cli.blobs for t in second.checkpoints[-1].turns
    )
    assert counters.kv_unanswered == 0
    assert counters.late_kv_answers == 0


async def test_http2_run_answers_after_turn_ended_go_out_on_the_open_stream(
    tmp_path: Path,
) -> None:
    """Over `Run` the answers ride the request stream: they can only be sent
    while it is open, so the response's end must wait for them."""
    async with rig(tmp_path, [answer("Hi there.")]) as r:
        client = await H2Client.connect(r.url)
        try:
            stream = await client.open("proto")
            await stream.send(run_request("hello"))
            asked: list[pb.KvServerMessage] = []
            while True:
                item = await stream.next()
                assert not isinstance(item, End), f"ended before turn_ended: {item}"
                if item.HasField("kv_server_message"):
                    asked.append(item.kv_server_message)
                if kind(item) == "turn_ended":
                    break
            for request in asked:  # as the CLI's KV consumer: after turn_ended
                reply = pb.KvClientMessage(id=request.id, set_blob_result=pb.SetBlobResult())
                await stream.send(pb.AgentClientMessage(kv_client_message=reply))
            end = await stream.until(lambda i: isinstance(i, End))
        finally:
            await client.close()
        counters = r.service.hub.counters
    assert asked
    assert isinstance(end, End) and end.error is None
    assert counters.kv_unanswered == 0
    assert counters.late_kv_answers == 0


@pytest.mark.parametrize("transport", ["http1", "http2"])
async def test_a_client_that_never_answers_gets_its_end_after_the_bound(
    tmp_path: Path, transport: str
) -> None:
    async with rig(tmp_path, [answer("Hi there.")]) as r:
        stream: Stream
        if transport == "http1":
            client = CursorClient(r.url)
            stream = await client.open("r-1")
            await client.append("r-1", 0, run_request("hello"))
            close = client.close
        else:
            h2 = await H2Client.connect(r.url)
            stream = run = await h2.open("proto")
            await run.send(run_request("hello"))
            close = h2.close
        try:
            await stream.until(lambda i: kind(i) == "turn_ended")
            read_at = time.monotonic()
            end = await stream.until(lambda i: isinstance(i, End), within=KV_ANSWER_WAIT_S + 10)
            waited = time.monotonic() - read_at
            asked = [i for i in stream.received if kind(i) == "kv_server_message"]
        finally:
            await close()
        metrics = await read_metrics(r.url)
    assert isinstance(end, End) and end.error is None
    assert waited >= KV_ANSWER_WAIT_S * 0.9  # the end waited for the answers, bounded
    assert asked and r.service.hub.counters.kv_unanswered == len(asked)
    assert r.metric(metrics, "cursor_byok_kv_unanswered ") == len(asked)


async def test_answers_after_the_end_get_200_and_are_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with rig(tmp_path, [answer("Hi there.")], kv_wait_s=0.2) as r:
        cli = OfficialCli(r.url, "proto", r.workspace, kv_answers="never")
        try:
            turn = await cli.run(user_message("hello", cli.context), "claude")
            statuses = []
            for seqno, reply in enumerate(turn.kv_held, start=1):
                data = reply.SerializeToString()
                statuses.append((await cli.client.append_raw(turn.request_id, seqno, data)).status)
            metrics = (await cli.client.get("/metrics")).text
        finally:
            await cli.close()
        counters = r.service.hub.counters
    assert turn.error is None and turn.kv_held
    assert statuses == [200] * len(turn.kv_held)
    assert counters.late_kv_answers == len(turn.kv_held)
    late = 'cursor_byok_ignored_client_messages{reason="late_kv_answer"} '
    assert r.metric(metrics, late) == len(turn.kv_held)
    logged = [m for m in caplog.messages if "came after its stream ended" in m]
    assert len(logged) == len(turn.kv_held)


async def test_a_piped_stream_ends_once_its_answers_reach_the_pipe(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """Turn 2 opened on a process that does not own the conversation is
    piped to the owner; its KV answers, sent after turn_ended to the pipe's
    process, end the wait there as on one process (not the bound)."""
    url = postgres_server.new_database()
    scripts = [answer("Hi there."), answer("Again.")]
    options = {"lease_s": 60.0, "kv_wait_s": KV_ANSWER_WAIT_S}
    async with (
        nodes.node(url, ScriptedLLM(list(scripts)), **options) as a,
        nodes.node(url, ScriptedLLM(list(scripts)), **options) as b,
    ):
        on_a = OfficialCli(a.url, "proto", tmp_path, kv_answers="after turn_ended")
        on_b = OfficialCli(
            b.url, "proto", tmp_path, kv_answers="after turn_ended", aborts_appends_at_end=True
        )
        try:
            await on_a.run(user_message("hello", on_a.context), "claude", "conv-1")
            on_b.blobs, on_b.checkpoint = on_a.blobs, on_a.checkpoint  # the same CLI
            second = await on_b.run(user_message("And now?", on_b.context), "claude", "conv-1")
        finally:
            await on_a.close()
            await on_b.close()
        piped = b.hub.piped
        counters = b.hub.counters
    assert second.error is None and second.violations == []
    assert second.text == "Again." and second.aborted_appends == 0
    assert a.model_calls == 2 and b.model_calls == 0 and len(piped) == 1
    assert counters.kv_unanswered == 0  # the answers, not the bound, ended the wait


async def test_http2_answers_after_the_end_are_taken_or_dropped_and_counted(
    tmp_path: Path,
) -> None:
    """A Run client that answers only after the stream ended (past a short
    wait): each answer is applied as late or dropped by the HTTP/2 guard,
    and either way counted in /metrics; the connection keeps serving."""
    async with rig(tmp_path, [answer("Hi there."), answer("Again.")], kv_wait_s=0.1) as r:
        dropped_before = late_data.DROPPED.frames
        client = await H2Client.connect(r.url)
        try:
            stream = await client.open("proto")
            await stream.send(run_request("hello"))
            end = await stream.until(lambda i: isinstance(i, End))
            asked = [
                i.kv_server_message
                for i in stream.received
                if isinstance(i, pb.AgentServerMessage) and i.HasField("kv_server_message")
            ]
            for request in asked:  # one DATA frame each, on the ended stream
                reply = pb.KvClientMessage(id=request.id, set_blob_result=pb.SetBlobResult())
                data = pb.AgentClientMessage(kv_client_message=reply).SerializeToString()
                client.h2.send_data(stream.stream_id, encode_envelope(data))
                client.flush()
            counters = r.service.hub.counters

            def counted() -> int:
                return counters.late_kv_answers + late_data.DROPPED.frames - dropped_before

            for _ in range(200):
                if counted() == len(asked):
                    break
                await asyncio.sleep(0.01)
            again = await client.open("proto")
            await again.send(run_request("again", message_id="m2"))
            second = await again.until(lambda i: isinstance(i, End))
            serving = not client.closed
            metrics = await read_metrics(r.url)
        finally:
            await client.close()
    assert isinstance(end, End) and end.error is None
    assert asked and counted() == len(asked)
    assert isinstance(second, End) and second.error is None and serving
    shown = r.metric(metrics, 'cursor_byok_ignored_client_messages{reason="late_kv_answer"} ')
    shown += r.metric(metrics, 'cursor_byok_ignored_client_messages{reason="h2_data_after_end"} ')
    assert shown - dropped_before >= len(asked)
