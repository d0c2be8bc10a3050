"""Small guards shared by the server, the router and the checks: cutting
secrets out of text before it is logged, stored or shown, telling a
loopback host from any other, and the `Host` names a server answers."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

MIN_SECRET_CHARS = 4
"""Shorter values are not cut: they would mangle ordinary words. So the
configuration refuses a shorter secret (`too_short`) rather than leave it in
every log line."""

TOO_SHORT = (
    f"too short to be cut out of logs (a secret needs at least {MIN_SECRET_CHARS} characters)"
)


def too_short(secrets: Iterable[str]) -> bool:
    """Some non-empty secret is one the Redactor would skip."""
    return any(0 < len(secret) < MIN_SECRET_CHARS for secret in secrets)


def header_secrets(value: str) -> list[str]:
    """A provider header's value, and the credential after its scheme
    (`Bearer sk-...`), which an error may quote alone."""
    scheme, space, credential = value.strip().partition(" ")
    return [value, credential.strip()] if space and scheme.isalpha() else [value]


class Redactor:
    """Replaces every secret with `***`, longest first (a key that contains
    another is cut whole), also where it was quoted in escaped form."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if len(secret) >= MIN_SECRET_CHARS:
                forms.update((secret, repr(secret)[1:-1], repr(secret.encode())[2:-1]))
        self._forms = sorted(forms, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def __call__(self, text: str) -> str:
        for form in self._forms:
            text = text.replace(form, "***")
        return text


@functools.lru_cache(maxsize=256)
def is_loopback_host(host: str) -> bool:
    """`localhost`, or an IP address of the loopback range (127.0.0.0/8, ::1).
    The whole name must match: `localhost.example.com` is not local. Kept per
    name: every request's `Host` is checked, and parsing an address each time
    is a visible part of a short request's cost."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_loopback_url(url: str) -> bool:
    """The URL's host is a loopback host (see `is_loopback_host`)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return host is not None and is_loopback_host(host)


def host_name(header: str) -> str:
    """The name part of a `Host` header value: `[::1]:80` -> `::1`, `a:1` -> `a`."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    name = value.partition(":")[0] if value.count(":") == 1 else value
    return name.rstrip(".")


class HostCheck:
    """Which `Host` headers a server answers. Bound to loopback, only
    loopback names and the configured extra names: a web page that rebinds
    its own DNS name to 127.0.0.1 still sends its own name, and is refused.
    On any other bind every name is served (the access token guards it)."""

    def __init__(self, bind_host: str, extra_names: Iterable[str] = ()) -> None:
        self.open = not is_loopback_host(bind_host)
        self.extra = frozenset(name.strip().lower().rstrip(".") for name in extra_names)

    def allows(self, header: str | None) -> bool:
        if self.open:
            return True
        if not header:
            return False
        name = host_name(header)
        return is_loopback_host(name) or name in self.extra
