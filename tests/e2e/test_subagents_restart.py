"""A server-run subagent survives a kill -9: through a real `serve` process
killed (SIGKILL) while the child's model call streams, the restarted server
resumes the child where it stood (the same call, the same request bytes),
and the client's resume of the parent's turn finds the child and gets its
answer once: no child message, model call or result is duplicated."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from cursor_byok.llm.types import AssistantMessage, ToolResultMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.subagent_launch import child_conversation_id
from tests.e2e.independent_cli import OfficialCli
from tests.e2e.test_independent_cli import CLAUDE, say
from tests.e2e.test_restart import start_serve
from tests.e2e.test_todos_restart import result_texts
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.wire_streams import Call, Text, anthropic

NEWER = {"x-cursor-client-type": "cli", "x-cursor-client-version": "cli-2026.08.11-4a1b2c3"}
TASK = Call(
    "toolu_task_1",
    "Task",
    {"description": "Look around", "prompt": "CHILD: say what you see", "subagent_type": "explore"},
)
SERVER_MODE = '\n[subagents]\nmode = "server"\n'


async def test_a_kill_mid_child_resumes_the_child_and_answers_the_parent_once(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [
        Reply(anthropic([Text("Let me delegate."), TASK])),
        Reply(b"", hang=True),  # the child's call: it streams nothing until the kill
        say("I see two files."),  # the same call, resumed by the restarted server
        say("Two files, then."),
    ]
    config = tmp_path / "config.toml"
    config.write_text(CLAUDE.toml(provider.base_url) + SERVER_MODE)
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    try:
        async with OfficialCli(f"http://127.0.0.1:{port}", "proto", workspace) as cli:
            cli.client_headers = NEWER
            handle = cli.start("conv-s", "m", cli.user_action("what is in the folder?"))
            await handle.until(lambda run: bool(run.of("tool_call_started")))
            for _ in range(200):  # the child's model call is open
                if len(provider.received) >= 2:
                    break
                await asyncio.sleep(0.05)
            first.kill()
            await asyncio.to_thread(first.communicate, timeout=30)
            await handle.finish()
            second = await asyncio.to_thread(start_serve, config, database, port)
            resume = pb.ConversationAction()
            resume.resume_action.SetInParent()
            after = await cli.start("conv-s", "m", resume).finish(60)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await provider.stop()
    assert after.end is not None and after.end.ok, (after.end, after.errors)
    assert "Two files, then." in after.text()
    # Four model calls: the parent's, the child's (twice: the same call resumed,
    # byte for byte), the parent's after the result. No fifth.
    assert len(provider.received) == 4
    assert provider.received[2].body == provider.received[1].body
    assert "CHILD: say what you see" in provider.received[1].body.decode()
    assert "what is in the folder?" not in provider.received[1].body.decode()
    [result] = result_texts(provider.requests[3])
    assert "I see two files." in result and "This is the output of the subagent" in result
    store = SQLiteStore(database)
    try:
        parent = store.load("conv-s")
        child = store.load(child_conversation_id("conv-s", "toolu_task_1"))
    finally:
        store.close()
    assert parent is not None and child is not None
    results = [m for m in parent.state.messages if isinstance(m, ToolResultMessage)]
    assert [m.tool_call_id for m in results] == ["toolu_task_1"]
    answers = [m for m in child.state.messages if isinstance(m, AssistantMessage)]
    assert len(child.state.messages) == 2 and len(answers) == 1


BEHIND = Call(
    "toolu_task_bg",
    "Task",
    {
        "description": "Slow job",
        "prompt": "CHILD: do the slow job",
        "model": "c",
        "run_in_background": True,
    },
)


def two_models(parent_url: str, child_url: str) -> str:
    """The parent's model on one provider, the child's on another: each
    provider answers its own calls in order, whichever comes first."""
    return (
        'default_model = "m"\n'
        f'[providers.p]\napi = "anthropic"\nbase_url = "{parent_url}"\napi_key = "sk-test-a"\n'
        f'[providers.q]\napi = "anthropic"\nbase_url = "{child_url}"\napi_key = "sk-test-b"\n'
        '[models.m]\nprovider = "p"\nmodel = "claude-haiku-4-5"\n'
        '[models.c]\nprovider = "q"\nmodel = "claude-haiku-4-5"\n' + SERVER_MODE
    )


async def test_a_background_child_caught_by_a_kill_still_reaches_its_parent_once(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    parent_model, child_model = LoopbackServer(), LoopbackServer()
    await parent_model.start()
    await child_model.start()
    parent_model.replies = [
        Reply(anthropic([Text("Starting it."), BEHIND])),
        say("Started; I will tell you."),
        say("It is done: noted."),  # woken by the child's end, after the restart
    ]
    child_model.replies = [Reply(b"", hang=True), say("The slow job is done.")]
    config = tmp_path / "config.toml"
    config.write_text(two_models(parent_model.base_url, child_model.base_url))
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    try:
        async with OfficialCli(f"http://127.0.0.1:{port}", "proto", workspace) as cli:
            cli.client_headers = NEWER
            turn = await cli.start("conv-b", "m", cli.user_action("run the slow job")).finish()
        for _ in range(200):  # the child's model call is open
            if child_model.received:
                break
            await asyncio.sleep(0.05)
        first.kill()
        await asyncio.to_thread(first.communicate, timeout=30)
        second = await asyncio.to_thread(start_serve, config, database, port)
        for _ in range(300):  # nobody connects: the server carries it on alone
            if len(parent_model.received) >= 3:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # time for anything that would come twice
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await parent_model.stop()
        await child_model.stop()
    assert turn.end is not None and turn.end.ok, (turn.end, turn.errors)
    assert "Started; I will tell you." in turn.text()
    assert len(child_model.received) == 2
    assert child_model.received[1].body == child_model.received[0].body
    assert len(parent_model.received) == 3
    woken = json.dumps(parent_model.requests[2]["messages"][-1])
    assert "has finished" in woken and "The slow job is done." in woken
    store = SQLiteStore(database)
    try:
        parent = store.load("conv-b")
    finally:
        store.close()
    assert parent is not None
    assert sum("has finished" in str(m) for m in parent.state.messages) == 1
