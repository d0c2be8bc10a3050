"""A pooled PostgreSQL connection for one short transaction, whose failures
are `StoreError`s: the lease keeper and the relay's loops wait those out and
try again, while anything else is a bug that should surface."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from cursor_byok.store.base import StoreError

Pool = ConnectionPool[psycopg.Connection[Any]]


@contextlib.contextmanager
def pooled(pool: Pool, what: str) -> Iterator[psycopg.Connection[Any]]:
    """The pool commits when the block ends normally, rolls back otherwise."""
    try:
        with pool.connection() as conn:
            yield conn
    except (psycopg.Error, PoolTimeout) as error:
        raise StoreError(f"{what}: {' '.join(str(error).split())}") from error
