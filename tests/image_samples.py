"""Small real images, one per format the server recognises, built here
rather than stored: a PNG (zlib-compressed, CRCs right) and a GIF spelt
out byte by byte, a JPEG and a WebP encoded by Pillow."""

from __future__ import annotations

import hashlib
import io
import struct
import zlib

from PIL import Image

from cursor_byok.llm.image_fit import Fitted, fit


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png(width: int = 1, height: int = 1, noise: bool = False) -> bytes:
    """A grey PNG of the given size; with `noise`, grey levels that do not
    compress (fixed, so a test's image is the same on every run)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    if noise:
        levels = b"".join(
            hashlib.sha256(b"%d" % i).digest() for i in range(width * height // 32 + 1)
        )
        rows = b"".join(b"\x00" + levels[y * width : (y + 1) * width] for y in range(height))
    else:
        rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows))
        + _chunk(b"IEND", b"")
    )


GIF = bytes.fromhex(
    "47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b"
)
"""A 1x1 GIF89a."""


def _fitted_gif() -> bytes:
    fitted = fit(GIF, "image/gif")
    assert isinstance(fitted, Fitted)
    return fitted.data


GIF_AS_PNG = _fitted_gif()
"""What `GIF` becomes when it enters a conversation: a PNG of its first
frame, which every provider's API takes."""


def _encoded(fmt: str) -> bytes:
    """A 1x1 grey image in `fmt`, encoded by Pillow (the server decodes the
    header of every image it is given, so a sample must be a real file)."""
    out = io.BytesIO()
    Image.new("RGB", (1, 1), (128, 128, 128)).save(out, fmt)
    return out.getvalue()


JPEG = _encoded("JPEG")
"""A 1x1 JPEG."""

WEBP = _encoded("WEBP")
"""A 1x1 WebP."""
