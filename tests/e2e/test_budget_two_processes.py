"""Two `cursor-byok serve` processes on one PostgreSQL database race one
user's budget: eight clients, four on each process, start turns at once,
each in a chat of its own, again and again, while every model call takes a
while. However the turns interleave, the budget is overrun by at most one
call's cost: each call is admitted only if what was spent and what the
calls in flight hold is below the budget, checked and held in one locked
step in the database. Every call made is recorded, and every turn not made
ended with the budget card."""

from __future__ import annotations

import asyncio
import contextlib
import io
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cursor_byok.cli.main import main
from cursor_byok.client.client import CursorClient, End, run_request
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.llm.loopback import LoopbackServer, Reply, recording

TEXT = recording("anthropic/text-usage.sse")
"""Each call: 10 input and 4 output tokens."""
CALL_USD = 14 * 1000 / 1e6
"""A call's cost at the configured $1000 per million tokens."""
MOST_USD = (20 + 10) * 1000 / 1e6
"""What a call holds while it runs: its 20-token window and 10-token output
at that price (an upper bound on what it costs)."""
BUDGET_USD = 0.05
CLIENTS_PER_PROCESS = 4
TURNS_PER_CLIENT = 6


@contextlib.contextmanager
def serving(tmp_path: Path, name: str, database: PostgresURL, base_url: str) -> Iterator[str]:
    config = tmp_path / f"{name}.toml"
    config.write_text(
        f'default_model = "m"\n[providers.a]\napi = "anthropic"\nbase_url = "{base_url}"\n'
        'api_key = "sk-ant-test"\n[models.m]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
        "context_window = 20\nmax_output = 10\nprice = { input = 1000, output = 1000 }\n"
    )
    port = free_port()
    command = [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"]
    with (tmp_path / f"{name}.log").open("w") as log:
        process = subprocess.Popen(
            [*command, "--port", str(port), "--database", database.url],
            cwd=ROOT,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
        try:
            wait_for_port(port, process)
            yield f"http://127.0.0.1:{port}"
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)
            assert process.returncode == 0, (tmp_path / f"{name}.log").read_text()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


async def turns(url: str, token: str, name: str) -> list[str]:
    """One client's turns, one after another, each in a new chat: how each ended."""
    client = CursorClient(url, token=token)
    ends: list[str] = []
    try:
        for n in range(TURNS_PER_CLIENT):
            request_id = f"{name}-{n}"
            stream = await client.open(request_id)
            await client.append(request_id, 0, run_request("hi", f"conv-{request_id}", "m"))
            end = await stream.until(lambda item: isinstance(item, End), within=60)
            assert isinstance(end, End)
            ends.append("ok" if end.error is None else str(end.error["code"]))
    finally:
        await client.close()
    return ends


async def test_two_processes_racing_a_budget_overrun_it_by_at_most_one_call(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database = postgres_server.new_database()
    out = io.StringIO()
    args = ["users", "add", "ana", "--budget-usd", str(BUDGET_USD), "--period", "day"]
    assert main([*args, "--database", database.url], out) == 0
    token = out.getvalue().strip()
    enough = CLIENTS_PER_PROCESS * TURNS_PER_CLIENT
    providers = [
        LoopbackServer([Reply(TEXT, chunk_size=None) for _ in range(enough)], pace_s=0.05)
        for _ in range(2)
    ]
    for provider in providers:
        await provider.start()
    try:
        with (
            serving(tmp_path, "a", database, providers[0].base_url) as a,
            serving(tmp_path, "b", database, providers[1].base_url) as b,
        ):
            racing = [
                turns(url, token, f"{url[-5:]}-{n}")
                for url in (a, b)
                for n in range(CLIENTS_PER_PROCESS)
            ]
            ends = [end for client in await asyncio.gather(*racing) for end in client]
    finally:
        for provider in providers:
            await provider.stop()
    made = sum(len(provider.received) for provider in providers)
    assert set(ends) == {"ok", "resource_exhausted"}, ends
    assert ends.count("ok") == made  # each turn made one call; the others none
    store = open_store(database)
    try:
        user = store.user("ana")
        assert user is not None
        (row,) = store.usage_summary("user", "2000-01-01", "2999-12-31", user.id)
        # nothing is held any more: a new call is checked against spend alone
        after = store.reserve_budget("after", user.id, 0.0, 0, 1)
    finally:
        store.close()
    assert row.calls == made and after.held_usd == 0.0
    assert row.cost_usd == pytest.approx(made * CALL_USD)
    # the bound: past the budget by at most the last call admitted
    assert row.cost_usd <= BUDGET_USD + CALL_USD + 1e-9
    # and the race was run to the budget: it was reached, not merely approached
    assert row.cost_usd >= BUDGET_USD - 1e-9
    assert MOST_USD >= CALL_USD
