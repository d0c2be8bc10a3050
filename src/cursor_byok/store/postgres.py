"""The shared store: PostgreSQL, for several processes or machines on one database.

Driver: psycopg 3 (blocking) with psycopg_pool's thread-safe pool. The Store
interface is synchronous and the runner already calls it from worker threads
(`asyncio.to_thread`), exactly as it calls SQLite; a blocking pool fits that
with no glue, each call borrowing a connection for one transaction. asyncpg
would have needed either an async Store (changing the runner and SQLite for
the sake of one backend) or an event loop per worker thread. psycopg's binary
wheel carries its own libpq, pipelines `executemany` (one round trip for a
commit's messages) and prepares repeated statements on the server by itself.

The statements and checks are SQLite's (`sql_store`, `history`): under READ
COMMITTED, a commit locks its conversation row (`FOR UPDATE`), so two
processes committing to one conversation serialize and the second sees a
stale version; a new conversation created twice, a duplicate input id or a
call saved with another request all show up as a row count, in the same
transaction. Exact bytes are BYTEA, read and written in binary.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from cursor_byok.store.base import StoreError
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.executor import Executor, Rows
from cursor_byok.store.postgres_schema import migrate
from cursor_byok.store.sql_store import SQLStore

P = ParamSpec("P")
T = TypeVar("T")


class StoreUnavailable(StoreError):
    """The database did not answer (down, unreachable, or refused us)."""


def _reason(error: BaseException | None) -> str:
    """libpq's message on one line (it spreads hints over several)."""
    return " ".join(str(error).split())


@functools.cache
def _placeholders(sql: str) -> str:
    """psycopg's `%s` for the shared statements' `?` (none has a literal `?` or `%`)."""
    return sql.replace("?", "%s")


class _Statements:
    """An `Executor` over one psycopg cursor."""

    def __init__(self, cursor: psycopg.Cursor[Any]) -> None:
        self._cursor = cursor

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Rows:
        return self._cursor.execute(_placeholders(sql), parameters)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> object:
        self._cursor.executemany(_placeholders(sql), parameters)
        return None


def _conninfo(url: PostgresURL, synchronous_commit: bool, connect_timeout: float) -> str:
    """The URL with our name, a connect timeout and, for "normal" durability,
    `synchronous_commit=off` added to whatever options the URL sets."""
    options = [str(conninfo_to_dict(url.url).get("options") or "")]
    if not synchronous_commit:
        options.append("-c synchronous_commit=off")
    return make_conninfo(
        url.url,
        application_name="cursor-byok",
        connect_timeout=max(1, round(connect_timeout)),
        options=" ".join(o for o in options if o) or None,
    )


class _ConnectionLost(Exception):
    """A pooled connection turned out dead: the server restarted or dropped it."""


def _once_more_if_the_connection_was_lost(
    method: Callable[Concatenate[PostgresStore, P], T],
) -> Callable[Concatenate[PostgresStore, P], T]:
    """Run a store call again, once, when its pooled connection was dead.

    Safe for every call: reads repeat freely, and each write is either an
    idempotent upsert or a commit that a landed first attempt turns into a
    VersionConflict (the version moved, the input id is taken), which callers
    already resolve by reloading. After a server restart every idle pooled
    connection is dead; the first failure sweeps them all out, so one restart
    costs one repeated call instead of one failed call per connection."""

    @functools.wraps(method)
    def once_more(store: PostgresStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(store, *args, **kwargs)
        except _ConnectionLost:
            store._pool.check()
        try:
            return method(store, *args, **kwargs)
        except _ConnectionLost as lost:
            raise StoreUnavailable(
                f"PostgreSQL at {store.url} does not answer: {_reason(lost.__cause__)}"
            ) from lost.__cause__

    return once_more


class PostgresStore(SQLStore):
    """A `Store` on a PostgreSQL database. Thread-safe: each call takes a
    pooled connection for one transaction."""

    lock_row = " FOR UPDATE"
    insertion_order = "seq"

    def __init__(
        self,
        url: PostgresURL,
        *,
        synchronous_commit: bool = True,
        max_connections: int = 8,
        connect_timeout: float = 10.0,
    ) -> None:
        self.url = url
        self._synchronous_commit = synchronous_commit
        conninfo = self._conninfo = _conninfo(url, synchronous_commit, connect_timeout)
        # One connection first: its error says why (refused, no such database,
        # bad password), where a pool would only time out.
        try:
            with psycopg.connect(conninfo) as conn:
                migrate(conn)
        except psycopg.OperationalError as error:
            raise StoreUnavailable(f"cannot use PostgreSQL at {url}: {_reason(error)}") from error
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=max_connections,
            open=True,
            name="cursor-byok",
            timeout=connect_timeout,
        )

    def close(self) -> None:
        self._pool.close()

    @contextlib.contextmanager
    def _read(self) -> Iterator[Executor]:
        # The pool commits a connection's transaction when the block ends
        # normally and rolls it back when it ends with an error.
        committing = False
        try:
            with self._pool.connection() as conn:
                try:
                    with conn.cursor(binary=True) as cursor:
                        yield _Statements(cursor)
                except psycopg.OperationalError as error:
                    if conn.broken:
                        raise _ConnectionLost from error
                    raise
                committing = True
        except PoolTimeout as error:
            raise StoreUnavailable(
                f"no connection to PostgreSQL at {self.url}: {_reason(error)}"
            ) from error
        except psycopg.OperationalError as error:
            if not committing:
                raise
            # Not repeated: the commit may have landed; the caller finds out
            # by reloading, as after any failed write.
            raise StoreUnavailable(
                f"PostgreSQL at {self.url} dropped the connection during a commit: {_reason(error)}"
            ) from error

    @contextlib.contextmanager
    def _transaction(self, flush: bool = True) -> Iterator[Executor]:
        """A write transaction; `flush=False` commits it without waiting for
        the WAL flush (`SET LOCAL synchronous_commit = off`, this transaction
        only). Later flushed commits wait for the WAL up to themselves, so
        they cover it too."""
        with self._read() as db:
            if not flush and self._synchronous_commit:
                db.execute("SET LOCAL synchronous_commit = off")
            yield db

    load = _once_more_if_the_connection_was_lost(SQLStore.load)
    find_input_commit = _once_more_if_the_connection_was_lost(SQLStore.find_input_commit)
    commit_input = _once_more_if_the_connection_was_lost(SQLStore.commit_input)
    active_conversations = _once_more_if_the_connection_was_lost(SQLStore.active_conversations)
    conversations = _once_more_if_the_connection_was_lost(SQLStore.conversations)
    save_llm_call = _once_more_if_the_connection_was_lost(SQLStore.save_llm_call)
    get_llm_call = _once_more_if_the_connection_was_lost(SQLStore.get_llm_call)
    llm_calls = _once_more_if_the_connection_was_lost(SQLStore.llm_calls)
    save_client_operation = _once_more_if_the_connection_was_lost(SQLStore.save_client_operation)
    get_client_operation = _once_more_if_the_connection_was_lost(SQLStore.get_client_operation)
    add_user = _once_more_if_the_connection_was_lost(SQLStore.add_user)
    users = _once_more_if_the_connection_was_lost(SQLStore.users)
    user = _once_more_if_the_connection_was_lost(SQLStore.user)
    user_by_id = _once_more_if_the_connection_was_lost(SQLStore.user_by_id)
    token_holder = _once_more_if_the_connection_was_lost(SQLStore.token_holder)
    set_token = _once_more_if_the_connection_was_lost(SQLStore.set_token)
    revoke = _once_more_if_the_connection_was_lost(SQLStore.revoke)
    touch_user = _once_more_if_the_connection_was_lost(SQLStore.touch_user)
    set_budget = _once_more_if_the_connection_was_lost(SQLStore.set_budget)
    reserve_budget = _once_more_if_the_connection_was_lost(SQLStore.reserve_budget)
    release_budget = _once_more_if_the_connection_was_lost(SQLStore.release_budget)
    renew_budget = _once_more_if_the_connection_was_lost(SQLStore.renew_budget)
    spent = _once_more_if_the_connection_was_lost(SQLStore.spent)
    usage_summary = _once_more_if_the_connection_was_lost(SQLStore.usage_summary)
    usage_rows = _once_more_if_the_connection_was_lost(SQLStore.usage_rows)

    @property
    def pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        """The store's connection pool, which the multi-process parts share."""
        return self._pool

    @property
    def conninfo(self) -> str:
        """What a connection of its own (one that listens) connects with."""
        return self._conninfo

    def ping(self, timeout: float = 2.0) -> None:
        try:
            with self._pool.connection(timeout=timeout) as conn:
                conn.execute("SELECT 1").fetchone()
        except psycopg.Error as error:
            raise StoreUnavailable(
                f"PostgreSQL at {self.url} does not answer: {_reason(error)}"
            ) from error
