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

import base64
from dataclasses import dataclass

from cursor_byok.llm.types import ImageContent, TextContent, UserContent

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


def tool_image(data: bytes) -> UserContent:
    """What a tool's image bytes become in its result: the image, typed by
    its magic number, or a note when the bytes are no image a provider takes
    (the CLI keeps a BMP or TIFF as it is)."""
    mime = sniff_mime(data)
    if mime is None:
        return TextContent(
            f"[the tool returned an image that was left out: its {len(data)} bytes are "
            "not a PNG, JPEG, GIF or WebP image]"
        )
    return ImageContent(base64.b64encode(data).decode("ascii"), mime)


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


class ImageBudget:
    """Which images of a history one request can carry, decided in history
    order: an image's fate depends only on the images before it, so what a
    request renders stays a byte prefix of the next one's (provider caches
    hit). An image over the budget is replaced by a one-line note."""

    def __init__(self, api: str, takes_images: bool) -> None:
        self.rules = RULES.get(api, RULES["openai-chat"])
        self.takes_images = takes_images
        self.count = 0
        self.total = 0

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
        if self.count >= rules.max_count or self.total + size > rules.max_total_chars:
            return TextContent(
                "[an attached image was left out: the conversation already holds as many "
                "images as this model's API takes in one request]"
            )
        self.count += 1
        self.total += size
        return block
