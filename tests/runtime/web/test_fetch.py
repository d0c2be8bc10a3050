"""The fetch against real servers on loopback: hostile URLs refused before
anything is sent, names that resolve to private addresses and redirects to
them refused, rebinding defeated, slow and endless bodies cut, TLS checked
against the name. The test servers count as reachable only where a test
opens 127.0.0.1 through the allow-list; the default policy is untouched."""

from __future__ import annotations

import asyncio
import gzip
import ssl
from collections.abc import AsyncIterator

import pytest
import trustme
from aiohttp import web

from cursor_byok.runtime.web.fetch import FetchedPage, FetchRefused, fetch
from cursor_byok.runtime.web.limits import MIB, FetchLimits
from tests.runtime.web.sites import FakeDNS, Site, loopback_allowed

HOSTILE = [
    ("http://127.0.0.1/", "refused: 127.0.0.1 is a loopback address"),
    ("http://127.0.0.1:8417/", "refused: 127.0.0.1 is a loopback address"),
    ("http://2130706433/", "refused: 2130706433 is 127.0.0.1, a loopback address"),
    ("http://0x7f.1/", "refused: 0x7f.1 is 127.0.0.1, a loopback address"),
    ("http://0177.0.0.1/", "refused: 0177.0.0.1 is 127.0.0.1, a loopback address"),
    ("http://127.1/", "refused: 127.1 is 127.0.0.1, a loopback address"),
    ("http://127.0.0.1./", "refused: 127.0.0.1 is a loopback address"),
    ("http://localhost/", "refused: localhost is a loopback name"),
    ("http://LOCALHOST./", "refused: localhost is a loopback name"),
    ("http://[::1]/", "refused: ::1 is a loopback address"),
    ("http://[::ffff:127.0.0.1]/", "refused: ::ffff:7f00:1 leads to 127.0.0.1, a loopback address"),
    ("http://[::ffff:10.0.0.5]/", "refused: ::ffff:a00:5 leads to 10.0.0.5, a private address"),
    ("http://[64:ff9b::10.0.0.5]/", "refused: 64:ff9b::a00:5 leads to 10.0.0.5, a private address"),
    ("http://[2002:7f00:1::]/", "refused: 2002:7f00:1:: leads to 127.0.0.1, a loopback address"),
    ("http://[fe80::1%25eth0]/", "refused: fe80::1%eth0 names a network interface (a zone id)"),
    ("http://[fd00:ec2::254]/latest/", "refused: fd00:ec2::254 is a cloud metadata address"),
    (
        "http://169.254.169.254/latest/meta-data/",
        "refused: 169.254.169.254 is a cloud metadata address",
    ),
    ("http://2852039166/", "refused: 2852039166 is 169.254.169.254, a cloud metadata address"),
    (
        "http://metadata.google.internal/",
        "refused: metadata.google.internal is a cloud metadata service",
    ),
    ("http://10.0.0.5/", "refused: 10.0.0.5 is a private address"),
    ("http://012.0.0.5/", "refused: 012.0.0.5 is 10.0.0.5, a private address"),
    ("http://192.168.1.1/", "refused: 192.168.1.1 is a private address"),
    ("http://172.20.0.1/", "refused: 172.20.0.1 is a private address"),
    ("http://100.64.0.1/", "refused: 100.64.0.1 is a carrier-grade NAT address"),
    ("http://0.0.0.0/", "refused: 0.0.0.0 is an unspecified address"),
    ("http://0/", "refused: 0 is 0.0.0.0, an unspecified address"),
    ("http://[::]/", "refused: :: is an unspecified address"),
    ("http://224.0.0.1/", "refused: 224.0.0.1 is a multicast address"),
    ("http://240.0.0.1/", "refused: 240.0.0.1 is a reserved address"),
    ("http://good.example@127.0.0.1/", "refused: 127.0.0.1 is a loopback address"),
    ("http://user:pw@example.com/", "refused: the URL carries a user name or password"),
    ("http://256.0.0.1/", "refused: 256.0.0.1 is not a valid address"),
    ("file:///etc/passwd", "refused: only http and https URLs are fetched, not file:"),
    ("gopher://example.com/", "refused: only http and https URLs are fetched, not gopher:"),
    ("/relative/path", "refused: only http and https URLs are fetched, not a relative URL"),
]


@pytest.mark.parametrize(("url", "reason"), HOSTILE)
async def test_hostile_urls_are_refused_with_their_reason(url: str, reason: str) -> None:
    dns = FakeDNS()  # answers nothing: no hostile URL may get as far as a look-up
    refused = await fetch(url, FetchLimits(), resolve=dns)
    assert isinstance(refused, FetchRefused)
    assert refused.reason == reason
    assert dns.asked == [] or url.startswith("http://user:pw@")


async def page(request: web.Request) -> web.Response:
    return web.Response(text="<h1>Hello</h1>", content_type="text/html")


@pytest.fixture
async def site() -> AsyncIterator[Site]:
    async def to_private(request: web.Request) -> web.Response:
        raise web.HTTPFound("http://10.0.0.5/admin")

    async def to_metadata_name(request: web.Request) -> web.Response:
        raise web.HTTPFound("http://metadata.google.internal/computeMetadata/v1/")

    async def to_page(request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently("/page")

    async def loop(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"/loop?n={int(request.query.get('n', 0)) + 1}")

    async def to_file(request: web.Request) -> web.Response:
        raise web.HTTPFound("file:///etc/passwd")

    async def pdf(request: web.Request) -> web.Response:
        return web.Response(body=b"%PDF-1.7", content_type="application/pdf")

    async def missing(request: web.Request) -> web.Response:
        raise web.HTTPNotFound()

    server = Site(
        {
            "/page": page,
            "/to-private": to_private,
            "/to-metadata": to_metadata_name,
            "/to-page": to_page,
            "/loop": loop,
            "/to-file": to_file,
            "/pdf": pdf,
            "/missing": missing,
        }
    )
    await server.start()
    yield server
    await server.stop()


async def test_the_default_policy_refuses_the_loopback_test_server(site: Site) -> None:
    refused = await fetch(site.url("/page"), FetchLimits())
    assert isinstance(refused, FetchRefused)
    assert refused.reason == "refused: 127.0.0.1 is a loopback address"
    assert site.hits == []


async def test_an_allowed_address_is_fetched(site: Site) -> None:
    fetched = await fetch(site.url("/page"), loopback_allowed())
    assert isinstance(fetched, FetchedPage)
    assert (fetched.status, fetched.media_type, fetched.charset) == (200, "text/html", "utf-8")
    assert fetched.body == b"<h1>Hello</h1>" and fetched.notes == ()


async def test_a_name_that_resolves_to_a_private_address_is_refused_before_connecting(
    site: Site,
) -> None:
    dns = FakeDNS({"intranet.example": [["93.184.215.14", "10.0.0.5"]]})
    url = site.url("/page", host="intranet.example")
    refused = await fetch(url, loopback_allowed(), resolve=dns)
    assert isinstance(refused, FetchRefused)
    assert refused.reason == "refused: intranet.example resolves to 10.0.0.5, a private address"
    dns = FakeDNS({"lo.example": [["127.0.0.1"]]})
    refused = await fetch(site.url("/page", host="lo.example"), FetchLimits(), resolve=dns)
    assert isinstance(refused, FetchRefused)
    assert refused.reason == "refused: lo.example resolves to 127.0.0.1, a loopback address"
    assert site.hits == []


async def test_a_name_on_the_allow_list_is_fetched(site: Site) -> None:
    dns = FakeDNS({"wiki.corp.test": [["127.0.0.1"]]})
    limits = loopback_allowed(["wiki.corp.test"])
    fetched = await fetch(site.url("/page", host="wiki.corp.test"), limits, resolve=dns)
    assert isinstance(fetched, FetchedPage) and fetched.body == b"<h1>Hello</h1>"
    refused = await fetch(site.url("/page"), limits)  # the address itself is not listed
    assert isinstance(refused, FetchRefused)


async def test_redirects_are_followed_and_each_hop_is_checked(site: Site) -> None:
    fetched = await fetch(site.url("/to-page"), loopback_allowed())
    assert isinstance(fetched, FetchedPage)
    assert fetched.url == site.url("/page") and fetched.body == b"<h1>Hello</h1>"
    refused = await fetch(site.url("/to-private"), loopback_allowed())
    assert isinstance(refused, FetchRefused)
    assert refused.reason == (
        f"refused: 10.0.0.5 is a private address (redirected from {site.url('/to-private')})"
    )
    assert refused.url == "http://10.0.0.5/admin"
    refused = await fetch(site.url("/to-metadata"), loopback_allowed())
    assert isinstance(refused, FetchRefused)
    assert refused.reason.startswith("refused: metadata.google.internal is a cloud metadata")
    refused = await fetch(site.url("/to-file"), loopback_allowed())
    assert isinstance(refused, FetchRefused)
    assert refused.reason.startswith("refused: only http and https URLs are fetched, not file:")


async def test_redirects_stop_after_the_limit(site: Site) -> None:
    refused = await fetch(site.url("/loop"), loopback_allowed(max_redirects=3))
    assert isinstance(refused, FetchRefused)
    assert refused.reason == "refused: more than 3 redirects"
    assert len(site.hits) == 4


async def test_a_type_no_tool_reads_is_refused_and_an_error_status_said(site: Site) -> None:
    refused = await fetch(site.url("/pdf"), loopback_allowed())
    assert isinstance(refused, FetchRefused)
    assert refused.reason == (
        "refused: application/pdf is not a page this tool reads "
        "(HTML, plain text, markdown, JSON or XML)"
    )
    refused = await fetch(site.url("/missing"), loopback_allowed())
    assert isinstance(refused, FetchRefused) and refused.reason == "failed: HTTP 404 Not Found"


async def test_a_name_that_rebinds_is_connected_to_at_the_address_checked() -> None:
    """The DNS answers a reachable address, then an internal one. The fetch
    looks the name up once and connects to the address it checked; a second
    hop to the same name is looked up and checked again, and refused."""

    async def bounce(request: web.Request) -> web.Response:
        raise web.HTTPFound("/page")

    public = await Site({"/": page, "/bounce": bounce}).start("127.0.0.1")
    internal = await Site({"/": page, "/page": page}).start("127.0.0.2", public.port)
    try:
        dns = FakeDNS({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
        fetched = await fetch(public.url("/", host="rebind.test"), loopback_allowed(), resolve=dns)
        assert isinstance(fetched, FetchedPage) and fetched.body == b"<h1>Hello</h1>"
        assert (public.hits, internal.hits, dns.asked) == (["/"], [], ["rebind.test"])

        dns = FakeDNS({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
        url = public.url("/bounce", host="rebind.test")
        refused = await fetch(url, loopback_allowed(), resolve=dns)
        assert isinstance(refused, FetchRefused)
        assert refused.reason.startswith(
            "refused: rebind.test resolves to 127.0.0.2, a loopback address"
        )
        assert internal.hits == []
    finally:
        await internal.stop()
        await public.stop()


async def test_a_body_far_over_the_cap_is_read_only_to_the_cap() -> None:
    sent = 0

    async def endless(request: web.Request) -> web.StreamResponse:
        nonlocal sent
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        chunk = b"x" * 65536
        for _ in range(160_000):  # 10 GiB if nobody stopped reading
            await response.write(chunk)
            sent += len(chunk)
        return response

    site = await Site({"/": endless}).start()
    try:
        fetched = await fetch(site.url(), loopback_allowed(max_bytes=MIB))
        assert isinstance(fetched, FetchedPage)
        assert len(fetched.body) == MIB
        assert fetched.notes == ("cut at 1 MiB: the rest was not read",)
        await asyncio.sleep(0.2)
        assert sent < 64 * MIB  # the server was cut off, not drained
    finally:
        await site.stop()


async def test_a_compressed_body_is_capped_after_inflating() -> None:
    """A gzip bomb: members of 16 MiB of zeros, 10 GiB inflated."""
    member = gzip.compress(b"\0" * 16 * MIB)
    sent = 0

    async def bomb(request: web.Request) -> web.StreamResponse:
        nonlocal sent
        response = web.StreamResponse(
            headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"}
        )
        await response.prepare(request)
        for _ in range(640):
            await response.write(member)
            sent += 1
        return response

    site = await Site({"/": bomb}).start()
    try:
        fetched = await fetch(site.url(), loopback_allowed(max_bytes=MIB))
        assert isinstance(fetched, FetchedPage)
        assert len(fetched.body) == MIB and fetched.body.count(0) == MIB
        assert fetched.notes == ("cut at 1 MiB: the rest was not read",)
        assert sent < 640
    finally:
        await site.stop()


async def test_a_slow_drip_is_cut_at_the_deadline() -> None:
    async def drip(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        for _ in range(600):
            await response.write(b"x")
            await asyncio.sleep(0.05)
        return response

    site = await Site({"/": drip}).start()
    try:
        fetched = await fetch(site.url(), loopback_allowed(timeout_s=0.5))
        assert isinstance(fetched, FetchedPage)
        assert 0 < len(fetched.body) < 50
        assert len(fetched.notes) == 1
        assert fetched.notes[0].startswith("cut at 0.5 s: the page was still arriving")
    finally:
        await site.stop()


async def test_a_server_that_never_answers_times_out_at_the_first_byte_limit() -> None:
    async def silent(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(60)
        raise AssertionError("unreachable")

    site = await Site({"/": silent}).start()
    try:
        refused = await fetch(site.url(), loopback_allowed(first_byte_s=0.3))
        assert isinstance(refused, FetchRefused)
        assert refused.reason == "timed out: 127.0.0.1 did not answer within 0.3 s"
        refused = await fetch(site.url(), loopback_allowed(first_byte_s=5, timeout_s=0.3))
        assert isinstance(refused, FetchRefused)
        assert refused.reason == "timed out: no page within 0.3 s"
    finally:
        await site.stop()


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


async def test_tls_is_verified_against_the_name_not_the_pinned_address(
    authority: trustme.CA,
) -> None:
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("site.test").configure_cert(server_tls)
    client_tls = ssl.create_default_context()
    authority.configure_trust(client_tls)
    site = await Site({"/": page}).start(tls=server_tls)
    try:
        dns = FakeDNS({"site.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})
        url = site.url("/", host="site.test", scheme="https")
        fetched = await fetch(url, loopback_allowed(), resolve=dns, tls=client_tls)
        assert isinstance(fetched, FetchedPage) and fetched.body == b"<h1>Hello</h1>"
        url = site.url("/", host="other.test", scheme="https")
        refused = await fetch(url, loopback_allowed(), resolve=dns, tls=client_tls)
        assert isinstance(refused, FetchRefused)
        assert refused.reason.startswith("failed: other.test's TLS certificate was not accepted")
        assert "other.test" in refused.reason and site.hits == ["/"]
    finally:
        await site.stop()


async def test_a_name_that_does_not_resolve_says_so() -> None:
    refused = await fetch("http://nowhere.test/", FetchLimits(), resolve=FakeDNS())
    assert isinstance(refused, FetchRefused)
    assert (
        refused.reason == "failed: nowhere.test could not be resolved (Name or service not known)"
    )
