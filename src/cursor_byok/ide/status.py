"""`ide status`: what is set, and whether a request Cursor would make reaches
this server through the proxy, its CA trusted as Cursor must trust it."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from cursor_byok.config.guards import host_name
from cursor_byok.ide import PROBE_HOST
from cursor_byok.ide.jsonc import JsoncError, loads
from cursor_byok.ide.proxy.routes import ANSWERED_PATHS
from cursor_byok.ide.settings import redacted, wanted_settings

PROXY_AUTH_REQUIRED = 407
PROBE_PATH = "/agent.v1.AgentService/GetUsableModels"
"""A path the proxy answers locally: the probe never reaches Cursor's servers."""


@dataclass(frozen=True, slots=True)
class Check:
    ok: bool | None
    """None: a note, neither a pass nor a failure."""
    what: str


def proxy_url_in(settings: Path) -> str | None:
    """Cursor's `http.proxy`, if the file says one."""
    try:
        document = loads(settings.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, JsoncError):
        return None
    value = document.get("http.proxy") if isinstance(document, dict) else None
    return value if isinstance(value, str) and value else None


def check_credentials(settings: Path, proxy_url: str, auth: str | None) -> Check | None:
    """A FAIL when the proxy would refuse `proxy_url`'s credentials (`auth`
    is what it takes: `user:password`), or when others can read them."""
    parts = urlsplit(proxy_url)
    if parts.password is None:
        return Check(
            False,
            "http.proxy has no credentials, and the proxy refuses clients without them: "
            "run 'cursor-byok ide setup' again and restart Cursor",
        )
    if auth is None or f"{parts.username}:{parts.password}" != auth:
        return Check(
            False,
            "http.proxy's credentials are not this installation's proxy password: "
            "run 'cursor-byok ide setup' again and restart Cursor",
        )
    if os.name == "posix" and settings.stat().st_mode & 0o077:
        return Check(
            False,
            f"{settings} holds the proxy's password and other users can read it: "
            f"chmod 600 {settings}",
        )
    return None


def check_settings(settings: Path, auth: str | None = None) -> tuple[list[Check], str | None]:
    """One line per key `ide setup` writes; also the proxy URL found, if any.
    `auth` is the proxy's `user:password`, None when it has none yet."""
    try:
        document = loads(settings.read_text(encoding="utf-8"))
    except FileNotFoundError:
        missing = f"no Cursor settings at {settings}: run 'cursor-byok ide setup'"
        return [Check(False, missing)], None
    except (OSError, UnicodeDecodeError, JsoncError) as error:
        return [Check(False, f"cannot read {settings}: {error}")], None
    if not isinstance(document, dict):
        return [Check(False, f"{settings} is not a JSON object")], None
    proxy_url = document.get("http.proxy")
    proxy_url = proxy_url if isinstance(proxy_url, str) and proxy_url else None
    checks = [Check(True, f"settings file {settings}")]
    for key, value in wanted_settings(proxy_url or "<proxy URL>").items():
        if key not in document:
            checks.append(Check(False, f"{key} is not set (run 'cursor-byok ide setup')"))
        elif key == "http.proxy" and proxy_url is not None:
            refusal = check_credentials(settings, proxy_url, auth)
            checks.append(refusal or Check(True, f"{key} = {redacted(proxy_url)!r}"))
        elif document[key] != value and key != "http.proxy":
            checks.append(Check(False, f"{key} = {document[key]!r}, expected {value!r}"))
        else:
            checks.append(Check(True, f"{key} = {document[key]!r}"))
    return checks, proxy_url


def probe(proxy_url: str, ca_certificate: Path, host: str = PROBE_HOST) -> Check:
    """A model-list request to Cursor's host through the proxy, checked like Cursor would."""
    if not ca_certificate.exists():
        return Check(False, f"no proxy CA at {ca_certificate}: run 'cursor-byok proxy' once")
    return asyncio.run(_probe(proxy_url, ca_certificate, host))


async def _probe(proxy_url: str, ca_certificate: Path, host: str) -> Check:
    import aiohttp  # noqa: PLC0415 (only the status probe sends a request; --help must not load it)

    tls = ssl.create_default_context(cafile=str(ca_certificate))
    timeout = aiohttp.ClientTimeout(total=None, connect=5.0, sock_read=5.0)
    shown = redacted(proxy_url)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.post(
                f"https://{host}{PROBE_PATH}",
                data=b"{}",
                headers={"content-type": "application/json"},
                proxy=proxy_url,
                ssl=tls,
                allow_redirects=False,
            ) as response,
        ):
            status, body = response.status, await response.read()
    except aiohttp.ClientHttpProxyError as error:
        if error.status == PROXY_AUTH_REQUIRED:
            return Check(
                False,
                f"the proxy at {shown} refused the credentials of http.proxy: run "
                "'cursor-byok ide setup' again and restart Cursor",
            )
        return Check(False, f"the proxy at {shown} refused the tunnel: {error}")
    except aiohttp.ClientConnectorError as error:
        hint = "is 'cursor-byok proxy' running?"
        if isinstance(error, aiohttp.ClientConnectorCertificateError):
            hint = f"the proxy's certificate is not from the CA {ca_certificate}"
        return Check(False, f"cannot reach https://{host} through {shown}: {hint}")
    except (aiohttp.ClientError, TimeoutError) as error:
        password = urlsplit(proxy_url).password
        detail = repr(error).replace(password, "***") if password else repr(error)
        return Check(False, f"request through {shown} failed: {detail}")
    if status != 200:
        text = body.decode("utf-8", "replace")[:200]
        return Check(False, f"{PROBE_PATH} through the proxy answered HTTP {status}: {text}")
    try:
        models = [m.get("modelId", "?") for m in json.loads(body).get("models", [])]
    except (ValueError, AttributeError):
        return Check(False, f"{PROBE_PATH} answered something that is not a model list")
    listed = ", ".join(models) if models else "none configured yet"
    return Check(True, f"https://{host} through {shown} reaches cursor-byok (models: {listed})")


def ca_check(ca_certificate: Path, host: str = PROBE_HOST) -> Check | None:
    """Whether the proxy's CA can still sign for Cursor's `host` (`host:port`
    too), and until when; None without a CA (the probe says so)."""
    if not ca_certificate.exists():
        return None
    try:
        from cursor_byok.ide.proxy.ca import NEW_CA_HINT, CAError, ca_info  # noqa: PLC0415
    except ImportError:  # no cryptography without the proxy extra
        return Check(None, f"proxy CA {ca_certificate} (its dates need 'cursor-byok[proxy]')")
    try:
        info = ca_info(ca_certificate)
    except CAError as error:
        return Check(False, str(error))
    problem = info.problem([host_name(host)])
    if problem is not None:
        return Check(False, f"the proxy CA {problem}: {NEW_CA_HINT}")
    return Check(True, f"proxy CA {info.describe()}")


def trust_note(ca_certificate: Path, env: Mapping[str, str]) -> Check:
    """Cursor's own trust cannot be seen from here; say what it needs."""
    if env.get("NODE_EXTRA_CA_CERTS") == str(ca_certificate):
        return Check(None, "NODE_EXTRA_CA_CERTS names the proxy CA in this shell")
    return Check(
        None,
        f"Cursor must trust {ca_certificate}: start it with NODE_EXTRA_CA_CERTS set to that "
        "file, or add the file to the system store (README)",
    )


def routing_note() -> Check:
    """The routing table, to compare with what a Cursor update may have moved."""
    answered = ", ".join(sorted({path.rsplit("/", 1)[1] for path in ANSWERED_PATHS}))
    return Check(None, f"the proxy answers {answered} of Cursor's hosts; the rest goes to Cursor")


def render(checks: list[Check]) -> list[str]:
    marks = {True: "ok  ", False: "FAIL", None: "note"}
    return [f"{marks[check.ok]} {check.what}" for check in checks]
