"""Which hosts and addresses the web fetch may reach, in every spelling.

A URL's host is read the way a browser reads it (the WHATWG URL standard:
`0x7f.1`, `2130706433`, `0177.0.0.1` and `127.1` are all 127.0.0.1), so a
host that some resolver would take for an address is judged as that
address, never passed on as a name. Each address is then placed in the
IANA special-purpose ranges; IPv6 forms that carry an IPv4 address
(mapped, compatible, NAT64, 6to4, Teredo) are judged by the address they
carry. Everything is pure: the fetch resolves, this module decides.

The reasons are short sentences a user reads on the tool's card.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OCI, DigitalOcean, OpenStack...
        "169.254.170.2",  # AWS ECS task credentials
        "169.254.169.123",  # AWS time sync
        "100.100.100.200",  # Alibaba Cloud
        "fd00:ec2::254",  # AWS over IPv6
        "fd00:ec2::23",  # AWS DNS over IPv6
    )
)
"""Cloud metadata services: they hand out the machine's credentials, so
they are refused even when an allow-list covers their range."""

METADATA_NAMES = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)

_V4_RANGES: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "unspecified"),  # "this network": 0.0.0.0 reaches this machine
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "carrier-grade NAT"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "reserved"),
    ("192.0.2.0/24", "reserved"),  # documentation
    ("192.88.99.0/24", "reserved"),  # 6to4 relays
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "reserved"),  # benchmarking
    ("198.51.100.0/24", "reserved"),
    ("203.0.113.0/24", "reserved"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),  # and 255.255.255.255, broadcast
)

_V6_RANGES: tuple[tuple[str, str], ...] = (
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("64:ff9b:1::/48", "private"),  # local-use NAT64
    ("2001:2::/48", "reserved"),  # benchmarking
    ("2001:10::/28", "reserved"),  # ORCHID
    ("2001:20::/28", "reserved"),  # ORCHIDv2
    ("2001:db8::/32", "reserved"),  # documentation
    ("3fff::/20", "reserved"),  # documentation
    ("fc00::/7", "unique-local"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local"),
    ("ff00::/8", "multicast"),
)

_RANGES: tuple[tuple[Network, str], ...] = tuple(
    (ipaddress.ip_network(network), kind) for network, kind in _V4_RANGES + _V6_RANGES
)
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_COMPATIBLE = ipaddress.ip_network("::/96")

NEVER_ALLOWED = frozenset({"unspecified", "multicast", "cloud metadata"})
"""Kinds no allow-list opens: no web server is there, or (metadata) the
machine's credentials are."""

_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")


class BadHost(ValueError):
    """The host is neither a valid name nor a valid address."""


def _ipv4_number(part: str) -> int | None:
    """One dot-separated part as the WHATWG parser reads it: 0x hex, 0-led
    octal, else decimal; None when it is no number."""
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part.startswith("0"):
        part, radix = part[1:], 8
    if not part:
        return 0
    digits = "0123456789abcdef"[:radix]
    if any(c not in digits for c in part.lower()):
        return None
    return int(part, radix)


def parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host spells, in any form a browser or inet_aton
    takes; None for a name. A host whose last label is a number but that is
    no valid address raises `BadHost` (a browser refuses it too)."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    last = parts[-1]
    digits = last.isascii() and last.isdigit()
    if not last or (not digits and _ipv4_number(last) is None):
        return None
    numbers = [_ipv4_number(part) if part else None for part in parts]
    if len(numbers) > 4 or any(n is None for n in numbers):
        raise BadHost(f"{host} is not a valid address")
    values = [n for n in numbers if n is not None]
    *head, tail = values
    if any(n > 255 for n in head) or tail >= 256 ** (5 - len(values)):
        raise BadHost(f"{host} is not a valid address")
    value = tail + sum(n << (8 * (3 - i)) for i, n in enumerate(head))
    return ipaddress.IPv4Address(value)


def parse_host(raw_host: str) -> Address | str:
    """A URL's host (yarl's `raw_host`: lower case, IDNA-encoded, IPv6
    without brackets) as an address, or as a normalised name (no trailing
    dot). Raises `BadHost` for what is neither."""
    host = raw_host.lower()
    if "%" in host and ":" in host:
        shown = host.replace("%25", "%")
        raise BadHost(f"{shown} names a network interface (a zone id)")
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise BadHost(f"{raw_host} is not a valid address") from None
    address = parse_ipv4(host)
    if address is not None:
        return address
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if not name or len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        raise BadHost(f"{raw_host!r} is not a valid host name")
    return name


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one leads to: mapped (::ffff:a.b.c.d),
    compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:aabb:ccdd::),
    Teredo (the client's address)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64 or (address in _COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None


def kind_of(address: Address) -> str | None:
    """What makes an address one the fetch must not reach ("loopback",
    "private", "cloud metadata"...), or None for a public one."""
    if address in METADATA_ADDRESSES:
        return "cloud metadata"
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            return "link-local"
        inner = embedded_ipv4(address)
        if inner is not None and (kind := kind_of(inner)) is not None:
            return kind
    for network, kind in _RANGES:
        if address.version == network.version and address in network:
            return kind
    if isinstance(address, ipaddress.IPv6Address) and address not in _GLOBAL_UNICAST:
        if embedded_ipv4(address) is None:
            return "reserved"
    elif not address.is_global:
        return "reserved"  # a range the tables above miss, by the standard library's list
    return None


def describe(kind: str) -> str:
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{article} {kind} address"


@dataclass(frozen=True, slots=True)
class PrivateHosts:
    """The allow-list: names (`wiki.corp.example`, or `*.corp.example` for
    every name under it) and networks (`10.20.0.0/16`, `fd12::/48`, or one
    address) the fetch may reach although they are private. Empty by
    default: nothing private is reached. Never opens metadata, multicast or
    unspecified addresses."""

    names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> PrivateHosts:
        """From the configuration's strings; `ValueError` names a bad one."""
        names: set[str] = set()
        suffixes: list[str] = []
        networks: list[Network] = []
        for entry in entries:
            text = entry.strip().lower()
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
                continue
            except ValueError:
                pass
            wildcard = text.startswith("*.")
            try:
                name = parse_host(text[2:] if wildcard else text)
            except BadHost:
                name = None
            if not isinstance(name, str):
                raise ValueError(f"{entry!r} is neither a host name nor an address or network")
            if wildcard:
                suffixes.append("." + name)
            else:
                names.add(name)
        return cls(frozenset(names), tuple(suffixes), tuple(networks))

    def __bool__(self) -> bool:
        return bool(self.names or self.suffixes or self.networks)

    def allows_name(self, name: str) -> bool:
        return name in self.names or name.endswith(self.suffixes)

    def allows(self, address: Address, name: str | None) -> bool:
        """Whether `address` (reached as `name`, when by name) may be
        fetched although it is private."""
        if kind_of(address) in NEVER_ALLOWED:
            return False
        if name is not None and self.allows_name(name):
            return True
        return any(address.version == n.version and address in n for n in self.networks)

    def entries(self) -> list[str]:
        """As the configuration wrote them, for `cursor-byok check`."""
        return [*sorted(self.names), *("*" + s for s in self.suffixes), *map(str, self.networks)]


def refusal(address: Address, spelled: str, name: str | None, allow: PrivateHosts) -> str | None:
    """Why `address` may not be fetched, as the card says it, or None.
    `spelled` is how the URL wrote the host; `name` is set when the address
    came from resolving it."""
    kind = kind_of(address)
    if kind is None or allow.allows(address, name):
        return None
    text = str(address)
    if name is not None:
        return f"refused: {name} resolves to {text}, {describe(kind)}"
    inner = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    if inner is not None and kind_of(inner) == kind:
        return f"refused: {address} leads to {inner}, {describe(kind)}"
    if spelled.strip("[]").rstrip(".").lower() != text:
        return f"refused: {spelled} is {text}, {describe(kind)}"
    return f"refused: {text} is {describe(kind)}"


def name_refusal(name: str, allow: PrivateHosts) -> str | None:
    """Names refused before they are resolved: `localhost` and its
    subdomains, and the cloud metadata services' names."""
    if name in METADATA_NAMES:
        return f"refused: {name} is a cloud metadata service"
    if (name == "localhost" or name.endswith(".localhost")) and not allow.allows_name(name):
        return f"refused: {name} is a loopback name"
    return None
