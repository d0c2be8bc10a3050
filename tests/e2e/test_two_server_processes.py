"""Two server processes on one PostgreSQL database: this one (in the test's
interpreter, to look at what it did) and `python -m cursor_byok serve` in a
process of its own. A client reads its RunSSE stream from the first and
sends each append to either, at random, the first to the other process: the
appends cross between processes through the database, the tool turn
completes, history is the same as when one server does everything, and the
other process calls no model."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from cursor_byok.store.database import PostgresURL
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.nodes import node
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.e2e.test_two_servers_one_interpreter import tool_llm, tool_turn, without_times
from tests.llm.loopback import LoopbackServer


@asynccontextmanager
async def serve_process(tmp_path: Path, database: PostgresURL) -> AsyncIterator[str]:
    """`serve` on `database` in a process of its own; its URL. Its model is
    a provider that answers nothing: the process must not call it."""
    provider = LoopbackServer()
    await provider.start()
    config = tmp_path / "config.toml"
    config.write_text(
        f'default_model = "test-model"\n[providers.a]\napi = "anthropic"\n'
        f'base_url = "{provider.base_url}"\napi_key = "sk-ant-test"\n'
        f'[models.test-model]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
    )
    port = free_port()
    process = start_serve(config, database, port)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
        assert process.returncode == 0, stderr
        assert provider.received == [], "the other process called its model"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        await provider.stop()


def start_serve(config: Path, database: PostgresURL, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"]
    return subprocess.Popen(
        [*command, "--port", str(port), "--database", database.url],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_appends_sent_to_either_process_complete_the_turn(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    alone_db, shared_db = postgres_server.new_database(), postgres_server.new_database()
    async with node(alone_db, tool_llm()) as alone:
        alone_kinds = await tool_turn(alone.url, [alone.url], "proto", seed=1)
        alone_history = alone.store.load("conv-1")
    async with serve_process(tmp_path, shared_db) as other, node(shared_db, tool_llm()) as here:
        kinds = await tool_turn(here.url, [here.url, other], "proto", seed=1)
        shared_history = here.store.load("conv-1")
        assert here.hub.relayed_in >= 1  # what reached the other process came through the database
        assert here.hub.relayed_out == 0
        assert len(here.llm.requests) == 2
    strip = ("heartbeat",)
    assert [k for k in kinds if k not in strip] == [k for k in alone_kinds if k not in strip]
    assert alone_history is not None and shared_history is not None
    assert without_times(shared_history.state.messages) == without_times(
        alone_history.state.messages
    )
    assert shared_history.state.status == alone_history.state.status
