"""A client-run subagent survives a kill -9 of the server: through a real
`serve` process killed (SIGKILL) while the child's model call streams, the
IDE-like client (subagent_cli.py) resumes the child on a request of its
own and the parent on another; the restarted server finds the child the
client started for the Task call (linked when its run first arrived) and
answers the parent with its final message once, without asking the client
for a second subagent."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from pathlib import Path

from cursor_byok.llm.types import ToolResultMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.official_cli import CliTurn, resume, user_message
from tests.e2e.subagent_cli import SubagentCli
from tests.e2e.test_independent_cli import CLAUDE, say
from tests.e2e.test_restart import start_serve
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.wire_streams import Call, Text, anthropic

TASK = Call(
    "toolu_task_c",
    "Task",
    {"description": "Look around", "prompt": "CHILD: say what you see", "subagent_type": "explore"},
)
CLIENT_MODE = '\n[subagents]\nmode = "client"\n'


async def _broken(run: asyncio.Task[CliTurn]) -> None:
    """The parent's first run, cut off by the kill."""
    with contextlib.suppress(OSError, TimeoutError, AssertionError):
        await run


async def test_a_kill_mid_child_then_both_resumed_answers_the_parent_once(
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
    config.write_text(CLAUDE.toml(provider.base_url) + CLIENT_MODE)
    database = tmp_path / "state.sqlite3"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    cli = SubagentCli(url, "proto", workspace)
    try:
        action = user_message("what is in the folder?", cli.context)
        running = asyncio.create_task(cli.run(action, "m", conversation_id="conv-k"))
        for _ in range(200):  # the child's model call is open
            if len(provider.received) >= 2 and cli.children:
                break
            await asyncio.sleep(0.05)
        first.kill()
        await asyncio.to_thread(first.communicate, timeout=30)
        await _broken(running)
        await cli.settle()
        [child] = cli.children
        assert child.client is not None
        second = await asyncio.to_thread(start_serve, config, database, port)
        child_again = asyncio.create_task(
            child.client.run(
                resume(), "m", conversation_id=child.agent_id, request_id=str(uuid.uuid4())
            )
        )
        after = await cli.run(resume(), "m", conversation_id="conv-k")
        child_turn = await child_again
        await cli.settle()
    finally:
        await cli.close()
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await provider.stop()
    assert after.error is None, (after.error, after.error_details)
    assert child_turn.error is None, child_turn.error
    assert len(cli.children) == 1, "the client is never asked for a second subagent"
    assert [e for e in after.execs if e.WhichOneof("message") == "subagent_args"] == []
    assert "Two files, then." in after.text
    # Four model calls: the parent's, the child's (twice: the same call
    # resumed), the parent's after the result. No fifth.
    assert len(provider.received) == 4
    assert provider.received[2].body == provider.received[1].body
    store = SQLiteStore(database)
    try:
        parent = store.load("conv-k")
    finally:
        store.close()
    assert parent is not None
    results = [m for m in parent.state.messages if isinstance(m, ToolResultMessage)]
    assert [m.tool_call_id for m in results] == ["toolu_task_c"]
    assert "I see two files." in str(results[0].content)
