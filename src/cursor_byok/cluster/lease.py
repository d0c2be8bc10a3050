"""Conversation leases: one owner process per conversation on a shared database.

On SQLite there is one process and nothing to share, so the runner takes no
lease at all (plain `Runner`); on PostgreSQL, `postgres_lease` keeps them in
the database. A lease is a row with an owner and an expiry in the database's
clock, so processes on machines whose clocks disagree still agree on who
holds what. The table decides nothing either: it grants a lease that is
free, expired or already the caller's, and reports which it renewed. The
same database relays what processes hand each other (`Relay`): appends for
the process that applies them, output for the one whose client reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Leases(Protocol):
    """One process's view of the lease table; `owner` names that process."""

    owner: str
    ttl_s: float

    def acquire(self, conversation_id: str) -> bool:
        """Take or extend the lease; False when another live owner holds it."""
        ...

    def renew(self, conversation_ids: Sequence[str]) -> set[str]:
        """Extend the leases we still hold among these; the ones extended."""
        ...

    def release(self, conversation_ids: Sequence[str]) -> None:
        """Give up these leases (if ours) so another process need not wait."""
        ...

    def unowned(self, conversation_ids: Sequence[str]) -> list[str]:
        """Those of these conversations whose lease is missing or expired."""
        ...

    def owner_of(self, conversation_id: str) -> str | None:
        """Who holds the conversation's lease now; None when nobody does."""
        ...


class NoticeKind(StrEnum):
    APPEND = "append"
    """An append of the request was stored."""
    OUTPUT = "output"
    """Output of the request was stored."""
    HOST = "host"
    """`to`, the conversation's owner, is asked to host the request."""
    READER = "reader"
    """The request's stream, piped to its host `to`, gained or lost its reader."""


@dataclass(frozen=True, slots=True)
class Notice:
    """One announcement between processes: a wake-up, never the truth (it
    may be missed; what it announces is in a table, or is asked again)."""

    kind: NoticeKind
    request_id: str
    to: str = ""
    """The process addressed; empty for whoever has the request."""
    conversation_id: str = ""
    reading: bool = False
    seqno: int = 0
    """For a host request: the seqno of the request's first append to apply."""


OutputRow = tuple[int, str, bytes]
"""(seq, kind, payload) of one item of a request's relayed output."""


class Relay(Protocol):
    """What processes hand each other through the database: appends for the
    process that applies them, output for the process whose client reads it."""

    def put(self, request_id: str, seqno: int, payload: bytes) -> None: ...

    def since(self, request_id: str, seqno: int = 0) -> list[tuple[int, bytes]]: ...

    def put_output(self, request_id: str, rows: Sequence[OutputRow]) -> None:
        """Store a batch of output and announce it, in one transaction."""
        ...

    def output_since(self, request_id: str, seq: int = 0) -> list[OutputRow]: ...

    def next_output_seq(self, request_id: str) -> int:
        """The seq after the request's last stored output (0 when none)."""
        ...

    def announce(self, notice: Notice) -> None: ...

    def sweep(self, older_than_s: float) -> int: ...

    def listen(self, announced: Callable[[Notice], None]) -> None:
        """Call `announced(notice)`, from another thread, for each announcement."""
        ...

    def close(self) -> None: ...
