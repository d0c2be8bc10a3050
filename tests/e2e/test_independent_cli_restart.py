"""The official CLI's client against a `serve` process killed with SIGKILL
after one tool round trip while a second exec is pending: the CLI reconnects
with the same request id, seqno restarting at 0, and the turn finishes once,
with the history an uninterrupted run has."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.independent_cli import CODECS, OfficialCli, RunHandle
from tests.e2e.provider_turns import server_for
from tests.e2e.test_independent_cli import CLAUDE, READ, calls, say
from tests.e2e.test_restart import start_serve
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.wire_streams import Call

READ_B = Call("toolu_read_b", "read_file", {"path": "b.txt"})


def replies() -> list[Reply]:
    return [calls(READ), calls(READ_B), say("Both files read.")]


def untimed(messages: Any) -> list[Any]:
    """History without the wall-clock stamps, which two runs cannot share."""
    return [replace(m, timestamp=0) if hasattr(m, "timestamp") else m for m in messages]


def history(store_path: Path, conversation_id: str) -> list[Any]:
    store = SQLiteStore(store_path)
    try:
        loaded = store.load(conversation_id)
    finally:
        store.close()
    assert loaded is not None
    return untimed(loaded.state.messages)


async def uninterrupted(tmp_path: Path, codec: str) -> list[Any]:
    async with (
        server_for(CLAUDE, replies(), tmp_path) as server,
        OfficialCli(server.url, codec, server.workspace) as cli,
    ):
        run = await cli.start("conv-k", "m", cli.user_action("read a.txt and b.txt")).finish()
        assert run.end is not None and run.end.ok, run.end
        loaded = server.store.load("conv-k")
    assert loaded is not None
    return untimed(loaded.state.messages)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_reconnect_after_sigkill_finishes_the_turn_once(tmp_path: Path, codec: str) -> None:
    (tmp_path / "reference").mkdir()
    expected = await uninterrupted(tmp_path / "reference", codec)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (workspace / name).write_text(f"contents of {name}\n")
    provider = LoopbackServer()
    await provider.start()
    provider.replies = replies()
    config = tmp_path / "config.toml"
    config.write_text(CLAUDE.toml(provider.base_url))
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    try:
        async with OfficialCli(f"http://127.0.0.1:{port}", codec, workspace) as cli:
            pending = asyncio.Event()

            async def answer_one(request: pb.ExecServerMessage, _h: RunHandle) -> bool:
                if request.read_args.path == "b.txt":
                    pending.set()
                    return False
                return True

            cli.exec_hook = answer_one
            request_id = "req-killed"
            handle = cli.start("conv-k", "m", cli.user_action("read a.txt and b.txt"), request_id)
            await asyncio.wait_for(pending.wait(), 30)
            first.kill()
            await asyncio.to_thread(first.communicate, timeout=30)
            await handle.finish()
            second = await asyncio.to_thread(start_serve, config, database, port)
            cli.exec_hook = None
            resume = pb.ConversationAction()
            resume.resume_action.SetInParent()
            run = await cli.start("conv-k", "m", resume, request_id).finish(60)
        assert run.end is not None and run.end.ok, (run.end, run.errors)
        assert run.text().count("Both files read.") == 1
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await provider.stop()
    assert history(database, "conv-k") == expected
    assert run.dropped == []  # cards on the reconnected stream carry the model call id
