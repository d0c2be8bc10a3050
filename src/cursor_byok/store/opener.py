"""Opening the store a `server.database` value names. The store's own module
loads only here, so parsing a URL neither needs nor loads a database driver."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.store.base import Store, StoreError
from cursor_byok.store.database import Durability, PostgresURL


def open_store(database: Path | PostgresURL, durability: Durability = "full") -> Store:
    """Open (and migrate) the store at `database`.

    `durability` "full" waits for each commit to be on disk; "normal" lets the
    database confirm before that (SQLite `synchronous=NORMAL`, PostgreSQL
    `synchronous_commit=off`): a crash of the database host may lose the last
    commits, a crash of this process loses nothing."""
    if isinstance(database, Path):
        from cursor_byok.store.sqlite import SQLiteStore  # noqa: PLC0415

        return SQLiteStore(database, synchronous="FULL" if durability == "full" else "NORMAL")
    try:
        from cursor_byok.store.postgres import PostgresStore  # noqa: PLC0415
    except ImportError as error:
        raise StoreError(
            "PostgreSQL needs the psycopg packages: pip install 'cursor-byok[postgresql]'"
        ) from error
    return PostgresStore(database, synchronous_commit=durability == "full")
