"""The shared guards: one secret redactor, one loopback check, the Host check."""

from __future__ import annotations

import pytest

from cursor_byok.config.guards import (
    HostCheck,
    Redactor,
    host_name,
    is_loopback_host,
    is_loopback_url,
)
from cursor_byok.config.routing import _needs_key
from cursor_byok.config.settings import ProviderConfig


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST.", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]
)
def test_loopback_hosts(host: str) -> None:
    assert is_loopback_host(host)


@pytest.mark.parametrize(
    "host",
    [
        "localhost.evil.com",
        "evil-localhost",
        "127.0.0.1.example.com",
        "0.0.0.0",
        "10.0.0.1",
        "::",
        "",
    ],
)
def test_names_that_only_contain_a_loopback_name_are_not_loopback(host: str) -> None:
    assert not is_loopback_host(host)


def test_a_url_is_judged_by_its_host_alone() -> None:
    assert is_loopback_url("http://localhost:11434/v1")
    assert is_loopback_url("http://[::1]:8000/v1")
    assert not is_loopback_url("https://localhost.evil.com/v1")
    assert not is_loopback_url("https://evil.com/?next=http://127.0.0.1")
    assert not is_loopback_url("not a url")


def test_only_a_real_loopback_server_goes_without_a_key() -> None:
    local = ProviderConfig(name="ollama", api="openai-chat", base_url="http://127.0.0.1:11434/v1")
    assert not _needs_key(local)
    sneaky = ProviderConfig(name="x", api="openai-chat", base_url="https://localhost.evil.com/v1")
    assert _needs_key(sneaky)


def test_the_redactor_cuts_every_form_longest_first_and_spares_short_values() -> None:
    redact = Redactor(["sk-ant-abc123", "sk-ant-abc123-long", "abc"])
    assert redact("key sk-ant-abc123-long and sk-ant-abc123") == "key *** and ***"
    assert redact('quoted "sk-ant-abc123"') == 'quoted "***"'
    assert redact("abc stays") == "abc stays"
    escaped = Redactor(['k"ey\\1'])
    assert "***" in escaped(repr('k"ey\\1'))
    assert not Redactor(["ab"]) and Redactor(["abcd"])


def test_host_header_values_lose_their_port() -> None:
    assert host_name("Example.COM:8417") == "example.com"
    assert host_name("[::1]:8417") == "::1"
    assert host_name("localhost.") == "localhost"


def test_a_loopback_bind_answers_loopback_and_extra_names_only() -> None:
    loopback = HostCheck("127.0.0.1", ["proxy.lan"])
    assert loopback.allows("proxy.lan:80") and loopback.allows("localhost:1")
    assert loopback.allows("[::1]:8417") and loopback.allows("127.0.0.1")
    assert not loopback.allows("evil.example") and not loopback.allows("localhost.evil.example")
    assert not loopback.allows(None) and not loopback.allows("")
    assert HostCheck("0.0.0.0").allows("anything.example")  # the token guards a public bind
