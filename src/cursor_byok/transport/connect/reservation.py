"""Room for the bytes a request reads and inflates, taken before they are held.

A body being read, an envelope still arriving on a stream and a message
being inflated are nobody's state yet, but they are memory a client makes
the server hold. A `Reservation` takes room for them in a shared `Room` (the
server's memory budget) before they are read or inflated, and gives it all
back when the request is done with them, whichever way it ends. This layer
knows nothing of what the room is; the memory budget is one above.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol


class Room(Protocol):
    """Where reserved bytes are counted (the memory budget fits it as it is)."""

    def reserve(self, size: int) -> bool:
        """Count `size` more bytes; False when there is no room for them."""
        ...

    def unreserve(self, size: int) -> None: ...


class NoRoom(Exception):
    """The room cannot hold the bytes about to be read or inflated."""

    def __init__(self) -> None:
        super().__init__("the server's memory budget is in use; retry later")


class Reservation:
    """What one request holds in a `Room`. `take` before reading or inflating
    (NoRoom when it does not fit: nothing is taken then), `give_back` as the
    bytes are handed on, `release` (or leaving a `with` block) gives back the
    rest. Without a room it only counts."""

    __slots__ = ("held", "room")

    def __init__(self, room: Room | None = None) -> None:
        self.room = room
        self.held = 0

    def take(self, size: int) -> None:
        if size <= 0:
            return
        if self.room is not None and not self.room.reserve(size):
            raise NoRoom
        self.held += size

    def give_back(self, size: int) -> None:
        size = min(size, self.held)
        if size <= 0:
            return
        self.held -= size
        if self.room is not None:
            self.room.unreserve(size)

    def keep(self, size: int) -> None:
        """Give back everything but `size` bytes."""
        self.give_back(self.held - size)

    def release(self) -> None:
        self.give_back(self.held)

    def __enter__(self) -> Reservation:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()
