"""The checks every backend makes before it writes a commit.

A commit names the version it was computed from and carries the whole
history. Both checks are mechanical and the same for every database, so they
live here once: the version must be the stored one (compare-and-swap), and
the new messages must extend the stored hash chain (history is append-only).
The result is the rows to append, so no backend re-serializes a message.
"""

from __future__ import annotations

from dataclasses import dataclass

from cursor_byok.llm.serialize import (
    EMPTY_MESSAGES_HASH,
    extend_messages_hash,
    message_bytes,
    message_hash,
)
from cursor_byok.loop.state import ConversationState
from cursor_byok.store.base import HistoryRewrite, VersionConflict
from cursor_byok.store.images import ImageRow, stored_form


@dataclass(frozen=True, slots=True)
class StoredHead:
    """What a commit is checked against: the conversation row as stored."""

    version: int
    message_count: int
    messages_hash: str


MessageRow = tuple[str, int, bytes, str]
"""(conversation_id, idx, message_json, message_hash), as the messages table holds it."""


def new_message_rows(
    head: StoredHead | None, expected_version: int, next_state: ConversationState
) -> tuple[list[MessageRow], list[ImageRow]]:
    """The rows `next_state` appends to the stored history, and the images
    they name (`store.images`: stored once each, by hash). Raises
    VersionConflict for a stale `expected_version` and HistoryRewrite for a
    history that drops or changes a stored message."""
    conversation_id = next_state.conversation_id
    version = head.version if head is not None else 0
    if version != expected_version:
        raise VersionConflict(
            f"conversation {conversation_id!r} is at version {version}, not {expected_version}"
        )
    count = head.message_count if head is not None else 0
    if len(next_state.messages) < count:
        raise HistoryRewrite(f"commit would drop messages of {conversation_id!r}")
    link = head.messages_hash if head is not None else EMPTY_MESSAGES_HASH
    rows: list[MessageRow] = []
    images: list[ImageRow] = []
    for offset, message in enumerate(next_state.messages[count:]):
        digest = message_hash(message)  # of the inline form, which a load restores
        link = extend_messages_hash(link, digest)
        data, named = stored_form(message, message_bytes(message))
        rows.append((conversation_id, count + offset, data, digest))
        images.extend(named)
    if link != next_state.messages_hash:
        raise HistoryRewrite(f"commit does not extend the history of {conversation_id!r}")
    return rows, images
