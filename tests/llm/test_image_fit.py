"""Images fitted once, when they enter the conversation: within every
provider's per-image limits they are kept byte for byte; past them they are
scaled down and encoded again, the same bytes every time; a decompression
bomb is refused from its header. Real images, made here with Pillow."""

from __future__ import annotations

import base64
import io
import struct
import subprocess
import sys
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
    noise.save(out, fmt, **({"compress_level": 1} if fmt == "PNG" else {}))
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


def test_a_heavy_png_without_transparency_becomes_a_jpeg() -> None:
    """Pixels that stay above the bytes limit at 2000 px are a photo's: a
    JPEG holds them (what the CLI makes of every image)."""
    data = photo(1900, 1900, "PNG", "RGB")
    assert len(data) > MAX_BYTES  # noise does not compress
    fitted = fit(data, PNG)
    assert isinstance(fitted, Fitted) and fitted.mime == JPEG
    assert len(fitted.data) <= MAX_BYTES and size_of(fitted.data) == (1900, 1900)


def test_a_heavy_png_with_transparency_stays_a_png_made_smaller() -> None:
    data = photo(1900, 1900, "PNG", "RGBA")
    assert len(data) > MAX_BYTES
    fitted = fit(data, PNG)
    assert isinstance(fitted, Fitted) and fitted.mime == PNG
    assert len(fitted.data) <= MAX_BYTES
    width, height = size_of(fitted.data)
    assert width == height < 1900
    assert Image.open(io.BytesIO(fitted.data)).mode == "RGBA"


def test_a_large_gif_becomes_a_png_of_its_first_frame() -> None:
    data = photo(2400, 600, "GIF", "P")
    fitted = fit(data, GIF)
    assert isinstance(fitted, Fitted) and fitted.mime == PNG
    assert size_of(fitted.data) == (2000, 500)


def test_a_small_gif_becomes_a_png_too_so_every_api_takes_it() -> None:
    """Gemini refuses GIF and OpenAI an animated one: the stored form is
    the first frame as a PNG, for any model the conversation moves to."""
    frames = [Image.new("RGB", (40, 30), colour) for colour in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    fitted = fit(out.getvalue(), GIF)
    assert isinstance(fitted, Fitted) and fitted.mime == PNG and fitted.resized
    first = Image.open(io.BytesIO(fitted.data)).convert("RGB")
    assert first.size == (40, 30) and first.getpixel((5, 5)) == (255, 0, 0)
    assert fit(out.getvalue(), GIF) == fitted  # the same bytes every time


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


BOMB_CHECK = """
import resource, struct, sys, zlib
limit, side = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from cursor_byok.llm.image_fit import fit, Refused
def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
for each in (60_000, side):  # far over Pillow's bound, and just under twice it
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", each, each, 8, 6, 0, 0, 0))
    rows = chunk(b"IDAT", zlib.compress(bytes(100_000)))
    bomb = bytes.fromhex("89504e470d0a1a0a") + header + rows + chunk(b"IEND", b"")
    assert len(bomb) < 1000
    refused = fit(bomb, "image/png")
    assert isinstance(refused, Refused), refused
    print(refused.note)
"""


def test_a_decompression_bomb_is_refused_from_its_header_and_never_decoded() -> None:
    """Files of a few hundred bytes claiming 60000x60000 RGBA pixels (14 GB
    decoded), and just under twice Pillow's bound (where Pillow itself only
    warns: 380 MB decoded), are refused with a note, in a process whose
    address space is capped far below what decoding either would take."""
    side = int((image_fit.MAX_PIXELS * 1.9) ** 0.5)
    limit = 1024 * 1024 * 1024  # the interpreter and its libraries fit; a decode would not
    done = subprocess.run(
        [sys.executable, "-c", BOMB_CHECK, str(limit), str(side)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    notes = done.stdout.splitlines()
    assert len(notes) == 2 and all("megapixels the server decodes" in n for n in notes)
    assert f"{side}x{side} pixels" in notes[1]


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
