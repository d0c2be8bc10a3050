"""What the shared SQL runs on: a DB-API cursor, as far as the store uses one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Rows(Protocol):
    """What a statement returns."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Executor(Protocol):
    """Runs statements inside one transaction opened by the backend."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> object: ...
