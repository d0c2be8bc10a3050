"""`serve --workers 2` on PostgreSQL: two processes on one port answer turns
whichever of them each request reaches; one killed is replaced; SIGTERM to
the parent stops them all. A SQLite database is refused with --workers 2."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cursor_byok.client.client import CursorClient, End, kind, run_request
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.test_restart import RECORDED
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.llm.loopback import LoopbackServer, Reply


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.update(int(p) for p in text)
    return found


def start_workers(config: Path, database: str, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"]
    return subprocess.Popen(
        [*command, "--port", str(port), "--database", database, "--workers", "2"],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


async def wait_for(check: Callable[[], bool], what: str, within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_two_workers_share_a_port_and_a_dead_one_is_replaced(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [Reply(RECORDED) for _ in range(4)]
    config = tmp_path / "config.toml"
    config.write_text(
        f'default_model = "claude"\n[providers.a]\napi = "anthropic"\n'
        f'base_url = "{provider.base_url}"\napi_key = "sk-ant-test"\n'
        f'[models.claude]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
    )
    database, port = postgres_server.new_database(), free_port()
    parent = start_workers(config, database.url, port)
    try:
        wait_for_port(port, parent)
        await wait_for(lambda: len(children(parent.pid)) == 2, "two workers")
        first = children(parent.pid)
        for n in range(2):
            client = CursorClient(f"http://127.0.0.1:{port}")
            stream = await client.open(f"r-{n}")
            message = run_request(f"hello {n}", conversation_id=f"conv-{n}", model="claude")
            await client.append(f"r-{n}", 0, message)
            end = await stream.until(lambda i: isinstance(i, End), within=30)
            await client.close()
            assert isinstance(end, End) and end.error is None
            assert "turn_ended" in [kind(i) for i in stream.received]
            if n == 0:
                os.kill(min(first), signal.SIGKILL)
                await wait_for(
                    lambda: len(children(parent.pid) - first) == 1, "a replacement worker"
                )
        parent.send_signal(signal.SIGTERM)
        _, stderr = parent.communicate(timeout=30)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.communicate()
        await provider.stop()
    assert parent.returncode == 0, stderr
    assert "starting another" in stderr
    assert len(provider.received) == 2


def test_workers_refuse_a_sqlite_database(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cursor_byok", "serve", "--workers", "2", "--port", "1"],
        cwd=ROOT,
        env=clean_env(XDG_CONFIG_HOME=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "--workers 2 needs a PostgreSQL database" in done.stderr
