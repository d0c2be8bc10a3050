"""What leaves the runner for a conversation's client, and where it goes."""

from __future__ import annotations

from typing import Protocol, TypeAlias

from cursor_byok.loop.commands import CallClient, Canceled, Emit, Failed, Final

Outbound: TypeAlias = Emit | CallClient | Final | Failed | Canceled
"""What a conversation's sink receives, in order: model and loop events (a
compaction) and the commands the client must see (run a tool, turn ended)."""


class Sink(Protocol):
    """Where a conversation's output goes (the RunSSE send queue). `publish`
    must not block: it only enqueues, preserving order."""

    def publish(self, conversation_id: str, item: Outbound) -> None: ...
