"""A GET the model can ask for that cannot be turned against the server's
own network.

Each hop (the URL, then each redirect, followed here by hand) is judged
before anything is sent: http or https only, no user name or password, a
host that is no private, loopback, metadata or otherwise special address
in any spelling (`addresses`). A name is resolved once, every address it
has is judged, and the connection goes to those addresses only: aiohttp's
connector is given a resolver that answers from the judged list and knows
no other name, so a DNS answer that changes between the check and the
connect (rebinding) is never asked for. TLS is still verified against the
URL's host name.

The fetch is bounded: the whole of it by `timeout_s` (a page that drips in
is cut there), each hop's look-up, connection and response head by
`first_byte_s`, the body by `max_bytes` (reading stops at the cap, after
decompression; aiohttp inflates a chunk at a time). A page that does not
come back becomes a `FetchRefused` whose reason is one line for the card.
The fetch ignores HTTP(S)_PROXY: a proxy would reach hosts this check
never sees.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from yarl import URL

from cursor_byok.runtime.web.addresses import BadHost, name_refusal, parse_host, refusal
from cursor_byok.runtime.web.limits import MIB, FetchLimits

Resolve = Callable[[str, int], Awaitable[list[str]]]
"""Name and port -> the addresses to judge (the DNS edge; tests fake it)."""

REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_URL_CHARS = 8192
USER_AGENT = "Mozilla/5.0 (compatible; cursor-byok web fetch)"
ACCEPT = (
    "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,"
    "application/json;q=0.7,*/*;q=0.1"
)
TEXT_TYPES = frozenset(
    {"application/xhtml+xml", "application/json", "application/xml", "application/javascript"}
)
READABLE = "HTML, plain text, markdown, JSON or XML"


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """A page as it came: the body's bytes, at most `max_bytes` of them."""

    url: str
    """Where the page came from, after redirects."""
    status: int
    media_type: str | None
    """The Content-Type's type, lower case, without parameters; None when
    the server named none."""
    charset: str | None
    body: bytes
    notes: tuple[str, ...] = ()
    """What was cut and why, for the reader ("cut at 5 MiB: ...")."""


@dataclass(frozen=True, slots=True)
class FetchRefused:
    """No page: refused before anything was sent, or failed on the way."""

    url: str
    reason: str
    """One line for the card: "refused: 10.0.0.5 is a private address"."""


async def system_resolve(host: str, port: int) -> list[str]:
    """The machine's resolver (getaddrinfo), every address it gives."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class PinnedResolver(AbstractResolver):
    """aiohttp's resolver for one fetch: it answers only with the addresses
    judged for a name, and fails for any name not judged."""

    def __init__(self) -> None:
        self.vetted: dict[str, list[str]] = {}

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = self.vetted.get(host.rstrip(".").lower())
        if not addresses:
            raise OSError(f"{host} was not checked before connecting")
        return [
            ResolveResult(
                hostname=host,
                host=address,
                port=port,
                family=socket.AF_INET6 if ":" in address else socket.AF_INET,
                proto=0,
                flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
            )
            for address in addresses
        ]

    async def close(self) -> None:
        return None


def content_type(header: str | None) -> tuple[str | None, str | None]:
    """(media type, charset) of a Content-Type header."""
    if not header:
        return None, None
    media, *params = header.split(";")
    charset = None
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return media.strip().lower() or None, charset


def readable(media_type: str) -> bool:
    """Types handed on: HTML (made markdown), any text, JSON and XML."""
    return (
        media_type.startswith("text/")
        or media_type in TEXT_TYPES
        or media_type.endswith(("+json", "+xml"))
    )


async def vet(
    target: URL, limits: FetchLimits, resolve: Resolve, pinned: PinnedResolver
) -> URL | str:
    """The URL to request (an address written canonically, so aiohttp
    connects to exactly the one judged), or why it is refused. A name's
    judged addresses are handed to `pinned`."""
    if target.scheme not in ("http", "https"):
        scheme = f"{target.scheme}:" if target.scheme else "a relative URL"
        return f"refused: only http and https URLs are fetched, not {scheme}"
    raw = target.raw_host
    if not raw:
        return "refused: the URL names no host"
    try:
        host = parse_host(raw)
    except BadHost as error:
        return f"refused: {error}"
    allow = limits.private_hosts
    reason = refusal(host, raw, None, allow) if not isinstance(host, str) else None
    reason = reason or (name_refusal(host, allow) if isinstance(host, str) else None)
    if reason:
        return reason
    if target.raw_user is not None or target.raw_password is not None:
        return "refused: the URL carries a user name or password"
    if not isinstance(host, str):
        return target.with_host(str(host))
    port = target.port or (443 if target.scheme == "https" else 80)
    try:
        found = await resolve(host, port)
    except OSError as error:
        return f"failed: {host} could not be resolved ({error.strerror or error})"
    if not found:
        return f"failed: {host} has no address"
    for text in found:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            return f"failed: {host} resolved to {text!r}, which is no address"
        if reason := refusal(address, raw, host, allow):
            return reason
    pinned.vetted[host] = list(found)
    return target


def _size(count: int) -> str:
    return f"{count / MIB:g} MiB" if count >= MIB else f"{count} bytes"


def _failure(error: Exception, host: str) -> str:
    """A network failure as one line; never a traceback."""
    if isinstance(error, aiohttp.ClientConnectorCertificateError):
        return f"failed: {host}'s TLS certificate was not accepted ({error.certificate_error})"
    if isinstance(error, aiohttp.ClientSSLError):
        return f"failed: TLS with {host} failed ({error})"
    if isinstance(error, aiohttp.ClientConnectorError):
        return f"failed: could not connect to {host} ({error.strerror or error.os_error})"
    if isinstance(error, aiohttp.ClientResponseError):
        return f"failed: {host} sent an answer that is not valid HTTP ({error.message})"
    return f"failed: {host}: {error or type(error).__name__}"


async def _read(
    response: aiohttp.ClientResponse, limits: FetchLimits, deadline: float
) -> tuple[bytes, list[str]] | str:
    """The body, up to `max_bytes` and until the deadline; or why there is none."""
    body = bytearray()
    notes: list[str] = []
    try:
        async with asyncio.timeout_at(deadline):
            async for chunk in response.content.iter_any():
                room = limits.max_bytes - len(body)
                if len(chunk) > room:
                    body += chunk[:room]
                    notes.append(f"cut at {_size(limits.max_bytes)}: the rest was not read")
                    break
                body += chunk
    except TimeoutError:
        if not body:
            return f"timed out: no body within {limits.timeout_s:g} s"
        notes.append(
            f"cut at {limits.timeout_s:g} s: the page was still arriving ({_size(len(body))} read)"
        )
    except (OSError, aiohttp.ClientError) as error:
        if not body:
            return _failure(error, response.url.raw_host or "the server")
        notes.append(f"cut short: the connection broke after {_size(len(body))}")
    return bytes(body), notes


async def fetch(
    url: str,
    limits: FetchLimits,
    *,
    resolve: Resolve = system_resolve,
    tls: ssl.SSLContext | None = None,
) -> FetchedPage | FetchRefused:
    """GET `url` within `limits`, following redirects, each hop checked.
    `resolve` is the DNS edge and `tls` the trust store (the system's when
    None); tests set them."""
    if len(url) > MAX_URL_CHARS:
        return FetchRefused(
            url[:200], f"refused: the URL is longer than {MAX_URL_CHARS} characters"
        )
    try:
        target = URL(url.strip()).with_fragment(None)
    except (ValueError, TypeError) as error:
        return FetchRefused(url, f"refused: not a valid URL ({error})")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limits.timeout_s
    pinned = PinnedResolver()
    connector = aiohttp.TCPConnector(
        resolver=pinned, use_dns_cache=False, ssl=tls if tls is not None else True, limit=4
    )
    async with aiohttp.ClientSession(
        connector=connector,
        trust_env=False,
        timeout=aiohttp.ClientTimeout(),
        cookie_jar=aiohttp.DummyCookieJar(),
        headers={"User-Agent": USER_AGENT, "Accept": ACCEPT},
    ) as session:
        came_from: URL | None = None
        for _ in range(limits.max_redirects + 1):
            outcome = await _hop(session, target, limits, resolve, pinned, deadline)
            if isinstance(outcome, str):
                if came_from is not None:
                    outcome = f"{outcome} (redirected from {came_from})"
                return FetchRefused(str(target), outcome)
            response = outcome
            try:
                if response.status in REDIRECTS and "Location" in response.headers:
                    try:
                        came_from, target = target, target.join(URL(response.headers["Location"]))
                    except ValueError:
                        return FetchRefused(str(target), "failed: a redirect to an invalid URL")
                    target = target.with_fragment(None)
                    continue
                return await _page(response, target, limits, deadline)
            finally:
                response.close()
    return FetchRefused(str(target), f"refused: more than {limits.max_redirects} redirects")


async def _hop(
    session: aiohttp.ClientSession,
    target: URL,
    limits: FetchLimits,
    resolve: Resolve,
    pinned: PinnedResolver,
    deadline: float,
) -> aiohttp.ClientResponse | str:
    """Check one hop and send its request; the response head, or why not."""
    loop = asyncio.get_running_loop()
    total_binds = deadline - loop.time() < limits.first_byte_s
    host = target.raw_host or "the server"
    try:
        async with asyncio.timeout_at(min(deadline, loop.time() + limits.first_byte_s)):
            checked = await vet(target, limits, resolve, pinned)
            if isinstance(checked, str):
                return checked
            return await session.get(checked, allow_redirects=False)
    except TimeoutError:
        if total_binds:
            return f"timed out: no page within {limits.timeout_s:g} s"
        return f"timed out: {host} did not answer within {limits.first_byte_s:g} s"
    except (OSError, aiohttp.ClientError) as error:
        return _failure(error, host)


async def _page(
    response: aiohttp.ClientResponse, target: URL, limits: FetchLimits, deadline: float
) -> FetchedPage | FetchRefused:
    url = str(target)
    if response.status >= 300:
        return FetchRefused(url, f"failed: HTTP {response.status} {response.reason or ''}".strip())
    media, charset = content_type(response.headers.get("Content-Type"))
    if media is not None and not readable(media):
        return FetchRefused(url, f"refused: {media} is not a page this tool reads ({READABLE})")
    read = await _read(response, limits, deadline)
    if isinstance(read, str):
        return FetchRefused(url, read)
    body, notes = read
    return FetchedPage(url, response.status, media, charset, body, tuple(notes))
