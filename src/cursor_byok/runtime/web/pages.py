"""A fetched page as the model reads it: HTML made markdown, text and
markdown as they are, at most `max_chars` characters with the cut stated.

The markdown comes from html-to-markdown (a Rust core; pyproject.toml says
why that one): scripts, styles, hidden elements, navigation and forms are
left out, inline `data:` images become their alt text, code blocks keep
their language. It runs in a worker thread, so a large page does not hold
the event loop. The text is decoded as a browser would: a byte-order mark
first, then the Content-Type's charset, then (for HTML) a `<meta>` charset
near the top, else UTF-8; what does not decode becomes U+FFFD.
"""

from __future__ import annotations

import asyncio
import codecs
import re
import ssl
from dataclasses import dataclass

import html_to_markdown

from cursor_byok.runtime.web.fetch import (
    FetchedPage,
    FetchRefused,
    Resolve,
    fetch,
    system_resolve,
)
from cursor_byok.runtime.web.limits import FetchLimits

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE
)
_LATIN1_LABELS = frozenset(
    {"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "ascii", "us-ascii"}
)
"""Labels browsers read as windows-1252 (the WHATWG encoding standard)."""
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True, slots=True)
class WebPage:
    """A page for the model: its final URL and its text, cut to the limit."""

    url: str
    markdown: str
    notes: tuple[str, ...] = ()
    """What was cut, also stated at the end of `markdown`."""
    whole: str = ""
    """The whole text when `max_chars` cut it (what was read), else empty:
    the fetch may hand it to the client as a file (`output_location`)."""


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().lower()
    if label in _LATIN1_LABELS:
        return "cp1252"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def decode(body: bytes, charset: str | None, html: bool) -> str:
    """The body's text, decoded as a browser would."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace")
    encoding = _codec(charset)
    if encoding is None and html:
        found = _META_CHARSET.search(body[:2048])
        encoding = _codec(found.group(1).decode("ascii")) if found else None
        if encoding is not None and encoding.startswith("utf-16"):
            encoding = "utf-8"  # a meta tag read as ASCII cannot be UTF-16
    return body.decode(encoding or "utf-8", errors="replace")


def kind_of_body(media_type: str | None, body: bytes) -> str | None:
    """ "html" or "text" for what the page is, None for bytes no tool reads.
    A page that names no type is judged by its first bytes."""
    if media_type is not None:
        return "html" if media_type in HTML_TYPES else "text"
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<!--")):
        return "html"
    if b"\x00" in body[:1024]:
        return None
    return "text"


def html_markdown(html: str, base_url: str) -> str:
    """HTML as markdown, its links made absolute against `base_url` so the
    model can follow them (CPU-bound: call it off the event loop)."""
    options = html_to_markdown.ConversionOptions(
        extract_metadata=False, inline_data_media="alt_text_only", base_url=base_url
    )
    return (html_to_markdown.convert(html, options).content or "").strip() + "\n"


def cut(text: str, max_chars: int) -> tuple[str, str | None]:
    """At most `max_chars` characters, ending at a line break when one is
    near; the note says how much was shown."""
    if len(text) <= max_chars:
        return text, None
    end = text.rfind("\n", max_chars - max_chars // 10, max_chars)
    shown = text[: end if end > 0 else max_chars]
    return shown, f"cut at {len(shown):,} of {len(text):,} characters"


async def page_text(page: FetchedPage, max_chars: int) -> WebPage | FetchRefused:
    """The page as markdown or text, cut to `max_chars`, every cut stated."""
    kind = kind_of_body(page.media_type, page.body)
    if kind is None:
        return FetchRefused(page.url, "refused: the page is binary and names no type")
    text = decode(page.body, page.charset, kind == "html")
    if kind == "html":
        try:
            text = await asyncio.to_thread(html_markdown, text, page.url)
        except Exception as error:  # noqa: BLE001 - a page the converter cannot read
            return FetchRefused(page.url, f"failed: the HTML could not be converted ({error})")
    whole = text
    text, cut_note = cut(text, max_chars)
    notes = (*page.notes, *([cut_note] if cut_note else []))
    if notes:
        text = text.rstrip("\n") + "\n\n" + "".join(f"[{note}]\n" for note in notes)
    return WebPage(page.url, text, notes, whole if cut_note else "")


async def read_page(
    url: str,
    limits: FetchLimits,
    *,
    resolve: Resolve = system_resolve,
    tls: ssl.SSLContext | None = None,
) -> WebPage | FetchRefused:
    """Fetch `url` safely and hand back its text for the model."""
    fetched = await fetch(url, limits, resolve=resolve, tls=tls)
    if isinstance(fetched, FetchRefused):
        return fetched
    return await page_text(fetched, limits.max_chars)
