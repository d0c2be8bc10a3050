"""Conversation leases: one owner process per conversation on a shared database.

On SQLite there is one process and nothing to share, so the runner takes no
lease at all (plain `Runner`); only a store that several processes use
offers `leases()`. A lease is a row with an owner and an expiry in the
database's clock, so processes on machines whose clocks disagree still agree
on who holds what. The store decides nothing here either: it grants a lease
that is free, expired or already the caller's, and reports which it renewed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable


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


class AppendRelay(Protocol):
    """Appends stored for the process whose stream reads them, and announced."""

    def put(self, request_id: str, seqno: int, payload: bytes) -> None: ...

    def since(self, request_id: str, seqno: int = 0) -> list[tuple[int, bytes]]: ...

    def sweep(self, older_than_s: float) -> int: ...

    def listen(self, announced: Callable[[str], None]) -> None:
        """Call `announced(request_id)`, from another thread, as appends arrive."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class SharedStore(Protocol):
    """A store that several processes use at once: it hands out leases and
    relays appends between them."""

    def leases(self, owner: str, ttl_s: float) -> Leases: ...

    def append_relay(self) -> AppendRelay: ...
