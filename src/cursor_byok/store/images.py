"""Images in stored history: each stored once, named by its hash.

An image is often attached again and again (a screenshot discussed over
many messages, the same image in several chats). A message row names each
image by the SHA-256 of its bytes (`{"type": "image", "mimeType", "sha256"}`)
and the bytes live once in the `images` table, written in the commit that
first needs them. A load puts the bytes back, so the messages in memory are
the ones committed, with the same canonical bytes and hashes: the hash chain
is computed on the inline form, which a load restores exactly. Rows written
with the image inline (before this table existed) load as they are.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cursor_byok.llm.serialize import canonical_dumps, canonical_loads, message_to_json
from cursor_byok.llm.types import ImageContent, Message, ToolResultMessage, UserMessage
from cursor_byok.store.base import StoreError

ImageRow = tuple[str, bytes]
"""(sha256 hex, bytes), as the images table holds it."""

_REF_MARK = b'"sha256":"'
"""In a row's bytes only where a key is named so (quotes inside strings are escaped)."""
_INLINE_MARK = b'"type":"image"'
"""In canonical bytes only where a block is an image (the same reason)."""


class MissingImage(StoreError):
    """A message names an image the store does not hold."""


def has_images(message: Message) -> bool:
    content = message.content if isinstance(message, UserMessage | ToolResultMessage) else ""
    return not isinstance(content, str) and any(isinstance(b, ImageContent) for b in content)


def stored_form(message: Message, inline: bytes) -> tuple[bytes, list[ImageRow]]:
    """The row bytes of `message` (its canonical bytes `inline` when it has
    no image) and the images it names."""
    if not has_images(message):
        return inline, []
    doc = message_to_json(message)
    images = _named(doc)
    return canonical_dumps(doc), images


def stored_result(result: bytes | None) -> tuple[bytes | None, list[ImageRow]]:
    """A tool operation's saved result (a tool result's canonical bytes) as
    a message row names its images: by hash, the bytes in the images table,
    so an image is not kept a second time beside the history."""
    if result is None or _INLINE_MARK not in result:
        return result, []
    doc = canonical_loads(result)
    images = _named(doc)
    return (canonical_dumps(doc), images) if images else (result, [])


def loaded_result(result: bytes | None, fetch: Callable[[str], bytes | None]) -> bytes | None:
    """A saved result as it was committed, its images read by `fetch`."""
    if result is None:
        return None
    [row] = load_rows([result], fetch)
    return row if isinstance(row, bytes) else canonical_dumps(row)


def _named(doc: Mapping[str, Any]) -> list[ImageRow]:
    """Each inline image of `doc` replaced by its hash, in place; the images."""
    images: list[ImageRow] = []
    for block in _image_blocks(doc):
        if "data" not in block:
            continue
        data = base64.b64decode(block.pop("data"))
        digest = hashlib.sha256(data).hexdigest()
        block["sha256"] = digest
        images.append((digest, data))
    return images


def load_rows(
    rows: Iterable[bytes], fetch: Callable[[str], bytes | None]
) -> list[dict[str, Any] | bytes]:
    """The rows of a history, with every image they name read by `fetch`
    (once per image, however many rows name it) and put back inline: a
    decoded document for such a row, the row's bytes as they are for any
    other. Raises MissingImage for an image not held."""
    out: list[dict[str, Any] | bytes] = []
    seen: dict[str, str] = {}  # one read, and one string in memory, per image
    for row in rows:
        data = bytes(row)
        if _REF_MARK not in data:
            out.append(data)
            continue
        doc = canonical_loads(data)
        for block in _image_blocks(doc):
            if "sha256" in block and "data" not in block:
                digest = block.pop("sha256")
                if digest not in seen:
                    found = fetch(digest)
                    if found is None:
                        raise MissingImage(f"image {digest} named by history is not stored")
                    seen[digest] = base64.b64encode(found).decode("ascii")
                block["data"] = seen[digest]
        out.append(doc)
    return out


def _image_blocks(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The image blocks of a user message or tool result document."""
    if doc.get("role") not in ("user", "toolResult"):
        return []
    content = doc.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "image"]
