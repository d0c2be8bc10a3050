"""One memory budget for everything a client can make the server hold.

Buffered out-of-order appends, a session's own bookkeeping, output stashed
for a stream nobody reads, request bodies being read, envelopes still
arriving on Run streams and messages being inflated all draw on it. Each
holder (a request id's session, a conversation's stash) is charged under its
own key, capped per key and in total. Past the total, the least recently
touched idle holders are dropped, oldest first, until the new bytes fit; a
holder that is busy (a stream is reading it, an append is being applied) is
never dropped. Holders are kept in touch order, so finding the oldest is
O(1) and dropping costs O(dropped), never a scan of every holder.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cursor_byok.runtime.logsafe import logfmt_value

log = logging.getLogger(__name__)

MiB = 1024 * 1024
DEFAULT_REQUEST_BYTES = 64 * MiB
DEFAULT_TOTAL_BYTES = 512 * MiB


class Holder(Protocol):
    """State the budget may drop when it is idle."""

    def idle(self) -> bool:
        """Whether nothing is using the state right now."""
        ...

    def drop(self, reason: str) -> None:
        """Let go of the state; the budget has already forgotten its bytes."""
        ...


@dataclass(slots=True)
class _Held:
    holder: Holder
    kind: str
    bytes: int = 0
    fixed: int = 0


@dataclass(slots=True)
class BudgetStats:
    """Counted for `/metrics`: holders dropped by kind, charges refused."""

    dropped: dict[str, int]
    dropped_bytes: int = 0
    refused: int = 0


class MemoryBudget:
    def __init__(
        self,
        total_bytes: int = DEFAULT_TOTAL_BYTES,
        request_bytes: int = DEFAULT_REQUEST_BYTES,
        on_drop: Callable[[str, int], None] | None = None,
    ) -> None:
        self.total_bytes = total_bytes
        self.request_bytes = request_bytes
        self.used = 0
        self.in_flight = 0
        self.stats = BudgetStats(dropped={})
        self._held: OrderedDict[str, _Held] = OrderedDict()
        self._on_drop = on_drop

    def __len__(self) -> int:
        return len(self._held)

    def held(self, key: str) -> int:
        """Everything charged to `key`, its fixed cost included."""
        entry = self._held.get(key)
        return 0 if entry is None else entry.bytes

    def track(self, key: str, holder: Holder, kind: str, fixed: int = 0) -> str | None:
        """Start accounting `holder` under `key` (as the most recently touched),
        with `fixed` bytes it costs by being there (not part of the per-key
        cap, which is for what a client makes it buffer). None when it fits,
        else why it does not (and it is not tracked)."""
        self.forget(key)
        if not self._make_room(fixed, spare=None):
            self.stats.refused += 1
            return f"the server's memory budget of {self.total_bytes} bytes is in use"
        self._held[key] = _Held(holder, kind, fixed, fixed)
        self.used += fixed
        return None

    def touch(self, key: str) -> None:
        if key in self._held:
            self._held.move_to_end(key)

    def charge(self, key: str, size: int) -> str | None:
        """Account `size` more bytes to `key`, dropping the oldest idle holders
        if the total needs room. None when it fits, else why it does not."""
        entry = self._held.get(key)
        if entry is None:
            return "it is no longer held"
        if entry.bytes - entry.fixed + size > self.request_bytes:
            self.stats.refused += 1
            return (
                f"it would hold {entry.bytes - entry.fixed + size} bytes, over the limit of "
                f"{self.request_bytes} bytes per request id"
            )
        self._held.move_to_end(key)
        if not self._make_room(size, spare=key):
            self.stats.refused += 1
            return f"the server's memory budget of {self.total_bytes} bytes is in use"
        entry.bytes += size
        self.used += size
        return None

    def refund(self, key: str, size: int) -> None:
        entry = self._held.get(key)
        if entry is None:
            return
        size = min(size, entry.bytes - entry.fixed)
        entry.bytes -= size
        self.used -= size

    def forget(self, key: str) -> None:
        """The holder let go of its state by itself: its bytes are free."""
        entry = self._held.pop(key, None)
        if entry is not None:
            self.used -= entry.bytes

    def reserve(self, size: int) -> bool:
        """Room for bytes being read or inflated (a request body, an envelope
        whose header has arrived, a message), not yet anyone's."""
        if not self._make_room(size, spare=None):
            self.stats.refused += 1
            return False
        self.used += size
        self.in_flight += size
        return True

    def unreserve(self, size: int) -> None:
        self.used -= size
        self.in_flight -= size

    def _make_room(self, size: int, spare: str | None) -> bool:
        """Drop idle holders, least recently touched first, until `size` more
        bytes fit. A busy holder is moved to the back (it is in use now), so
        each holder is looked at once at most."""
        looked = 0
        while self.used + size > self.total_bytes and looked < len(self._held):
            key, entry = next(iter(self._held.items()))
            looked += 1
            if key == spare or not entry.holder.idle():
                self._held.move_to_end(key)
                continue
            self._drop(key, entry)
        return self.used + size <= self.total_bytes

    def _drop(self, key: str, entry: _Held) -> None:
        del self._held[key]
        self.used -= entry.bytes
        self.stats.dropped[entry.kind] = self.stats.dropped.get(entry.kind, 0) + 1
        self.stats.dropped_bytes += entry.bytes
        log.warning(
            "memory budget: dropped idle %s %s holding %d bytes (%d of %d bytes in use)",
            entry.kind,
            logfmt_value(key),
            entry.bytes,
            self.used,
            self.total_bytes,
        )
        if self._on_drop is not None:
            self._on_drop(entry.kind, entry.bytes)
        reason = (
            f"the server dropped its {entry.kind} state to stay within its memory "
            f"budget of {self.total_bytes} bytes"
        )
        entry.holder.drop(reason)


SESSION_BYTES = 8 * 1024
"""What a session costs before it buffers anything (its queue, lock, stream
context, tool set: 5.5 KiB of Python objects, about 8 KiB of RSS measured),
charged to the memory budget."""


class OverBudget(Exception):
    """No room for a new session, even after dropping every idle one."""


def budget_key(request_id: str) -> str:
    """What the memory budget knows a request id's session by."""
    return f"request {request_id}"
