"""Images a user attaches or a tool returns: their real type, and the notes
that stand in for an image the model cannot be given.

The type comes from the bytes, never from the client: the official CLI calls
every image `image/jpeg` whatever it sent, and its `read` returns image bytes
with no type at all; a provider rejects a request whose declared type does
not match the data. Four formats are recognised (PNG, JPEG, GIF, WebP);
anything else is not sent as an image, and an API that does not take one of
them (Gemini: no GIF) gets a note in its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from cursor_byok.llm.types import (
    HistoryRepair,
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

PNG = "image/png"
JPEG = "image/jpeg"
GIF = "image/gif"
WEBP = "image/webp"


def sniff_mime(data: bytes) -> str | None:
    """The image type the bytes' magic number says, or None when they are
    not a PNG, JPEG, GIF or WebP image."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data.startswith((b"GIF87a", b"GIF89a")):
        return GIF
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return WEBP
    return None


def not_an_image_note(claimed: str) -> str:
    """What the model reads in place of an attachment whose bytes are no
    image it can be given."""
    said = f" (the client called it {claimed})" if claimed else ""
    return f"[an attached image was left out: it is not a PNG, JPEG, GIF or WebP image{said}]"


TEXT_ONLY_NOTE = "[an attached image was left out: this model takes text only]"
"""What a model configured as text-only reads in place of each image."""

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ImageRules:
    """What one provider API takes, in base64 characters (what is sent):
    one image at most `max_chars`, at most `max_count` images and
    `max_total_chars` of them in one request, of the types `mime_types`."""

    max_chars: int
    max_count: int
    max_total_chars: int
    mime_types: frozenset[str] = frozenset({PNG, JPEG, GIF, WEBP})


RULES: dict[str, ImageRules] = {
    # 5 MB an image, 100 images, 32 MB a request (text and tools included).
    "anthropic-messages": ImageRules(5 * MIB, 100, 24 * MIB),
    # 500 images and 50 MB a request; 20 MB an image on the older models.
    "openai-chat": ImageRules(20 * MIB, 500, 40 * MIB),
    "openai-responses": ImageRules(20 * MIB, 500, 40 * MIB),
    # Inline data: 20 MB the whole request. PNG, JPEG and WebP (also HEIC
    # and HEIF, which no client sends): a GIF is refused as an invalid argument.
    "google-generative-ai": ImageRules(15 * MIB, 3000, 15 * MIB, frozenset({PNG, JPEG, WEBP})),
}
"""Documented limits per API (`api` of the adapter). Where one is not
documented (an OpenAI-compatible server), the OpenAI values apply."""


def _size(chars: int) -> str:
    return f"{chars / MIB:.1f} MB"


def _sendable(block: ImageContent, rules: ImageRules) -> bool:
    """Whether the API takes this image on its own (type and size)."""
    return block.mime_type in rules.mime_types and len(block.data) <= rules.max_chars


def history_images(messages: Iterable[Message]) -> Iterator[ImageContent]:
    """Every image of `messages`, in history order."""
    for message in messages:
        if isinstance(message, UserMessage | ToolResultMessage):
            content = message.content
            if not isinstance(content, str):
                yield from (b for b in content if isinstance(b, ImageContent))


def oldest_left_out(messages: Sequence[Message], api: str, takes_images: bool) -> frozenset[int]:
    """The images of `messages` (by `id`) one request leaves out because the
    whole history holds more, or more bytes, than the API takes: the oldest
    ones, so the model sees what came last. Past the count they go a
    quarter of the limit at a time, so the rendering of earlier messages
    (and the provider's cache) changes once per step, not at every new
    image. Only what follows the last `HistoryRepair` counts (what precedes
    it is sent as text)."""
    if not takes_images:
        return frozenset()
    rules = RULES.get(api, RULES["openai-chat"])
    last = max((i for i, m in enumerate(messages) if isinstance(m, HistoryRepair)), default=-1)
    images = [b for b in history_images(messages[last + 1 :]) if _sendable(b, rules)]
    over = len(images) - rules.max_count
    if over <= 0 and sum(len(b.data) for b in images) <= rules.max_total_chars:
        return frozenset()
    step = max(1, rules.max_count // 4)
    drop = min(len(images), -(-over // step) * step) if over > 0 else 0
    total = sum(len(b.data) for b in images[drop:])
    while total > rules.max_total_chars:
        total -= len(images[drop].data)
        drop += 1
    return frozenset(id(b) for b in images[:drop])


OLDER_LEFT_OUT = (
    "[an earlier image was left out: the conversation holds more images than this "
    "model's API takes in one request, and the newest are the ones sent]"
)


class ImageBudget:
    """What becomes of each image of a history in one request: an image of
    a type or size the API does not take, every image for a text-only
    model, and the oldest ones past the request's limits (`left_out`, see
    `oldest_left_out`) are replaced by one-line notes."""

    def __init__(self, api: str, takes_images: bool, left_out: frozenset[int]) -> None:
        self.rules = RULES.get(api, RULES["openai-chat"])
        self.takes_images = takes_images
        self.left_out = left_out

    def fit(self, content: tuple[UserContent, ...]) -> tuple[UserContent, ...]:
        """`content` with each image it cannot carry replaced by a note (the
        same tuple when all fit)."""
        if not any(isinstance(block, ImageContent) for block in content):
            return content
        fitted = tuple(self._one(block) for block in content)
        return content if fitted == content else fitted

    def _one(self, block: UserContent) -> UserContent:
        if not isinstance(block, ImageContent):
            return block
        if not self.takes_images:
            return TextContent(TEXT_ONLY_NOTE)
        size, rules = len(block.data), self.rules
        if block.mime_type not in rules.mime_types:
            kind = block.mime_type.removeprefix("image/").upper()
            return TextContent(
                f"[an attached image was left out: it is a {kind} image, a type this "
                "model's API does not take]"
            )
        if size > rules.max_chars:
            return TextContent(
                f"[an attached image was left out: it is {_size(size)}, above the "
                f"{_size(rules.max_chars)} this model's API takes for one image]"
            )
        if id(block) in self.left_out:
            return TextContent(OLDER_LEFT_OUT)
        return block
