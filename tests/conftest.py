"""Fixtures shared by several suites: a real PostgreSQL server of the tests' own.

Without PostgreSQL's binaries the PostgreSQL tests fail under CI (the env var
CI set), so a machine that lost them cannot pass quietly; elsewhere they are
skipped with the reason.

Every teardown is bounded too (see `pytest_runtest_teardown`).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator

import pytest
import pytest_timeout  # type: ignore[import-untyped]

from cursor_byok.store.scratch_postgres import MISSING, PostgresServer, find_binaries
from cursor_byok.transport.sessions import kv_answers


@pytest.fixture(autouse=True)
def short_kv_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most test clients never answer the server's KV requests, so each of
    their turns would end only after the server's full wait for the answers;
    in-process servers here wait a moment instead. The tests of that wait
    pass the real bound (`kv_answers.KV_ANSWER_WAIT_S`) themselves."""
    monkeypatch.setattr(kv_answers, "KV_ANSWER_WAIT_S", 0.05)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    binaries = find_binaries()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail(f"{MISSING}; CI must install them (see .ci/run)")
        pytest.skip(f"{MISSING}; install PostgreSQL to run the PostgreSQL store tests")
    server = PostgresServer(binaries)
    try:
        yield server
    finally:
        server.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None]:
    """pytest-timeout stops timing a test once it has failed (so that a
    debugger is not interrupted), teardown included: a fixture that then
    blocks (a store closing behind a transaction the failed test left open)
    would hang the whole run with no report. Teardown is timed again, on its
    own, with the suite's timeout (not under --pdb)."""
    settings = pytest_timeout.get_env_settings(item.config)
    if item.config.getoption("usepdb") or not settings.timeout:
        return (yield)
    hook = item.config.hook
    hook.pytest_timeout_cancel_timer(item=item)
    hook.pytest_timeout_set_timer(item=item, settings=settings._replace(func_only=False))
    try:
        return (yield)
    finally:
        hook.pytest_timeout_cancel_timer(item=item)
