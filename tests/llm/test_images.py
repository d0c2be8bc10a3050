"""The image type comes from the bytes, whatever the client claims."""

from __future__ import annotations

import pytest

from cursor_byok.llm.images import GIF, JPEG, PNG, WEBP, sniff_mime
from tests import image_samples


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (image_samples.png(), PNG),
        (image_samples.JPEG, JPEG),
        (image_samples.GIF, GIF),
        (image_samples.GIF.replace(b"GIF89a", b"GIF87a"), GIF),
        (image_samples.WEBP, WEBP),
    ],
)
def test_each_format_is_known_by_its_magic_number(data: bytes, expected: str) -> None:
    assert sniff_mime(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x89PNG",  # cut short: not the whole signature
        b"RIFF\x00\x00\x00\x00WAVEfmt ",  # a RIFF file that is audio
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"BM\x00\x00",  # BMP: no provider takes it
        b"%PDF-1.7",
    ],
)
def test_anything_else_is_no_image(data: bytes) -> None:
    assert sniff_mime(data) is None
