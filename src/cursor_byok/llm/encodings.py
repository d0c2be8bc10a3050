"""Each message's canonical bytes and hash, made once per message object.

A new message is hashed into the history's chain, written to the store,
named by its call's record and measured by the context meter: four uses of
the same object, and of the same bytes (messages and their contents are
never changed in place). `serialize.message_bytes` and `message_hash` read
them from here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from cursor_byok.llm.types import Message

ENCODINGS_KEPT = 1024
ENCODED_BYTES_KEPT = 8 << 20


class Encoded:
    """A message's canonical bytes and, once asked for, their hash."""

    __slots__ = ("data", "digest", "message")

    def __init__(self, message: Message, data: bytes) -> None:
        self.message = message
        self.data = data
        self.digest: str | None = None


class Encodings:
    """Encodings keyed by message identity with the object kept, so an id is
    not reused while its entry lives; the newest entries are kept, within a
    count and a byte budget. Used from the event loop and the store's worker
    thread alike: lookups are single dict reads, changes hold a lock."""

    def __init__(
        self,
        encode: Callable[[Message], bytes],
        count: int = ENCODINGS_KEPT,
        size: int = ENCODED_BYTES_KEPT,
    ) -> None:
        self._encode = encode
        self.count, self.size = count, size
        self.kept: dict[int, Encoded] = {}
        self.kept_bytes = 0
        self._lock = threading.Lock()

    def of(self, message: Message) -> Encoded:
        known = self.kept.get(id(message))
        if known is not None and known.message is message:
            return known
        encoded = Encoded(message, self._encode(message))
        kept = self.kept
        with self._lock:
            replaced = kept.pop(id(message), None)
            if replaced is not None:
                self.kept_bytes -= len(replaced.data)
            kept[id(message)] = encoded
            self.kept_bytes += len(encoded.data)
            while len(kept) > self.count or self.kept_bytes > self.size:
                self.kept_bytes -= len(kept.pop(next(iter(kept))).data)
        return encoded
