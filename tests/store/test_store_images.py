"""Images in stored history: each stored once, named by the SHA-256 of its
bytes, the message rows (and a tool operation's saved result) small; a load
gives back the very messages (and so the very hash chain) that were
committed. On SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import replace

import pytest

from cursor_byok.llm.serialize import message_bytes, message_from_json, messages_hash
from cursor_byok.llm.types import ImageContent, TextContent, ToolResultMessage, UserMessage
from cursor_byok.loop import ConversationState, RuntimeState, Status, transition
from cursor_byok.loop.inputs import Start
from cursor_byok.loop.records import OperationChanged
from cursor_byok.runtime.records import store_records
from cursor_byok.store.base import StoreError
from cursor_byok.store.sql_store import SQLStore
from tests.factories import SETTINGS, tool_call
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


def test_a_tool_results_image_is_stored_once_for_history_and_operation(
    store: SQLStore, backend: Backend
) -> None:
    """A tool result with an image is both history and its operation's saved
    result (fed back if the tool call comes again): both name the image by
    hash, and the operation's result reads back as it was committed."""
    state = said(ConversationState("conv-1"), TextContent("read shot.png"))
    result = ToolResultMessage(
        "call_1", "read_file", (TextContent("shot.png: an image"), image(PICTURE, "image/png"))
    )
    state = replace(state, messages=(*state.messages, result))
    state = replace(state, messages_hash=messages_hash(state.messages))
    change = OperationChanged("op-1", "turn-1", 0, tool_call("call_1"), "completed", result)
    _, operations = store_records("conv-1", [change])
    store.commit_input("in-1", 0, state, None, operations=operations)
    store.save_client_operation(operations[0])  # a second save of the same result

    assert len(backend.rows("SELECT sha256 FROM images")) == 1
    [saved_row] = backend.rows("SELECT result_json FROM client_operations")
    assert base64.b64encode(PICTURE) not in bytes(saved_row[0])
    saved = store.get_client_operation("op-1")
    assert saved is not None and saved.result is not None
    assert saved.result == operations[0].result
    assert message_from_json(json.loads(saved.result)) == result
    loaded = store.load("conv-1")
    assert loaded is not None and loaded.state.messages[-1] == result
