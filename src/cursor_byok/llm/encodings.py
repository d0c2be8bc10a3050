"""Canonical bytes (and their hash) made once per object.

A new message is hashed into the history's chain, written to the store,
named by its call's record and measured by the context meter: four uses of
the same object, and of the same bytes (messages, settings and their
contents are never changed in place). `serialize.message_bytes` and
`message_hash` read them from here, as the state's codec does its settings.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

ENCODINGS_KEPT = 1024
ENCODED_BYTES_KEPT = 8 << 20


class Encoded(Generic[T]):
    """A value's canonical bytes and, once asked for, their hash."""

    __slots__ = ("data", "digest", "value")

    def __init__(self, value: T, data: bytes) -> None:
        self.value = value
        self.data = data
        self.digest: str | None = None


class Encodings(Generic[T]):
    """Encodings keyed by identity with the object kept, so an id is
    not reused while its entry lives; the newest entries are kept, within a
    count and a byte budget. Used from the event loop and the store's worker
    thread alike: lookups are single dict reads, changes hold a lock."""

    def __init__(
        self,
        encode: Callable[[T], bytes],
        count: int = ENCODINGS_KEPT,
        size: int = ENCODED_BYTES_KEPT,
    ) -> None:
        self._encode = encode
        self.count, self.size = count, size
        self.kept: dict[int, Encoded[T]] = {}
        self.kept_bytes = 0
        self._lock = threading.Lock()

    def of(self, value: T) -> Encoded[T]:
        known = self.kept.get(id(value))
        if known is not None and known.value is value:
            return known
        encoded = Encoded(value, self._encode(value))
        kept = self.kept
        with self._lock:
            replaced = kept.pop(id(value), None)
            if replaced is not None:
                self.kept_bytes -= len(replaced.data)
            kept[id(value)] = encoded
            self.kept_bytes += len(encoded.data)
            while len(kept) > self.count or self.kept_bytes > self.size:
                self.kept_bytes -= len(kept.pop(next(iter(kept))).data)
        return encoded
