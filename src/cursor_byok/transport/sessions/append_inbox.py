"""Reordering of BidiAppend messages for one request id.

Real clients keep up to 16 appends in flight, so they arrive out of order;
they must be applied strictly in `append_seqno` order, never skipping a gap.
A request id may also be reused for a new run with the seqno restarting at 0.
The inbox only orders: it never decodes and never drops an in-window message.
What it may hold is the memory budget's business (`memory_budget`): the hub
charges `pending_bytes` as they grow.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

MAX_AHEAD = 1024
"""How far past the next expected seqno an append may be buffered. Clients
keep 16 in flight; anything much further is not a reordering but a bug."""


@dataclass
class InboxStats:
    delivered: int = 0
    duplicates: int = 0
    too_far_ahead: int = 0
    restarts: int = 0


@dataclass
class AppendInbox:
    next_seqno: int = 0
    pending: dict[int, bytes] = field(default_factory=dict)
    pending_bytes: int = 0
    first_digest: bytes | None = None
    stats: InboxStats = field(default_factory=InboxStats)

    def offer(self, seqno: int, payload: bytes) -> list[tuple[int, bytes]]:
        """Take one append; return the (seqno, payload) pairs now due, in order."""
        if seqno == 0 and self.next_seqno > 0:
            if hashlib.sha256(payload).digest() == self.first_digest:
                self.stats.duplicates += 1
                return []
            # Same request id, new run: start over from 0.
            self.stats.restarts += 1
            self.next_seqno = 0
            self.pending.clear()
            self.pending_bytes = 0
        if seqno < self.next_seqno or seqno in self.pending:
            self.stats.duplicates += 1
            return []
        if seqno - self.next_seqno >= MAX_AHEAD:
            self.stats.too_far_ahead += 1
            return []
        self.pending[seqno] = payload
        self.pending_bytes += len(payload)
        due: list[tuple[int, bytes]] = []
        while self.next_seqno in self.pending:
            message = self.pending.pop(self.next_seqno)
            self.pending_bytes -= len(message)
            if self.next_seqno == 0:
                self.first_digest = hashlib.sha256(message).digest()
            due.append((self.next_seqno, message))
            self.next_seqno += 1
        self.stats.delivered += len(due)
        return due

    def replace(self, seqno: int, payload: bytes) -> None:
        """Keep `payload` in place of the buffered message `seqno`."""
        self.pending_bytes += len(payload) - len(self.pending[seqno])
        self.pending[seqno] = payload

    def start_at(self, seqno: int) -> None:
        """A new inbox takes appends from `seqno` on: those before it were
        applied (as nothing, before the run request) by the process that
        handed the request over."""
        if self.next_seqno == 0 and not self.pending:
            self.next_seqno = seqno

    def clear(self) -> int:
        """Let go of every buffered message; returns the bytes freed."""
        freed = self.pending_bytes
        self.pending.clear()
        self.pending_bytes = 0
        return freed

    @property
    def waiting_for(self) -> int | None:
        """The seqno a buffered later message is waiting for, if any."""
        return self.next_seqno if self.pending else None
