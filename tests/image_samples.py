"""Small real images, one per format the server recognises, built here
rather than stored: a 1x1 PNG (zlib-compressed, CRCs right), and the
smallest valid files of the other formats, spelt out byte by byte."""

from __future__ import annotations

import hashlib
import struct
import zlib


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

JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000") + b"\xff\xd9"
"""A JPEG's start (SOI, JFIF header) and end: enough to be recognised."""

WEBP = b"RIFF" + struct.pack("<I", 26) + b"WEBPVP8L" + struct.pack("<I", 14) + bytes(14)
"""A WebP container with a lossless chunk: enough to be recognised."""
