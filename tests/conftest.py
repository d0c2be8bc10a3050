"""Fixtures shared by several suites: a real PostgreSQL server of the tests' own.

Without PostgreSQL's binaries the PostgreSQL tests fail under CI (the env var
CI set), so a machine that lost them cannot pass quietly; elsewhere they are
skipped with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.store.postgres_server import MISSING, PostgresServer, find_binaries


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
