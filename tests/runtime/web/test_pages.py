"""Pages as the model reads them, fetched from a real server: HTML made
markdown (links absolute, scripts gone), text and markdown passed through,
charsets honoured, binary refused, the character cap stated."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from cursor_byok.runtime.web.fetch import FetchedPage, FetchRefused
from cursor_byok.runtime.web.pages import WebPage, cut, decode, page_text, read_page
from tests.runtime.web.sites import RawSite, Site, loopback_allowed, untyped

ARTICLE = """<!doctype html>
<html><head><title>Notes</title><style>p { color: red }</style>
<script>document.write("tracking")</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Release notes</h1>
<p>The <strong>fetch</strong> is safe. See <a href="/docs/fetch">the docs</a>.</p>
<pre><code class="language-python">print("hi")</code></pre>
<ul><li>one</li><li>two</li></ul>
<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ" alt="a dot">
<div hidden>secret hidden text</div>
</body></html>"""


def raw(body: bytes, content_type: str) -> web.Response:
    return web.Response(body=body, headers={"Content-Type": content_type})


@pytest.fixture
async def site() -> AsyncIterator[Site]:
    async def article(request: web.Request) -> web.Response:
        return web.Response(text=ARTICLE, content_type="text/html")

    async def latin1(request: web.Request) -> web.Response:
        return raw(
            "<p>caf\u00e9 \u2013 na\u00efve</p>".encode("cp1252"), "text/html; charset=ISO-8859-1"
        )

    async def meta(request: web.Request) -> web.Response:
        hello = "\u041f\u0440\u0438\u0432\u0435\u0442"
        body = f'<html><head><meta charset="windows-1251"></head><p>{hello}</p>'
        return raw(body.encode("cp1251"), "text/html")

    async def text(request: web.Request) -> web.Response:
        return web.Response(text="line one\n<b>not html</b>\n", content_type="text/plain")

    async def markdown(request: web.Request) -> web.Response:
        return web.Response(text="# Title\n\n* kept as is *\n", content_type="text/markdown")

    async def long(request: web.Request) -> web.Response:
        lines = "".join(f"<p>paragraph {n} {'word ' * 20}</p>" for n in range(3000))
        return web.Response(text=f"<html><body>{lines}</body></html>", content_type="text/html")

    server = Site(
        {
            "/article": article,
            "/latin1": latin1,
            "/meta": meta,
            "/text": text,
            "/markdown": markdown,
            "/long": long,
        }
    )
    await server.start()
    yield server
    await server.stop()


async def read(site: Site, path: str, **limits: Any) -> WebPage:
    got = await read_page(site.url(path), loopback_allowed(**limits))
    assert isinstance(got, WebPage), got
    return got


async def test_html_becomes_markdown_with_absolute_links(site: Site) -> None:
    got = await read(site, "/article")
    base = site.url("")
    assert got.markdown == (
        "# Release notes\n\n"
        f"The **fetch** is safe. See [the docs]({base}/docs/fetch).\n\n"
        '```python\nprint("hi")\n```\n\n'
        "- one\n- two\n\n"
        "a dot\n"
    )
    assert got.notes == () and got.url == site.url("/article")


async def test_text_and_markdown_pass_through_as_they_are(site: Site) -> None:
    assert (await read(site, "/text")).markdown == "line one\n<b>not html</b>\n"
    assert (await read(site, "/markdown")).markdown == "# Title\n\n* kept as is *\n"


async def test_charsets_from_the_header_and_from_a_meta_tag(site: Site) -> None:
    assert (await read(site, "/latin1")).markdown == "caf\u00e9 \u2013 na\u00efve\n"
    assert (await read(site, "/meta")).markdown == "\u041f\u0440\u0438\u0432\u0435\u0442\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<!DOCTYPE html><p>no type</p>", "no type\n"),
        (b"plain words\n", "plain words\n"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None),
    ],
)
async def test_a_page_without_a_type_is_judged_by_its_bytes(
    body: bytes, expected: str | None
) -> None:
    site = await RawSite(untyped(body)).start()
    try:
        got = await read_page(site.url(), loopback_allowed())
    finally:
        await site.stop()
    if expected is None:
        assert got == FetchRefused(site.url(), "refused: the page is binary and names no type")
    else:
        assert isinstance(got, WebPage) and got.markdown == expected


async def test_a_long_page_is_cut_and_the_cut_stated(site: Site) -> None:
    got = await read(site, "/long", max_chars=10_000)
    shown, note = got.markdown.rsplit("\n\n", 1)
    assert len(shown) <= 10_000 and shown.endswith("word")
    assert note.startswith("[cut at ") and note.endswith(" characters]\n")
    assert got.notes == (note[1:-2],)
    total = int(note.split(" of ")[1].split(" ")[0].replace(",", ""))
    assert total > 300_000


async def test_a_byte_cut_is_stated_in_the_text_too(site: Site) -> None:
    got = await read(site, "/long", max_bytes=4096)
    assert got.markdown.endswith("\n\n[cut at 4096 bytes: the rest was not read]\n")
    assert got.notes == ("cut at 4096 bytes: the rest was not read",)


def test_decoding_prefers_the_byte_order_mark_and_replaces_what_does_not_decode() -> None:
    assert decode(b"\xef\xbb\xbfcaf\xc3\xa9", "iso-8859-1", html=False) == "caf\u00e9"
    assert decode("hi".encode("utf-16-le"), None, html=False) == "hi".encode("utf-16-le").decode()
    assert decode(b"\xff\xfeh\x00i\x00", None, html=False) == "hi"
    assert decode(b"ok \xff", None, html=False) == "ok \ufffd"
    assert decode(b"ok", "no-such-charset", html=False) == "ok"
    assert decode(b"\x93q\x94", "us-ascii", html=False) == "\u201cq\u201d"  # read as windows-1252


def test_the_cut_ends_at_a_line_break_when_one_is_near() -> None:
    text = "a" * 95 + "\n" + "b" * 100
    assert cut(text, 100) == ("a" * 95, "cut at 95 of 196 characters")
    assert cut("c" * 300, 100) == ("c" * 100, "cut at 100 of 300 characters")
    assert cut("short", 100) == ("short", None)


async def test_json_passes_as_text() -> None:
    page = FetchedPage("https://x.test/a.json", 200, "application/json", None, b'{"a": 1}')
    got = await page_text(page, 100)
    assert isinstance(got, WebPage) and got.markdown == '{"a": 1}'
