"""kill -9 of the process that owns a turn, with two real `serve` processes on
one PostgreSQL database: the other takes the turn over once the lease has
expired, calls the model again with the same bytes, and a client that resumes
there gets the rest of the turn, once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from cursor_byok.store.database import PostgresURL
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.transport.cursor.client import CursorClient, End, kind, run_request
from cursor_byok.transport.wire.http_server import free_port
from tests.e2e.test_restart import RECORDED, resume_request
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.llm.loopback import LoopbackServer, Reply
from tests.store.postgres_server import PostgresServer

LEASE_S = 1.0
CUT = RECORDED.index(b"event: message_delta")


def start_serve(config: Path, database: PostgresURL, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--database", database.url],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_port(port, process)
    return process


async def owner_of(database: PostgresURL, conversation_id: str) -> str | None:
    def read() -> str | None:
        with psycopg.connect(database.url) as conn:
            row = conn.execute(
                "SELECT owner FROM conversation_leases WHERE conversation_id = %s",
                (conversation_id,),
            ).fetchone()
        return None if row is None else str(row[0])

    return await asyncio.to_thread(read)


async def test_kill_9_of_the_owner_mid_turn_the_other_finishes_it_once(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [Reply(RECORDED[:CUT], hang=True), Reply(RECORDED)]
    config = tmp_path / "config.toml"
    config.write_text(
        f'default_model = "claude"\n[server]\nlease_s = {LEASE_S}\n'
        f'[providers.a]\napi = "anthropic"\nbase_url = "{provider.base_url}"\n'
        f'api_key = "sk-ant-test"\n[models.claude]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
    )
    database = postgres_server.new_database()
    port_a, port_b = free_port(), free_port()
    a, b = start_serve(config, database, port_a), start_serve(config, database, port_b)
    try:
        on_a, on_b = (
            CursorClient(f"http://127.0.0.1:{port_a}"),
            CursorClient(f"http://127.0.0.1:{port_b}"),
        )
        stream = await on_a.open("r-1")
        await on_b.append("r-1", 0, run_request("hello", model="claude"))  # relayed to a
        await stream.until(lambda i: kind(i) == "text_delta", within=20)
        owner = await owner_of(database, "conv-1")
        assert owner is not None and f":{a.pid}:" in owner
        os.kill(a.pid, signal.SIGKILL)
        killed = time.monotonic()
        while len(provider.received) < 2:  # b calls the model again once it took over
            assert time.monotonic() - killed < 10 * LEASE_S, "no process took the turn over"
            await asyncio.sleep(0.02)
        takeover_s = time.monotonic() - killed
        owner = await owner_of(database, "conv-1")
        assert owner is not None and f":{b.pid}:" in owner

        resumed = await on_b.open("r-2")
        await on_b.append("r-2", 0, resume_request())
        end = await resumed.until(lambda i: isinstance(i, End), within=30)
        await on_a.close()
        await on_b.close()
    finally:
        for process in (a, b):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            process.communicate(timeout=30)
        await provider.stop()
    assert LEASE_S * 0.5 < takeover_s <= 2 * LEASE_S
    assert isinstance(end, End) and end.error is None
    assert [kind(i) for i in resumed.received].count("turn_ended") == 1
    assert len(provider.received) == 2
    assert provider.received[0].body == provider.received[1].body  # the same call, same bytes
    store = PostgresStore(database)
    loaded = store.load("conv-1")
    calls = store.llm_calls("conv-1")
    store.close()
    assert loaded is not None and loaded.state.status.value == "final"
    assert [type(m).__name__ for m in loaded.state.messages] == ["UserMessage", "AssistantMessage"]
    assert len(calls) == 1
