"""Which hosts the fetch may reach: every spelling of a special address is
read as that address, IPv6 forms that carry an IPv4 address are judged by
it, and the allow-list opens private hosts but never metadata."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from cursor_byok.runtime.web.addresses import (
    BadHost,
    PrivateHosts,
    kind_of,
    name_refusal,
    parse_host,
    parse_ipv4,
    refusal,
)

NOBODY = PrivateHosts()


@pytest.mark.parametrize(
    ("spelled", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),  # one decimal number
        ("0x7f000001", "127.0.0.1"),  # one hex number
        ("0x7f.1", "127.0.0.1"),  # short form, hex
        ("0177.0.0.1", "127.0.0.1"),  # octal
        ("0177.0.0.01", "127.0.0.1"),
        ("127.1", "127.0.0.1"),  # short form: the last part fills the rest
        ("127.0.1", "127.0.0.1"),
        ("127.0.0.1.", "127.0.0.1"),  # trailing dot
        ("0X7F.0.0.1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("0x0a.0.0.5", "10.0.0.5"),
        ("012.0.0.5", "10.0.0.5"),
        ("167772165", "10.0.0.5"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
        ("2852039166", "169.254.169.254"),
    ],
)
def test_every_ipv4_spelling_is_read_as_its_address(spelled: str, address: str) -> None:
    assert parse_ipv4(spelled) == ipaddress.IPv4Address(address)
    assert parse_host(spelled) == ipaddress.IPv4Address(address)


@pytest.mark.parametrize(
    "host", ["256.0.0.1", "1.2.3.4.5", "08.0.0.1", "0x1g.0.0.1", "1.2.3.4294967296", "1..2.3"]
)
def test_a_host_ending_in_a_number_that_is_no_address_is_refused(host: str) -> None:
    with pytest.raises(BadHost, match="not a valid address"):
        parse_host(host)


@pytest.mark.parametrize("host", ["a b.com", "%31%32%37.0.0.1", "ex%00ample.com", "-x.com", "a..b"])
def test_a_host_that_is_no_name_is_refused(host: str) -> None:
    with pytest.raises(BadHost):
        parse_host(host)


def test_names_are_kept_as_names_without_the_trailing_dot() -> None:
    assert parse_host("Example.COM.") == "example.com"
    assert parse_host("1x.example") == "1x.example"
    assert parse_host("xn--bcher-kva.de") == "xn--bcher-kva.de"


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("10.0.0.5", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("169.254.1.1", "link-local"),
        ("169.254.169.254", "cloud metadata"),
        ("100.100.100.200", "cloud metadata"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("255.255.255.255", "reserved"),
        ("240.0.0.1", "reserved"),
        ("192.0.2.1", "reserved"),
        ("198.18.0.1", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "unique-local"),
        ("fd12:3456::1", "unique-local"),
        ("fd00:ec2::254", "cloud metadata"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("2001:db8::1", "reserved"),
        ("100::1", "reserved"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
        ("::ffff:10.0.0.5", "private"),
        ("::ffff:169.254.169.254", "cloud metadata"),
        ("::127.0.0.1", "loopback"),  # IPv4-compatible
        ("64:ff9b::10.0.0.5", "private"),  # NAT64
        ("64:ff9b::127.0.0.1", "loopback"),
        ("64:ff9b:1::1", "private"),  # local-use NAT64
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
        ("2002:a00:5::1", "private"),  # 6to4 of 10.0.0.5
        ("2001:0:4136:e378:8000:63bf:f5ff:fffa", "private"),  # Teredo, client 10.0.0.5
    ],
)
def test_special_addresses_are_named_by_kind(address: str, kind: str) -> None:
    assert kind_of(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize(
    "address",
    [
        "93.184.215.14",
        "8.8.8.8",
        "1.1.1.1",
        "2606:4700:4700::1111",
        "::ffff:8.8.8.8",
        "2002:808:808::1",
    ],
)
def test_public_addresses_pass(address: str) -> None:
    assert kind_of(ipaddress.ip_address(address)) is None
    assert refusal(ipaddress.ip_address(address), address, None, NOBODY) is None


def test_a_scoped_ipv6_address_is_link_local_whatever_its_address() -> None:
    assert kind_of(ipaddress.IPv6Address("2606:4700::1%eth0")) == "link-local"
    with pytest.raises(BadHost, match="zone id"):
        parse_host("fe80::1%25eth0")


def test_the_reasons_name_the_address_as_spelled_and_as_read() -> None:
    def reason(host: str, name: str | None = None) -> str | None:
        address = parse_host(host)
        assert not isinstance(address, str)
        return refusal(address, host, name, NOBODY)

    assert reason("10.0.0.5") == "refused: 10.0.0.5 is a private address"
    assert reason("0x7f.1") == "refused: 0x7f.1 is 127.0.0.1, a loopback address"
    assert (
        reason("::ffff:7f00:1") == "refused: ::ffff:7f00:1 leads to 127.0.0.1, a loopback address"
    )
    assert reason("169.254.169.254") == "refused: 169.254.169.254 is a cloud metadata address"
    assert reason("10.0.0.5", "wiki.test") == (
        "refused: wiki.test resolves to 10.0.0.5, a private address"
    )
    assert name_refusal("metadata.google.internal", NOBODY) == (
        "refused: metadata.google.internal is a cloud metadata service"
    )
    assert name_refusal("app.localhost", NOBODY) == "refused: app.localhost is a loopback name"
    assert name_refusal("example.com", NOBODY) is None


def test_the_allow_list_opens_listed_names_and_networks_only() -> None:
    allow = PrivateHosts.parse(["wiki.corp.test", "*.lab.test", "10.20.0.0/16", "fd12::/48"])
    private = ipaddress.ip_address("10.9.9.9")
    assert allow.allows(private, "wiki.corp.test")
    assert allow.allows(private, "build.lab.test")
    assert not allow.allows(private, "lab.test")
    assert not allow.allows(private, "other.corp.test")
    assert allow.allows(ipaddress.ip_address("10.20.3.4"), None)
    assert allow.allows(ipaddress.ip_address("fd12::7"), "anything.test")
    assert not allow.allows(ipaddress.ip_address("10.21.0.1"), None)
    assert refusal(ipaddress.ip_address("10.20.3.4"), "10.20.3.4", None, allow) is None
    assert allow.entries() == ["wiki.corp.test", "*.lab.test", "10.20.0.0/16", "fd12::/48"]


def test_no_allow_list_opens_metadata_multicast_or_unspecified() -> None:
    allow = PrivateHosts.parse(["169.254.0.0/16", "0.0.0.0/0", "::/0", "metadata.google.internal"])
    for text in ("169.254.169.254", "fd00:ec2::254", "224.0.0.1", "0.0.0.0", "::"):
        assert not allow.allows(ipaddress.ip_address(text), None), text
    assert allow.allows(ipaddress.ip_address("169.254.1.1"), None)
    assert name_refusal("metadata.google.internal", allow) is not None


@pytest.mark.parametrize("entry", ["not a host", "10.0.0.0/33", "*.", "http://x"])
def test_a_bad_allow_list_entry_is_named(entry: str) -> None:
    with pytest.raises(ValueError, match="neither a host name nor an address"):
        PrivateHosts.parse([entry])


def test_the_guard_stops_a_connection_off_this_machine(only_loopback: list[object]) -> None:
    """tests/runtime/web/conftest.py: what a fetch that failed to refuse
    would send is stopped here, and the test fails."""
    with socket.socket() as sock, pytest.raises(OSError, match="stay on this machine"):
        sock.connect(("10.0.0.5", 80))
    assert only_loopback == [("10.0.0.5", 80)]
    only_loopback.clear()
