"""What only the PostgreSQL backend has: a versioned schema table, start-up by
several processes at once, a clear error when the server is not there, and
the command line on a `postgresql://` URL."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import httpx2
import pytest
from psycopg.conninfo import conninfo_to_dict

from cursor_byok.client.client import CursorClient, End, run_request
from cursor_byok.llm.types import UserMessage
from cursor_byok.loop import ConversationState, Status
from cursor_byok.loop.state import IDLE_STATUSES
from cursor_byok.store.base import VersionConflict
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.executor import Executor
from cursor_byok.store.migrations import SchemaTooNew
from cursor_byok.store.opener import open_store
from cursor_byok.store.postgres import PostgresStore, StoreUnavailable
from cursor_byok.store.postgres_schema import MIGRATIONS
from cursor_byok.store.scratch_postgres import PostgresServer
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.health import HEALTH_CACHE_S
from cursor_byok.transport.http.http_server import free_port
from tests.cli.test_cli import cli, seed
from tests.cli.test_cli_operator import one_line_error
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.fakes import ScriptedLLM
from tests.store.conftest import Backend
from tests.store.test_store import grown, rival_lands_before_the_write


@pytest.fixture
def database(postgres_server: PostgresServer) -> PostgresURL:
    return postgres_server.new_database()


def versions(database: PostgresURL) -> list[int]:
    rows = Backend("postgresql", database).rows("SELECT version FROM schema_version ORDER BY 1")
    return [row[0] for row in rows]


def test_the_schema_is_migrated_once_even_by_processes_starting_together(
    database: PostgresURL,
) -> None:
    barrier = threading.Barrier(4)

    def start(_: int) -> None:
        barrier.wait()
        PostgresStore(database).close()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(start, range(4)))  # an error in any start is raised here
    assert versions(database) == list(range(1, len(MIGRATIONS) + 1))
    PostgresStore(database).close()
    assert versions(database) == list(range(1, len(MIGRATIONS) + 1))


def test_a_newer_schema_is_refused_with_a_clear_error(database: PostgresURL) -> None:
    PostgresStore(database).close()
    import psycopg  # noqa: PLC0415

    with psycopg.connect(database.url) as conn:
        conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (len(MIGRATIONS) + 1,))
    with pytest.raises(SchemaTooNew, match="upgrade cursor-byok"):
        PostgresStore(database)


def test_an_unreachable_server_is_a_clear_error_without_the_password(
    postgres_server: PostgresServer,
) -> None:
    url = PostgresURL(f"postgresql://someone:s3cret@/db?host={postgres_server.root}/nowhere")
    with pytest.raises(StoreUnavailable, match="cannot use PostgreSQL") as raised:
        PostgresStore(url, connect_timeout=2)
    assert "s3cret" not in str(raised.value)
    assert "someone:***@" in str(raised.value)


def drop(database: PostgresURL, server: PostgresServer) -> None:
    """Remove the database under a running store, its connections cut."""
    with server.admin() as conn:
        conn.execute(f"DROP DATABASE {conninfo_to_dict(database.url)['dbname']} WITH (FORCE)")


def test_ping_and_calls_say_unavailable_once_the_database_is_gone(
    database: PostgresURL, postgres_server: PostgresServer
) -> None:
    store = PostgresStore(database, connect_timeout=2)
    try:
        store.ping()
        drop(database, postgres_server)
        with pytest.raises(StoreUnavailable, match="does not answer"):
            store.ping(timeout=2)
        with pytest.raises(StoreUnavailable, match="no connection to PostgreSQL"):
            store.load("conv-1")
    finally:
        store.close()


def test_normal_durability_turns_synchronous_commit_off(database: PostgresURL) -> None:
    for durability, expected in (("full", "on"), ("normal", "off")):
        store = open_store(database, durability)  # type: ignore[arg-type]
        assert isinstance(store, PostgresStore)
        try:
            with store._read() as db:
                assert db.execute("SHOW synchronous_commit").fetchone()[0] == expected
        finally:
            store.close()


def test_the_cli_lists_and_shows_conversations_on_postgresql(database: PostgresURL) -> None:
    store = PostgresStore(database)
    seed(store)
    store.close()
    listing = cli("conversations", "--database", database.url)
    assert listing.returncode == 0, listing.stderr
    assert "conv-9" in listing.stdout and "final" in listing.stdout
    shown = cli("show", "conv-9", "--database", database.url)
    assert shown.returncode == 0 and "It says hello." in shown.stdout
    assert cli("show", "nobody", "--database", database.url).returncode == 3


def test_an_unreachable_database_is_one_line_and_exit_1_without_the_password(
    postgres_server: PostgresServer,
) -> None:
    url = f"postgresql://postgres:hunter22@/db?host={postgres_server.root}/nowhere"
    for command in ("serve", "conversations"):
        line = one_line_error(cli(command, "--database", url), 1, "cannot use PostgreSQL")
        assert "hunter22" not in line and "postgres:***@" in line


async def test_healthz_reports_whether_the_database_answers(
    database: PostgresURL, postgres_server: PostgresServer
) -> None:
    store = PostgresStore(database)
    service = build_service(store, ScriptedLLM([]))
    try:
        async with serving(service) as url:
            client = CursorClient(url)
            try:
                healthy = await client.get("/healthz")
                assert (healthy.status, healthy.text) == (200, "ok\ndatabase: reachable\n")
                drop(database, postgres_server)
                await asyncio.sleep(HEALTH_CACHE_S)  # the answer before is kept that long
                gone = await client.get("/healthz")
                assert (gone.status, gone.text) == (503, "database: unreachable\n")
            finally:
                await client.close()
    finally:
        store.close()


@pytest.fixture
def serving_on_postgresql(database: PostgresURL) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`cursor-byok serve --database postgresql://...` as a process."""
    port = free_port()
    command = [sys.executable, "-m", "cursor_byok", "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--database", database.url],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}", process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=20)


async def test_serve_on_postgresql_answers_a_turn_and_stores_it(
    serving_on_postgresql: tuple[str, subprocess.Popen[str]], database: PostgresURL
) -> None:
    url, process = serving_on_postgresql
    client = CursorClient(url)
    try:
        stream = await client.open("r-1")
        await client.append("r-1", 0, run_request("hello"))
        end = await stream.until(lambda item: isinstance(item, End), within=20)
        health = await client.get("/healthz")
    finally:
        await client.close()
    assert isinstance(end, End) and end.error is None
    assert health.status == 200
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0
    store = PostgresStore(database)
    try:
        [summary] = store.conversations()
        loaded = store.load(summary.conversation_id)
    finally:
        store.close()
    assert loaded is not None and loaded.state.status in IDLE_STATUSES
    [asked, *_] = loaded.state.messages
    assert isinstance(asked, UserMessage) and "hello" in str(asked.content)


def test_serve_never_logs_a_password_libpq_reads_past_a_hash_or_question_mark(
    database: PostgresURL, postgres_server: PostgresServer
) -> None:
    """The scratch server trusts local connections, so any password serves;
    neither the listening line nor the warning of a failed health check
    may print it."""
    name = conninfo_to_dict(database.url)["dbname"]
    url = f"postgresql://postgres:pw#se?cret@/{name}?host={postgres_server.root}"
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "cursor_byok", "serve", "--port", str(port), "--database", url],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        drop(database, postgres_server)
        assert httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 503
        process.send_signal(signal.SIGTERM)
        _, logged = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=20)
    assert "listening on" in logged and "health check: database unreachable" in logged
    assert "postgres:***@" in logged
    assert "se?cret" not in logged and "pw#se" not in logged


def test_a_server_restart_fails_no_call_though_every_pooled_connection_died(
    database: PostgresURL, postgres_server: PostgresServer
) -> None:
    store = PostgresStore(database)
    try:
        with contextlib.ExitStack() as held:  # four connections, idle in the pool after
            for _ in range(4):
                held.enter_context(store._read())
        assert store._pool.get_stats()["pool_size"] == 4
        postgres_server.restart()
        state = grown(ConversationState("conv-1"), "a")
        assert store.commit_input("in-1", 0, state, None) == 1
        for _ in range(5):
            loaded = store.load("conv-1")
            assert loaded is not None and loaded.state == state
    finally:
        store.close()


def test_a_connection_cut_at_commit_is_unavailable_and_stores_nothing(
    database: PostgresURL, postgres_server: PostgresServer
) -> None:
    store = PostgresStore(database)
    begin = store._transaction

    @contextlib.contextmanager
    def cut_before_commit(flush: bool = True) -> Iterator[Executor]:
        with begin(flush) as db:
            yield db
            pid = db.execute("SELECT pg_backend_pid()").fetchone()[0]
            with postgres_server.admin() as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

    store._transaction = cut_before_commit  # type: ignore[method-assign]
    try:
        with pytest.raises(StoreUnavailable, match="during a commit"):
            store.commit_input("in-1", 0, grown(ConversationState("conv-1"), "a"), None)
        assert store.load("conv-1") is None
        assert store.find_input_commit("conv-1", "in-1") is None
    finally:
        store.close()


def test_two_writers_past_the_version_check_are_settled_by_the_write(
    database: PostgresURL, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes commit on top of one version. Without the row lock both
    pass the check against the row they read; the rival's commit lands in
    between, and the write's own `AND version = ?` finds the row moved
    (READ COMMITTED: the UPDATE reads the row as last committed): the rival
    wins, the other one is a conflict and writes nothing."""
    mine, theirs = PostgresStore(database), PostgresStore(database)
    try:
        base = grown(ConversationState("conv-1"), "a")
        mine.commit_input("in-1", 0, base, None)
        rival = grown(base, "rival")

        def rival_commits(_db: Executor) -> None:
            assert theirs.commit_input("in-rival", 1, rival, None) == 2

        monkeypatch.setattr(mine, "lock_row", "")
        monkeypatch.setattr(mine, "_transaction", rival_lands_before_the_write(mine, rival_commits))
        # A new status, no new message: nothing but the version can refuse it.
        late = replace(base, status=Status.FINAL)
        with pytest.raises(VersionConflict, match="changed"):
            mine.commit_input("in-2", 1, late, None)
        monkeypatch.undo()
        loaded = mine.load("conv-1")
        assert loaded is not None and (loaded.version, loaded.state) == (2, rival)
        assert mine.find_input_commit("conv-1", "in-2") is None
    finally:
        mine.close()
        theirs.close()
