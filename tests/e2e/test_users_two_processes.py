"""Two `cursor-byok serve` processes on one PostgreSQL database, two users:
their appends and streams cross between the processes through the database,
yet each user's ids stay theirs (another's request or conversation id is
answered on either process as one never used), and `users revoke` and
`users rotate` stop a token that both processes had already checked at its
very next request on each."""

from __future__ import annotations

import asyncio
import contextlib
import io
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cursor_byok.cli.main import main
from cursor_byok.client.client import CursorClient, End, Stream, kind, run_request
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.owners import scoped
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.e2e.users import resume, shown, to_the_end
from tests.llm.loopback import LoopbackServer, Reply, recording

TEXT = recording("anthropic/text-usage.sse")
PROTO = {"content-type": "application/proto"}
MODELS_PATH = "/aiserver.v1.AiService/AvailableModels"


@dataclass
class Pair:
    a: str
    b: str
    database: PostgresURL
    providers: list[LoopbackServer]

    def user_client(self, url: str, token: str) -> CursorClient:
        return CursorClient(url, token=token)

    def model_requests(self) -> list[bytes]:
        return [r.body for provider in self.providers for r in provider.received]


def users_command(database: PostgresURL, *args: str) -> str:
    out = io.StringIO()
    assert main(["users", *args, "--database", database.url], out) == 0
    return out.getvalue().strip()


@contextlib.contextmanager
def serving(tmp_path: Path, name: str, database: PostgresURL, base_url: str) -> Iterator[str]:
    config = tmp_path / f"{name}.toml"
    config.write_text(
        f'default_model = "test-model"\n[providers.a]\napi = "anthropic"\n'
        f'base_url = "{base_url}"\napi_key = "sk-ant-test"\n'
        f'[models.test-model]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
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


@contextlib.asynccontextmanager
async def two_processes(tmp_path: Path, database: PostgresURL) -> AsyncIterator[Pair]:
    providers = [LoopbackServer([Reply(TEXT) for _ in range(4)]) for _ in range(2)]
    for provider in providers:
        await provider.start()
    try:
        with (
            serving(tmp_path, "a", database, providers[0].base_url) as a,
            serving(tmp_path, "b", database, providers[1].base_url) as b,
        ):
            yield Pair(a, b, database, providers)
    finally:
        for provider in providers:
            await provider.stop()


async def test_each_users_ids_stay_theirs_across_processes(
    postgres_server: PostgresServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = postgres_server.new_database()
    ana_token = users_command(database, "add", "ana")
    bob_token = users_command(database, "add", "bob")
    async with two_processes(tmp_path, database) as pair:
        ana_a, ana_b = (pair.user_client(url, ana_token) for url in (pair.a, pair.b))
        bob_a, bob_b = (pair.user_client(url, bob_token) for url in (pair.a, pair.b))
        opened: list[Stream] = []
        try:
            # Ana's turn: her stream on a, her run request through b.
            stream = await ana_a.open("req-a")
            await ana_b.append("req-a", 0, run_request("Ana's secret question", "conv-a"))
            assert shown(await to_the_end(stream, 30))[-1] == ("end", None)
            # Her finished request ends at once for her on a; for Bob, on
            # either process, it is one never seen, like an unused id.
            again = await ana_a.open("req-a")
            assert shown(await to_the_end(again)) == [("end", None)]
            # (opened together: each waits for its first heartbeat, 5 s)
            pairs = [(c, r) for c in (bob_a, bob_b) for r in ("req-a", "req-never")]
            for client, request_id in pairs:
                opened.append(await client.open(request_id))
            firsts = await asyncio.gather(*(attached.next(within=15) for attached in opened))
            for (client, request_id), first in zip(pairs, firsts, strict=True):
                assert kind(first) == "heartbeat", (request_id, first)
                answered = await client.append(request_id, 5, run_request("x", "conv-x"))
                assert answered.status == 200
            # Resuming her conversation is resuming one that does not exist.
            seen = {}
            for n, (client, conversation_id) in enumerate(
                ((bob_b, "conv-a"), (bob_a, "conv-a"), (bob_b, "conv-never"))
            ):
                resumed = await client.open(f"req-resume-{n}")
                await client.append(f"req-resume-{n}", 0, resume(conversation_id))
                seen[n] = shown(await to_the_end(resumed, 30))
            assert seen[0] == seen[1] == seen[2] and "exec" not in seen[0]
            # Reading it from the command line is reading one that does not exist.
            capsys.readouterr()
            said = []
            for conversation_id in ("conv-a", "conv-never"):
                args = ["show", conversation_id, "--user", "bob", "--database", database.url]
                assert main(args, io.StringIO()) == 3
                said.append(capsys.readouterr().err.replace(conversation_id, "ID"))
            assert said[0] == said[1] and "no conversation 'ID'" in said[0]
            # A new message on her conversation id starts Bob's own.
            mine = await bob_a.open("req-b")
            await bob_b.append("req-b", 0, run_request("Bob's question", "conv-a"))
            assert shown(await to_the_end(mine, 30))[-1] == ("end", None)
        finally:
            for attached in opened:
                if attached.task is not None:
                    attached.task.cancel()
            for client in (ana_a, ana_b, bob_a, bob_b):
                await client.close()
        bobs_call = next(body for body in pair.model_requests() if b"Bob's question" in body)
        assert b"Ana's secret question" not in bobs_call
    store = open_store(database)
    try:
        ana, bob = store.user("ana"), store.user("bob")
        assert ana is not None and bob is not None
        anas = store.load(scoped(ana.id, "conv-a"))
        bobs = store.load(scoped(bob.id, "conv-a"))
        assert anas is not None and len(anas.state.messages) == 2
        assert bobs is not None and len(bobs.state.messages) == 2
        assert "Ana's secret question" not in repr(bobs.state.messages)
        assert {s.owner for s in store.conversations(bob.id)} == {bob.id}
    finally:
        store.close()


async def test_revoke_and_rotate_reach_every_process_at_the_next_request(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    database = postgres_server.new_database()
    old = users_command(database, "add", "bob")
    async with two_processes(tmp_path, database) as pair:
        clients = [pair.user_client(url, old) for url in (pair.a, pair.b)]
        try:
            for client in clients * 2:  # checked once on each, then remembered
                assert (await client.post(MODELS_PATH, b"", PROTO)).status == 200
            users_command(database, "revoke", "bob")
            for client in clients:
                refused = await client.post(MODELS_PATH, b"", PROTO)
                assert refused.status == 401, refused.text
            new = users_command(database, "rotate", "bob")
            for client in clients:
                assert (await client.post(MODELS_PATH, b"", PROTO)).status == 401
            for url in (pair.a, pair.b):
                renewed = pair.user_client(url, new)
                try:
                    assert (await renewed.post(MODELS_PATH, b"", PROTO)).status == 200
                    stream = await renewed.open("req-1")
                    await renewed.append("req-1", 0, run_request("hi", f"conv-{url[-5:]}"))
                    end = await stream.until(lambda item: isinstance(item, End), within=30)
                    assert isinstance(end, End) and end.error is None
                finally:
                    await renewed.close()
        finally:
            for client in clients:
                await client.close()
