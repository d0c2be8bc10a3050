"""The order in which hypercorn's HTTP/2 send task serves a connection's
streams: each stream with something to send, in turn.

hypercorn keeps RFC 7540's priority tree (the `priority` package) for it. The
tree re-sorts a parent's children whenever one of them is added, removed,
blocked or unblocked, so a connection of many streams pays for every stream
that ends, and a profile of 50 streams held open had the tree at about 2% of
the event loop's thread. RFC 9113 (5.3.2) has deprecated that priority
scheme, and a client's priorities are only advice a server may ignore: the
Run streams of one client are alike, so serving them in turn is as good an
order. PRIORITY frames cost nothing here and keep no state, not even for
streams that never open.

Only what hypercorn calls is here, raising the `priority` package's errors
where its tree would, which hypercorn catches."""

from __future__ import annotations

from priority.priority import DeadlockError, DuplicateStreamError, MissingStreamError


class StreamRotation:
    """A drop-in for `priority.PriorityTree` as hypercorn 0.18 uses it."""

    __slots__ = ("_ready", "_streams")

    def __init__(self) -> None:
        self._streams: set[int] = set()
        self._ready: dict[int, None] = {}
        """The unblocked streams, the next to serve first (a dict keeps order)."""

    def insert_stream(self, stream_id: int, **advice: object) -> None:
        """A new stream, ready; its priority advice is ignored."""
        if stream_id in self._streams:
            raise DuplicateStreamError(stream_id)
        self._streams.add(stream_id)
        self._ready[stream_id] = None

    def reprioritize(self, stream_id: int, **advice: object) -> None:
        """Priorities are advice (`depends_on`, `weight`, `exclusive`):
        ignored, and never an error."""

    def remove_stream(self, stream_id: int) -> None:
        try:
            self._streams.remove(stream_id)
        except KeyError:
            raise MissingStreamError(stream_id) from None
        self._ready.pop(stream_id, None)

    def block(self, stream_id: int) -> None:
        if stream_id not in self._streams:
            raise MissingStreamError(stream_id)
        self._ready.pop(stream_id, None)

    def unblock(self, stream_id: int) -> None:
        if stream_id not in self._streams:
            raise MissingStreamError(stream_id)
        self._ready.setdefault(stream_id, None)

    def __iter__(self) -> StreamRotation:
        return self

    def __next__(self) -> int:
        """The stream to serve now; it goes to the back of the line."""
        ready = self._ready
        if not ready:
            raise DeadlockError("no stream has anything to send")
        stream_id = next(iter(ready))
        del ready[stream_id]
        ready[stream_id] = None
        return stream_id
