"""Questions against the independent player of the official CLI
(independent_cli.py), in each codec. As a newer build it answers (several
options and free text) or skips, and the model reads which; as the Nov-2025
build it is never asked. And a question waiting on the user survives a
restart: through a real `serve` process killed (SIGKILL) while the question
waits, the restarted server asks the same question again under the same
query id on the resumed stream, the user's answer is taken once (a repeated
answer is ignored and counted), and the model reads it once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from cursor_byok.llm.types import ToolResultMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.independent_cli import CODECS, OfficialCli
from tests.e2e.provider_turns import server_for
from tests.e2e.test_independent_cli import CLAUDE, say
from tests.e2e.test_restart import start_serve
from tests.e2e.test_todos_restart import result_texts
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.wire_streams import Call, Text, anthropic

NEWER = {"x-cursor-client-type": "cli", "x-cursor-client-version": "cli-2026.08.11-4a1b2c3"}
ASK = Call(
    "toolu_ask_1",
    "AskQuestion",
    {
        "questions": [
            {
                "id": "db",
                "prompt": "Which database?",
                "options": [
                    {"id": "pg", "label": "PostgreSQL"},
                    {"id": "lite", "label": "SQLite"},
                ],
            }
        ]
    },
)


def pick_postgres(query: pb.InteractionQuery) -> pb.InteractionResponse:
    answer = pb.AskQuestionSuccess.Answer(question_id="db", selected_option_ids=["pg"])
    result = pb.AskQuestionResult(success=pb.AskQuestionSuccess(answers=[answer]))
    return pb.InteractionResponse(
        id=query.id,
        ask_question_interaction_response=pb.AskQuestionInteractionResponse(result=result),
    )


async def late_answers(port: int) -> float:
    """The server's count of answers ignored as late or repeated (/metrics)."""
    url = f"http://127.0.0.1:{port}/metrics"
    async with aiohttp.ClientSession() as session, session.get(url) as reply:
        text = await reply.text()
    [line] = [
        line
        for line in text.splitlines()
        if 'reason="late_query_answer"' in line and not line.startswith("#")
    ]
    return float(line.rsplit(" ", 1)[1])


@pytest.mark.parametrize("codec", CODECS)
async def test_a_question_waiting_at_a_restart_is_asked_again_and_answered_once(
    tmp_path: Path, codec: str
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [Reply(anthropic([Text("Let me ask."), ASK])), say("PostgreSQL, noted.")]
    config = tmp_path / "config.toml"
    config.write_text(CLAUDE.toml(provider.base_url))
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    try:
        async with OfficialCli(f"http://127.0.0.1:{port}", codec, workspace) as cli:
            cli.client_headers = NEWER
            cli.user = lambda _query: None  # away while the first server runs
            handle = cli.start("conv-q", "m", cli.user_action("set up the service"))
            await handle.until(lambda run: bool(run.of("interaction_query")))
            first.kill()
            await asyncio.to_thread(first.communicate, timeout=30)
            before = await handle.finish()
            second = await asyncio.to_thread(start_serve, config, database, port)
            cli.user = pick_postgres
            resume = pb.ConversationAction()
            resume.resume_action.SetInParent()
            again = cli.start("conv-q", "m", resume)
            [asked] = (await again.until(lambda run: bool(run.of("interaction_query")))).of(
                "interaction_query"
            )
            again.send(pb.AgentClientMessage(interaction_response=pick_postgres(asked)))
            after = await again.finish(60)
            ignored = await late_answers(port)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await provider.stop()
    assert after.end is not None and after.end.ok, (after.end, after.errors)
    assert after.errors == []  # (the killed stream ended without its end frame)
    # The same question, under the same id, naming the same call.
    [first_asked] = before.of("interaction_query")
    assert first_asked.id == asked.id != 0
    assert first_asked.ask_question_interaction_query.tool_call_id == "toolu_ask_1"
    assert asked.ask_question_interaction_query == first_asked.ask_question_interaction_query
    # Answered once: one result, one model call after it, the repeat ignored and counted.
    assert ignored == 1.0
    assert len(provider.received) == 2
    [result] = [text for text in result_texts(provider.requests[1]) if "answered" in text]
    assert "Which database?" in result and "-> PostgreSQL" in result
    assert "PostgreSQL, noted." in after.text()
    store = SQLiteStore(database)
    try:
        loaded = store.load("conv-q")
    finally:
        store.close()
    assert loaded is not None
    kept = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
    assert [m.tool_call_id for m in kept] == ["toolu_ask_1"]


FORM = Call(
    "toolu_ask_2",
    "AskQuestion",
    {
        "questions": [
            {
                "id": "os",
                "prompt": "Which systems?",
                "options": [{"id": "linux", "label": "Linux"}, {"id": "mac", "label": "macOS"}],
                "allow_multiple": True,
            },
            {"id": "name", "prompt": "Its name?"},
        ]
    },
)


def several_and_text(query: pb.InteractionQuery) -> pb.InteractionResponse:
    answers = [
        pb.AskQuestionSuccess.Answer(question_id="os", selected_option_ids=["linux", "mac"]),
        pb.AskQuestionSuccess.Answer(question_id="name", freeform_text="ledger"),
    ]
    result = pb.AskQuestionResult(success=pb.AskQuestionSuccess(answers=answers))
    return pb.InteractionResponse(
        id=query.id,
        ask_question_interaction_response=pb.AskQuestionInteractionResponse(result=result),
    )


def skipped(query: pb.InteractionQuery) -> pb.InteractionResponse:
    result = pb.AskQuestionResult(rejected=pb.AskQuestionRejected(reason="skipped"))
    return pb.InteractionResponse(
        id=query.id,
        ask_question_interaction_response=pb.AskQuestionInteractionResponse(result=result),
    )


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("user", ["answers", "skips", "nov-2025"])
async def test_the_independent_client_answers_skips_or_is_never_asked(
    tmp_path: Path, codec: str, user: str
) -> None:
    replies = [Reply(anthropic([Text("Let me ask."), FORM])), say("Noted.")]
    async with (
        server_for(CLAUDE, replies, tmp_path) as server,
        OfficialCli(server.url, codec, server.workspace) as cli,
    ):
        if user != "nov-2025":
            cli.client_headers = NEWER
            cli.user = several_and_text if user == "answers" else skipped
        run = await cli.start("conv-q", "m", cli.user_action("set up")).finish()
        requests = server.provider.requests
    assert run.end is not None and run.end.ok and run.errors == [], (run.end, run.errors)
    offered = {tool["name"] for tool in requests[0]["tools"]}
    result = " ".join(result_texts(requests[1]))
    if user == "nov-2025":
        assert run.of("interaction_query") == [] and "AskQuestion" not in offered
        assert "Unknown tool" in result
        return
    [query] = run.of("interaction_query")
    assert query.ask_question_interaction_query.tool_call_id == "toolu_ask_2"
    assert "AskQuestion" in offered
    if user == "answers":
        assert "-> Linux, macOS" in result and '-> \\"ledger\\"' in result
    else:
        assert "The user skipped the questions (skipped)" in result
