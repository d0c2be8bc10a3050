"""Images a user attaches: their real type, and the notes that stand in for
an image the model cannot be given.

The type comes from the bytes, never from the client: the official CLI calls
every image `image/jpeg` whatever it sent, and a provider rejects a request
whose declared type does not match the data. Four formats are recognised, the
ones every supported provider API takes (PNG, JPEG, GIF, WebP); anything else
is not sent as an image.
"""

from __future__ import annotations

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
