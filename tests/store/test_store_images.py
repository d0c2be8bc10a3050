"""Images in stored history: each stored once, named by the SHA-256 of its
bytes, the message rows small; a load gives back the very messages (and so
the very hash chain) that were committed. On SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import replace

import pytest

from cursor_byok.llm.serialize import message_bytes, messages_hash
from cursor_byok.llm.types import ImageContent, TextContent, UserMessage
from cursor_byok.loop import ConversationState, RuntimeState, Status, transition
from cursor_byok.loop.inputs import Start
from cursor_byok.store.base import StoreError
from cursor_byok.store.sql_store import SQLStore
from tests.factories import SETTINGS
from tests.image_samples import GIF, png
from tests.store.conftest import Backend

PICTURE = png(64, 64, noise=True)


def image(data: bytes, mime: str) -> ImageContent:
    return ImageContent(base64.b64encode(data).decode("ascii"), mime)


def said(state: ConversationState, *content: TextContent | ImageContent) -> ConversationState:
    """`state` with one user message appended through the real loop."""
    runtime = RuntimeState(replace(state, status=Status.READY))
    started = Start(UserMessage(tuple(content), 1), settings=SETTINGS)
    return replace(transition(runtime, started).state.committed, status=Status.READY)


def test_an_image_is_stored_once_and_named_by_its_hash(store: SQLStore, backend: Backend) -> None:
    first = said(ConversationState("conv-1"), image(PICTURE, "image/png"), TextContent("a"))
    second = said(first, image(PICTURE, "image/png"), image(GIF, "image/gif"), TextContent("b"))
    store.commit_input("in-1", 0, first, None)
    store.commit_input("in-2", 1, second, None)
    other = said(ConversationState("conv-2"), image(PICTURE, "image/png"), TextContent("c"))
    store.commit_input("in-3", 0, other, None)

    stored = backend.rows("SELECT sha256, data FROM images ORDER BY sha256")
    assert sorted((h, bytes(d)) for h, d in stored) == sorted(
        (hashlib.sha256(d).hexdigest(), d) for d in (PICTURE, GIF)
    )
    rows = [bytes(r[0]) for r in backend.rows("SELECT message_json FROM messages")]
    encoded = base64.b64encode(PICTURE)
    assert all(encoded not in row for row in rows)
    assert sum(len(row) for row in rows) < len(encoded)
    block = json.loads(rows[0])["content"][0]
    assert block == {
        "type": "image",
        "mimeType": "image/png",
        "sha256": hashlib.sha256(PICTURE).hexdigest(),
    }

    loaded = store.load("conv-1")
    assert loaded is not None
    assert loaded.state.messages == second.messages
    assert messages_hash(loaded.state.messages) == second.messages_hash


def test_a_history_stored_before_images_had_their_table_still_loads(
    store: SQLStore, backend: Backend
) -> None:
    """Rows written with the image inline (as earlier versions did) load as they are."""
    state = said(ConversationState("conv-1"), image(GIF, "image/gif"), TextContent("old"))
    store.commit_input("in-1", 0, state, None)
    inline = message_bytes(state.messages[0]).hex()
    literal = f"X'{inline}'" if backend.name == "sqlite" else f"'\\x{inline}'::bytea"
    backend.rows(f"UPDATE messages SET message_json = {literal} WHERE idx = 0")
    backend.rows("DELETE FROM images")
    loaded = store.load("conv-1")
    assert loaded is not None and loaded.state.messages == state.messages


def test_a_missing_image_is_a_clear_error(store: SQLStore, backend: Backend) -> None:
    state = said(ConversationState("conv-1"), image(GIF, "image/gif"), TextContent("x"))
    store.commit_input("in-1", 0, state, None)
    backend.rows("DELETE FROM images")
    with pytest.raises(StoreError, match=hashlib.sha256(GIF).hexdigest()):
        store.load("conv-1")
