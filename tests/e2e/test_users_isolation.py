"""Two users on one server (SQLite, one process): whatever one does with the
other's request id or conversation id is answered exactly as for an id that
was never used: an attached stream, an append, a resume, a new message on
it, over RunSSE and over HTTP/2 Run. The other's turn and history are
untouched, and the administrator's token still reaches everything."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.client.client import (
    CursorClient,
    End,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.client.run_client import H2Client
from cursor_byok.llm.types import AssistantMessage, TextContent, ToolResultMessage
from cursor_byok.loop.state import Status
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.users import ADMIN_TOKEN, Team, resume, shown, team, to_the_end
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM

READ = assistant(TextContent("Let me look."), tool_call("call_1", "a.txt"))
ANSWER = assistant(TextContent("It says hello."), timestamp=5)
BOBS_ANSWER = assistant(TextContent("Hi Bob."), timestamp=6)


def scripted(*then: AssistantMessage) -> ScriptedLLM:
    """Ana's tool call first, then `then` (her answer by default)."""
    return ScriptedLLM([stream_of(READ), *(stream_of(m) for m in then or (ANSWER,))])


async def anas_turn_waits_for_its_tool(t: Team) -> pb.ExecServerMessage:
    """Ana's turn on `req-a` / `conv-a`, asking her client to read a file."""
    stream = await t.ana.client.open("req-a")
    await t.ana.client.append("req-a", 0, run_request("What is in a.txt?", "conv-a"))
    asked = await stream.until(lambda item: kind(item) == "exec")
    assert isinstance(asked, pb.AgentServerMessage)
    t.ana_stream = stream  # type: ignore[attr-defined]
    return asked.exec_server_message


def read_result(request: pb.ExecServerMessage, text: str) -> pb.AgentClientMessage:
    success = pb.ReadSuccess(path="a.txt", content=text, total_lines=1)
    return exec_reply(request, read_result=pb.ReadResult(success=success))


async def test_another_users_request_id_is_one_never_seen(tmp_path: Path) -> None:
    async with team(tmp_path, scripted()) as t:
        request = await anas_turn_waits_for_its_tool(t)
        hub = t.service.hub
        # Bob attaches to Ana's request id, and to one nobody used.
        taken = await t.bob.client.open("req-a")
        never = await t.bob.client.open("req-never")
        # Bob answers Ana's tool call on her request id, and on the unused one.
        for request_id in ("req-a", "req-never"):
            forged = await t.bob.client.append(request_id, 1, read_result(request, "forged"))
            assert forged.status == 200
            await t.bob.client.append(request_id, 2, stream_close(request.id))
        anas = hub.sessions.get(t.key(t.ana, "req-a"))
        assert anas is not None and anas.readers == 1 and anas.execs.asked(request.exec_id)
        loaded = t.store.load(t.key(t.ana, "conv-a"))
        assert loaded is not None and loaded.state.status is Status.WAITING_CLIENT
        for request_id in ("req-a", "req-never"):
            bobs = hub.sessions.get(t.key(t.bob, request_id))
            assert bobs is not None and bobs.conversation_id is None and bobs.readers == 1
        # Ana's own answer completes her turn, with her result.
        await t.ana.client.append("req-a", 1, read_result(request, "hello world"))
        await t.ana.client.append("req-a", 2, stream_close(request.id))
        anas_end = await t.ana_stream.until(lambda item: isinstance(item, End))  # type: ignore[attr-defined]
        assert isinstance(anas_end, End) and anas_end.error is None
        loaded = t.store.load(t.key(t.ana, "conv-a"))
        assert loaded is not None
        results = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
        assert "hello world" in repr(results) and "forged" not in repr(results)
        # Her finished request ends at once for her; for Bob it is still one
        # never seen: the same heartbeats as the unused id, nothing of hers.
        again = await t.ana.client.open("req-a")
        assert shown(await to_the_end(again)) == [("end", None)]
        late = await t.bob.client.open("req-a")
        for stream in (taken, never, late):
            first = await stream.next(within=5)
            assert not isinstance(first, End) and kind(first) == "heartbeat"
            assert shown(stream.received) == []


async def test_another_users_conversation_is_one_never_seen(tmp_path: Path) -> None:
    async with team(tmp_path, scripted(BOBS_ANSWER)) as t:
        await anas_turn_waits_for_its_tool(t)
        before = t.store.load(t.key(t.ana, "conv-a"))
        # A resume of Ana's turn in flight, and of a conversation nobody has.
        seen = {}
        for n, conversation_id in enumerate(("conv-a", "conv-never")):
            stream = await t.bob.client.open(f"req-resume-{n}")
            await t.bob.client.append(f"req-resume-{n}", 0, resume(conversation_id))
            seen[conversation_id] = shown(await to_the_end(stream))
        assert seen["conv-a"] == seen["conv-never"]
        assert "exec" not in seen["conv-a"] and ("end", None) in seen["conv-a"]
        # A new message on Ana's conversation id (what a fork or a copied
        # link sends) starts a conversation of Bob's own.
        stream = await t.bob.client.open("req-b")
        await t.bob.client.append("req-b", 0, run_request("Hello, I am Bob.", "conv-a"))
        assert shown(await to_the_end(stream))[-1] == ("end", None)
        assert "Hi Bob." in stream.text()
        bobs_call = t.llm.requests[-1][1]
        assert b"Hello, I am Bob." in bobs_call and b"a.txt" not in bobs_call
        assert t.store.load(t.key(t.ana, "conv-a")) == before  # Ana's history, untouched
        bobs = t.store.load(t.key(t.bob, "conv-a"))
        assert bobs is not None and len(bobs.state.messages) == 2


async def test_over_http2_too_another_users_conversation_is_one_never_seen(
    tmp_path: Path,
) -> None:
    async with team(tmp_path, scripted()) as t:
        await anas_turn_waits_for_its_tool(t)
        connection = await H2Client.connect(t.url)
        try:
            seen = {}
            for conversation_id in ("conv-a", "conv-never"):
                stream = await connection.open(token=t.bob.token)
                await stream.send(resume(conversation_id))
                seen[conversation_id] = shown(await to_the_end(stream))
            mine = await connection.open(token=t.ana.token)
            await mine.send(resume("conv-a"))
            asked_again = await mine.until(lambda item: kind(item) == "exec")
        finally:
            await connection.close()
        assert seen["conv-a"] == seen["conv-never"] and "exec" not in seen["conv-a"]
        assert isinstance(asked_again, pb.AgentServerMessage)  # hers resumes her turn


async def test_metrics_are_the_administrators(tmp_path: Path) -> None:
    async with team(tmp_path, scripted()) as t:
        users = await t.bob.client.get("/metrics")
        admin = CursorClient(t.url, token=ADMIN_TOKEN)
        try:
            answered = await admin.get("/metrics")
        finally:
            await admin.close()
    assert users.status == 403 and "administrator" in users.text
    assert answered.status == 200 and "cursor_byok_requests_total" in answered.text
