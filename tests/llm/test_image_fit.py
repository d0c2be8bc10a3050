"""Images fitted once, when they enter the conversation: within every
provider's per-image limits they are kept byte for byte; past them they are
scaled down and encoded again, the same bytes every time; a decompression
bomb is refused from its header. Real images, made here with Pillow."""

from __future__ import annotations

import base64
import io
import struct
import tracemalloc
import zlib

from PIL import Image

from cursor_byok.llm import image_fit
from cursor_byok.llm.image_fit import (
    MAX_BYTES,
    MAX_EDGE,
    Fitted,
    Refused,
    attached_image,
    fit,
    tool_image,
)
from cursor_byok.llm.images import GIF, JPEG, PNG, WEBP
from cursor_byok.llm.types import ImageContent, TextContent
from tests import image_samples


def photo(width: int, height: int, fmt: str = "JPEG", mode: str = "RGB") -> bytes:
    """A picture with detail everywhere (noise over a gradient), so its
    encoded size is a photo's, not a flat colour's."""
    noise = Image.effect_noise((width, height), 60).convert(mode)
    out = io.BytesIO()
    noise.save(out, fmt)
    return out.getvalue()


def size_of(data: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(data)).size


def test_an_image_within_the_limits_is_kept_byte_for_byte() -> None:
    data = photo(640, 480)
    assert fit(data, JPEG) == Fitted(data, JPEG)


def test_a_wide_photo_is_scaled_into_the_long_edge_the_same_way_every_time() -> None:
    data = photo(3000, 1500)
    first = fit(data, JPEG)
    assert isinstance(first, Fitted) and first.resized and first.mime == JPEG
    assert size_of(first.data) == (MAX_EDGE, 1000)
    assert fit(data, JPEG) == first  # the same bytes: history and cache stay stable


def test_a_png_over_the_bytes_limit_is_made_smaller_until_it_fits() -> None:
    data = photo(1900, 1900, "PNG", "RGB")
    assert len(data) > MAX_BYTES  # noise does not compress
    fitted = fit(data, PNG)
    assert isinstance(fitted, Fitted) and fitted.mime == PNG
    assert len(fitted.data) <= MAX_BYTES
    width, height = size_of(fitted.data)
    assert width == height < 1900


def test_a_large_gif_becomes_a_png_of_its_first_frame() -> None:
    data = photo(2400, 600, "GIF", "P")
    fitted = fit(data, GIF)
    assert isinstance(fitted, Fitted) and fitted.mime == PNG
    assert size_of(fitted.data) == (2000, 500)


def test_webp_keeps_its_format() -> None:
    fitted = fit(photo(2200, 1100, "WEBP"), WEBP)
    assert isinstance(fitted, Fitted) and fitted.mime == WEBP
    assert size_of(fitted.data) == (2000, 1000)


def _png_header(width: int, height: int, rows: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_a_decompression_bomb_is_refused_from_its_header_and_never_decoded() -> None:
    """A file of a few hundred bytes claiming 60000x60000 RGBA pixels (14 GB
    decoded) is refused with a note, using no memory to speak of."""
    bomb = _png_header(60_000, 60_000, bytes(100_000))
    assert len(bomb) < 1000
    tracemalloc.start()
    try:
        refused = fit(bomb, PNG)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(refused, Refused)
    assert "megapixels the server decodes" in refused.note
    assert peak < 5_000_000


def test_just_over_the_pixel_bound_is_refused_too() -> None:
    """Pillow itself only raises at twice its bound; the server's check of
    the header refuses anything over it."""
    width = int((image_fit.MAX_PIXELS * 1.2) ** 0.5)
    refused = fit(_png_header(width, width), PNG)
    assert isinstance(refused, Refused) and f"{width}x{width} pixels" in refused.note


def test_a_broken_file_is_a_note() -> None:
    broken = image_samples.png(3000, 10)[:60]  # the header, then cut off
    refused = fit(broken, PNG)
    assert isinstance(refused, Refused) and "could not be decoded" in refused.note


def test_the_client_type_is_never_trusted() -> None:
    """The CLI calls every image JPEG: the bytes say PNG, and PNG is what is
    decoded and sent."""
    data = photo(2100, 100, "PNG")
    block = attached_image(data, "image/jpeg")
    assert isinstance(block, ImageContent) and block.mime_type == PNG
    assert size_of(base64.b64decode(block.data)) == (2000, 95)
    note = attached_image(b"GIF-not-really", "image/gif")
    assert isinstance(note, TextContent) and "the client called it image/gif" in note.text


def test_a_tool_image_is_fitted_as_an_attached_one() -> None:
    block = tool_image(photo(100, 2600))
    assert isinstance(block, ImageContent) and block.mime_type == JPEG
    assert size_of(base64.b64decode(block.data)) == (77, 2000)
