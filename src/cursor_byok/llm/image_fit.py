"""An image made to fit every provider's per-image limits, once, when it
enters the conversation.

Documented limits (each API's vision guide, read in 2026):

- Anthropic Messages (docs.anthropic.com/en/docs/vision): an image larger
  than 8000x8000 px is rejected, and in a request of more than 20 images
  the limit is 2000x2000 px; at most 100 images and 5 MB an image (the
  base64 string: 5 MiB of it is 3.75 MiB of bytes); 32 MB a request. An
  image whose long edge is above 1568 px is scaled down by the API itself
  (about 1,600 tokens at most): that is its recommended size.
- OpenAI Chat Completions and Responses (developers.openai.com, "Images and
  vision"): 50 MB a request, 500 images, 20 MB an image on the older
  models; `detail: high` scales an image into 2048x2048, then its short
  side to 768 px, and counts 512 px tiles; `low` is one 512 px image.
- Gemini `inline_data` (ai.google.dev, "Image understanding"): the whole
  request, text and inline files together, at most 20 MB; larger files go
  through the File API, which this server does not use.

One stored form serves every model a conversation may switch to, and the
request-wide rules must never change how an earlier message renders (the
provider's cache would miss at every new image), so an image is fitted to
what all of them take whatever the count: its long edge at most 2000 px
(Anthropic's many-image rule; OpenAI's high detail keeps 2048, so nothing
it would see is lost) and at most 3.75 MiB of bytes. 1568 px is not
enforced: the other APIs use more. A GIF, whatever its size, becomes a
PNG of its first frame: Gemini takes no GIF and OpenAI no animated one, so
a GIF kept as it came would be left out whenever the model changes. Any
other image within both limits is kept byte for byte, never decoded; one
past them is scaled down (Lanczos) and encoded again in its own format (an image
without transparency that is still too heavy at 2000 px is photographic,
and becomes a JPEG, as the CLI makes every image), smaller until it fits.
The result goes into history, so it is stored once by its hash like any
image (`store/images.py`) and sent as the same bytes on every later call:
nothing is resized per call.

The work takes up to a few hundred milliseconds of CPU for a large image
(bench/image_fit.py), so the session layer calls it in a worker thread.

The header is read before any pixel: an image of more than `MAX_PIXELS`
(a decompression bomb: a small file of huge dimensions) is refused with a
note and never decoded, and Pillow's own guard (`MAX_IMAGE_PIXELS`) is set
to the same bound. The decoder is chosen by the magic number
(`images.sniff_mime`), never by the type the client claims.
"""

from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps

from cursor_byok.llm.images import GIF, JPEG, PNG, WEBP, not_an_image_note, sniff_mime
from cursor_byok.llm.types import ImageContent, TextContent

MAX_EDGE = 2000
"""Pixels on the long edge: Anthropic's limit in a request of many images."""

MAX_BYTES = 5 * 1024 * 1024 * 3 // 4
"""Bytes of one image: Anthropic's 5 MiB of base64, the smallest per-image limit."""

MAX_PIXELS = 50_000_000
"""The largest image decoded (about 7000x7000: a 48-megapixel photo passes);
decoding one costs up to 4 bytes a pixel."""

Image.MAX_IMAGE_PIXELS = MAX_PIXELS

SHRINK = 0.9
"""The largest scale of a step when the encoded image is still too big."""
STEPS = 8

JPEG_QUALITY = 85

PNG_LEVEL = 3
"""zlib's level for a PNG made again: a third of the default's time for
pixels that do not compress (about as small, often smaller)."""

_FORMATS = {PNG: "PNG", JPEG: "JPEG", GIF: "GIF", WEBP: "WEBP"}


@dataclass(frozen=True, slots=True)
class Fitted:
    """The image to keep: `data` of type `mime` (the input itself when it fit)."""

    data: bytes
    mime: str
    resized: bool = False


@dataclass(frozen=True, slots=True)
class Refused:
    """Why the image cannot be kept: the note the model reads in its place."""

    note: str


def fit(data: bytes, mime: str) -> Fitted | Refused:
    """`data` (of the sniffed type `mime`) within the limits above."""
    fmt = _FORMATS[mime]
    try:
        with warnings.catch_warnings():
            # The header's size is checked below (Pillow only warns up to twice it).
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=[fmt])
    except Image.DecompressionBombError:
        return Refused(_bomb_note(len(data)))
    except (OSError, SyntaxError, ValueError):
        return Refused(f"[an image was left out: its {len(data)} bytes are a broken {fmt} file]")
    width, height = image.size
    if width * height > MAX_PIXELS:
        return Refused(_bomb_note(len(data), width, height))
    if max(width, height) <= MAX_EDGE and len(data) <= MAX_BYTES and mime != GIF:
        return Fitted(data, mime)
    try:
        return _resized(image, mime, width, height, len(data))
    except (OSError, SyntaxError, ValueError):
        return Refused(
            f"[an image was left out: its {width}x{height} {fmt} data could not be decoded]"
        )


def _bomb_note(size: int, width: int = 0, height: int = 0) -> str:
    dims = f"{width}x{height} pixels, " if width else ""
    return (
        f"[an image was left out: its {size} bytes claim {dims}more than the "
        f"{MAX_PIXELS // 1_000_000} megapixels the server decodes]"
    )


def _resized(
    image: Image.Image, mime: str, width: int, height: int, weight: int
) -> Fitted | Refused:
    """Scaled into `MAX_EDGE` and encoded again, smaller in steps until it
    is within `MAX_BYTES` (`weight`: the bytes it came as, which tell ahead
    when its own format cannot fit). Deterministic: the same input gives
    the same bytes."""
    scale = min(1.0, MAX_EDGE / max(width, height))
    if mime == JPEG:
        # Decode at a fraction of the size where the scale allows (less memory).
        image.draft("RGB", (max(1, int(width * scale)), max(1, int(height * scale))))
    image.seek(0)
    loaded = ImageOps.exif_transpose(image)  # the orientation the metadata gave, kept
    if mime == GIF:
        loaded = loaded.convert("RGBA")
        mime = PNG
    elif mime == JPEG and loaded.mode not in ("RGB", "L"):
        loaded = loaded.convert("RGB")
    elif loaded.mode in ("P", "1"):  # Pillow scales these by nearest pixel: colours first
        loaded = loaded.convert("RGBA" if _has_alpha(loaded) else "RGB")
    width, height = loaded.size
    scale = min(1.0, MAX_EDGE / max(width, height))
    if mime != JPEG and not _has_alpha(loaded) and weight * scale * scale > MAX_BYTES:
        mime, loaded = JPEG, loaded.convert("RGB")  # far too heavy: see below
    for _ in range(STEPS):
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        shrunk = loaded if size == loaded.size else loaded.resize(size, Image.Resampling.LANCZOS)
        encoded = _encode(shrunk, mime)
        if len(encoded) > MAX_BYTES and mime != JPEG and not _has_alpha(shrunk):
            # Photographic content (a screenshot compresses far below this):
            # JPEG, what the CLI makes of every image, fits at this size.
            mime, loaded = JPEG, loaded.convert("RGB")
            shrunk = shrunk.convert("RGB")
            encoded = _encode(shrunk, mime)
        if len(encoded) <= MAX_BYTES:
            return Fitted(encoded, mime, resized=True)
        # Smaller by what the size says is needed (bytes go with the area).
        scale *= min(SHRINK, 0.95 * (MAX_BYTES / len(encoded)) ** 0.5)  # at least 10%
    return Refused(
        f"[an image was left out: at {width}x{height} pixels it stays above "
        f"{MAX_BYTES // 1024} KiB however far it is scaled down]"
    )


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def _encode(image: Image.Image, mime: str) -> bytes:
    out = io.BytesIO()
    match mime:
        case "image/jpeg":
            image.save(out, "JPEG", quality=JPEG_QUALITY)
        case "image/webp":
            image.save(out, "WEBP", quality=JPEG_QUALITY, method=4)
        case _:
            image.save(out, "PNG", compress_level=PNG_LEVEL)
    return out.getvalue()


def attached_image(data: bytes, claimed: str) -> TextContent | ImageContent:
    """An image the user attached, typed by its bytes and fitted; a note
    when they are no image, or one that cannot be kept."""
    mime = sniff_mime(data)
    if mime is None:
        return TextContent(not_an_image_note(claimed))
    return _content(fit(data, mime))


def tool_image(data: bytes) -> TextContent | ImageContent:
    """What a tool's image bytes become in its result: the image, typed by
    its magic number and fitted, or a note when the bytes are no image a
    provider takes (the CLI keeps a BMP or TIFF as it is)."""
    mime = sniff_mime(data)
    if mime is None:
        return TextContent(
            f"[the tool returned an image that was left out: its {len(data)} bytes are "
            "not a PNG, JPEG, GIF or WebP image]"
        )
    return _content(fit(data, mime))


def _content(fitted: Fitted | Refused) -> TextContent | ImageContent:
    if isinstance(fitted, Refused):
        return TextContent(fitted.note)
    return ImageContent(base64.b64encode(fitted.data).decode("ascii"), fitted.mime)
