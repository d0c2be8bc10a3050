"""Restarts a real `serve` process survives without running a command twice
or losing an acknowledgement (README "Reliability"): `kill -9` between a
connection lost mid-command and the client's resume, and between a message
typed during the turn and its `user_message_appended`. The client plays the
official CLI (tests/e2e/official_cli.py); the model is a loopback server
playing recorded-style Anthropic streams."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from cursor_byok.llm.types import ToolResultMessage, UserMessage
from cursor_byok.loop.state import ConversationState
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.official_cli import OfficialCli, ShellDrop, resume, user_message
from tests.e2e.test_queued_messages import typed
from tests.e2e.test_restart import start_serve
from tests.e2e.test_restart_reconnect import config
from tests.llm import wire_streams as wire
from tests.llm.loopback import LoopbackServer, Reply

COMMAND = "rm -rf build && make release"
BEFORE = "removed 'build/app'\n"
AFTER = "cc -O2 -o build/app main.c\n"
NOTE = "and tag the release when it is built"


def stored(database: Path) -> ConversationState:
    state = stored_now(database)
    assert state is not None
    return state


def stored_now(database: Path) -> ConversationState | None:
    if not database.exists():
        return None
    store = SQLiteStore(database)
    try:
        loaded = store.load("conv-1")
    finally:
        store.close()
    return None if loaded is None else loaded.state


@asynccontextmanager
async def serving(tmp_path: Path, replies: list[Reply]) -> AsyncIterator[Server]:
    provider = LoopbackServer()
    await provider.start()
    provider.replies = replies
    server = Server(config(tmp_path, provider), tmp_path / "state.sqlite3", provider)
    try:
        yield server
    finally:
        server.stop()
        await provider.stop()


class Server:
    """One `serve` process at a time on one port and one database."""

    def __init__(self, settings: Path, database: Path, provider: LoopbackServer) -> None:
        self.settings = settings
        self.database = database
        self.provider = provider
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> str:
        self.process = start_serve(self.settings, self.database, self.port)
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.communicate(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.communicate(timeout=30)


async def test_a_restart_between_a_lost_command_and_the_resume_never_runs_it_twice(
    tmp_path: Path,
) -> None:
    replies = [
        Reply(
            wire.anthropic(
                [
                    wire.Text("Rebuilding."),
                    wire.Call("toolu_1", "run_terminal_cmd", {"command": COMMAND}),
                ]
            )
        ),
        Reply(wire.anthropic([wire.Text("It may have finished; let me look at build/.")])),
    ]
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    async with serving(tmp_path, replies) as server:
        cli = OfficialCli(server.start(), "proto", workspace)
        cli.drop_mid_shell[COMMAND] = ShellDrop(BEFORE, AFTER)
        lost = await cli.run(user_message("rebuild", cli.context), "claude", "conv-1")
        await cli.close()
        assert lost.dropped_stream and len(lost.execs) == 1
        # The output before and after the drop was committed as it came.
        assert stored(server.database).waiting.output == BEFORE + AFTER  # type: ignore[union-attr]
        server.kill()

        cli.client = OfficialCli(server.start(), "proto", workspace).client
        resumed = await cli.run(resume(), "claude", "conv-1")
        await cli.close()
        state = stored(server.database)
        bodies = [r.json() for r in server.provider.received]
    assert resumed.violations == [] and resumed.error is None
    assert resumed.execs == []  # the command was not asked again
    assert resumed.text == "It may have finished; let me look at build/."
    assert len(bodies) == 2
    sent = json.dumps(bodies[1])
    assert sent.count(BEFORE.strip()) == 1 and sent.count(AFTER.strip()) == 1
    assert sent.count("was not run again") == 1
    [result] = [m for m in state.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error and COMMAND in result.content[0].text  # type: ignore[union-attr]


async def test_a_restart_between_a_typed_message_and_its_acknowledgement_loses_neither(
    tmp_path: Path,
) -> None:
    working = wire.anthropic([wire.Text("Building the release now.")])
    cut = working.index(b"event: message_delta")
    replies = [
        Reply(working[:cut], hang=True),  # the model is still answering at the kill
        Reply(working),  # the same call, made again after the restart
        Reply(wire.anthropic([wire.Text("Tagged too.")])),
    ]
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    async with serving(tmp_path, replies) as server:
        cli = OfficialCli(server.start(), "proto", workspace)
        run = asyncio.create_task(
            cli.run(
                user_message("build the release", cli.context),
                "claude",
                "conv-1",
                during=[typed(NOTE, "typed-1")],
            )
        )
        for _ in range(1000):  # until the typed message is committed (queued)
            state = stored_now(server.database)
            if state is not None and state.queued:
                break
            await asyncio.sleep(0.01)
        server.kill()
        lost = await run
        await cli.close()
        assert lost.appended == []  # not in history yet: not acknowledged

        cli.client = OfficialCli(server.start(), "proto", workspace).client
        resumed = await cli.run(resume(), "claude", "conv-1")
        await cli.close()
        state = stored(server.database)
        bodies = [r.json() for r in server.provider.received]
    assert resumed.violations == [] and resumed.error is None
    assert resumed.appended == ["typed-1"]  # acknowledged once, after the restart
    assert resumed.text.endswith("Tagged too.")
    assert len(bodies) == 3 and json.dumps(bodies[2]).count(NOTE) == 1
    notes = [m for m in state.messages if isinstance(m, UserMessage) and m.content == NOTE]
    assert len(notes) == 1 and state.queued == () and state.queued_refs == ()
