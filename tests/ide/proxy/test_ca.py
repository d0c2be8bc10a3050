"""The proxy's CA: one per installation, private, reused, and really checked."""

from __future__ import annotations

import asyncio
import datetime
import io
import ipaddress
import socket
import ssl
import stat
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from mitmproxy.certs import CertStore, CertStoreEntry

from cursor_byok.cli.main import main
from cursor_byok.ide.proxy.ca import (
    BASENAME,
    CA_NAME,
    KEY_SIZE,
    VALIDITY,
    CAError,
    CAFiles,
    ca_info,
    ensure_ca,
)
from tests.ide.proxy.conftest import CURSOR_HOST, FakeCursor, RunningProxy


def test_created_once_private_and_reused(tmp_path: Path) -> None:
    files, created = ensure_ca(tmp_path / "ca")
    assert created
    assert stat.S_IMODE(files.key.stat().st_mode) == 0o600
    assert stat.S_IMODE(files.directory.stat().st_mode) == 0o700
    first = files.key.read_bytes()
    assert b"PRIVATE KEY" in first and b"PRIVATE KEY" not in files.certificate.read_bytes()
    again, created_again = ensure_ca(tmp_path / "ca")
    assert not created_again
    assert again.key.read_bytes() == first


def test_two_installations_get_different_keys(tmp_path: Path) -> None:
    one, _ = ensure_ca(tmp_path / "one")
    two, _ = ensure_ca(tmp_path / "two")
    assert one.key.read_bytes() != two.key.read_bytes()
    assert CA_NAME.encode() not in one.certificate.read_bytes()  # PEM is base64
    assert ssl.PEM_cert_to_DER_cert(one.certificate.read_text()).find(CA_NAME.encode()) > 0


def test_a_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    files, _ = ensure_ca(tmp_path / "ca")
    files.key.chmod(0o644)
    with pytest.raises(CAError, match="readable by others"):
        ensure_ca(tmp_path / "ca")


def test_an_unwritable_place_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(CAError, match="cannot create the proxy CA"):
        ensure_ca(blocker / "ca")


async def test_the_proxy_uses_it_and_clients_verify_it(
    tmp_path: Path, fake_cursor: FakeCursor, proxy_factory: Callable[..., RunningProxy]
) -> None:
    files, _ = ensure_ca(tmp_path / "ca", (CURSOR_HOST,))
    before = files.key.read_bytes()
    proxy = proxy_factory("http://127.0.0.1:9", files, fake_cursor.ca_file)
    assert files.key.read_bytes() == before  # reused, not replaced, on start
    async with httpx2.AsyncClient(
        proxy=proxy.url, verify=proxy.client_tls(), trust_env=False
    ) as client:
        assert (await client.get(f"{fake_cursor.url}/x")).status_code == 201
    leaf = await asyncio.to_thread(_leaf_through, proxy, fake_cursor.url)
    assert leaf.issuer == _certificate(files).subject
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == [CURSOR_HOST]
    other, _ = ensure_ca(tmp_path / "other", (CURSOR_HOST,))
    wrong = ssl.create_default_context(cafile=str(other.certificate))
    async with httpx2.AsyncClient(proxy=proxy.url, verify=wrong, trust_env=False) as client:
        with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(f"{fake_cursor.url}/x")
    assert len(fake_cursor.received) == 1


def _leaf_through(proxy: RunningProxy, url: str) -> x509.Certificate:
    """The certificate the proxy presents for `url`'s host, read off a real
    CONNECT and TLS handshake (verified against the proxy's CA)."""
    host, port = url.removeprefix("https://").split(":")
    proxy_host, proxy_port = proxy.url.removeprefix("http://").split(":")
    with socket.create_connection((proxy_host, int(proxy_port)), timeout=10) as raw:
        raw.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert raw.recv(4096).startswith(b"HTTP/1.1 200")
        with proxy.client_tls().wrap_socket(raw, server_hostname=host) as tls:
            der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der)


async def test_a_host_the_ca_does_not_permit_is_refused_by_a_verifying_client(
    tmp_path: Path, fake_cursor: FakeCursor, proxy_factory: Callable[..., RunningProxy]
) -> None:
    """A proxy made to intercept a host its CA was not made for (here
    `localhost` with the default CA, for cursor.sh): mitmproxy signs a leaf
    for it all the same, and a client trusting the CA refuses it."""
    files, _ = ensure_ca(tmp_path / "ca")
    proxy = proxy_factory("http://127.0.0.1:9", files, fake_cursor.ca_file)
    async with httpx2.AsyncClient(
        proxy=proxy.url, verify=proxy.client_tls(), trust_env=False
    ) as client:
        with pytest.raises(httpx2.ConnectError, match="permitted subtree violation"):
            await client.get(f"{fake_cursor.url}/x")
    assert fake_cursor.received == []


def _certificate(files: CAFiles) -> x509.Certificate:
    return x509.load_pem_x509_certificate(files.certificate.read_bytes())


def test_the_ca_signs_for_the_intercepted_domains_only_and_for_a_year(tmp_path: Path) -> None:
    """A stolen key must not be able to impersonate any other site, nor any
    IP address, to a program that trusts the CA, and not for long."""
    files, _ = ensure_ca(tmp_path / "ca", ("cursor.sh", "example.org"))
    cert = _certificate(files)
    constraints = cert.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraints.critical
    assert constraints.value.permitted_subtrees == [
        x509.DNSName("cursor.sh"),
        x509.DNSName("example.org"),
    ]
    assert constraints.value.excluded_subtrees == [
        x509.IPAddress(ipaddress.ip_network("0.0.0.0/0")),
        x509.IPAddress(ipaddress.ip_network("::/0")),
    ]
    basic = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
    assert basic.ca and basic.path_length == 0
    lasts = cert.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
    assert datetime.timedelta(days=364) < lasts <= datetime.timedelta(days=365)
    info = ca_info(files.certificate)
    assert info.domains == ("cursor.sh", "example.org")
    until = f"{cert.not_valid_after_utc:%Y-%m-%d}"
    assert info.describe() == f"valid until {until} for cursor.sh, example.org"


async def _handshake(leaf: CertStoreEntry, ca: CAFiles, name: str, tmp_path: Path) -> str:
    """A TLS server presenting `leaf`, and a client that trusts `ca` alone and
    asks for `name`: "ok", or why the client refused the certificate."""
    chain = tmp_path / "leaf.pem"
    chain.write_bytes(
        leaf.cert.to_pem()
        + leaf.privatekey.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    serving = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    serving.load_cert_chain(chain)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=serving)
    port = server.sockets[0].getsockname()[1]
    client = ssl.create_default_context(cafile=str(ca.certificate))
    try:
        _, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=client, server_hostname=name
        )
        writer.close()
        return "ok"
    except ssl.SSLCertVerificationError as error:
        return error.verify_message
    finally:
        server.close()


@pytest.mark.parametrize(
    ("host", "verdict"),
    [
        ("api2.cursor.sh", "ok"),
        ("cursor.sh", "ok"),
        ("example.com", "permitted subtree violation"),
        ("notcursor.sh", "permitted subtree violation"),
        ("127.0.0.1", "excluded subtree violation"),
    ],
)
async def test_a_leaf_mitmproxy_makes_verifies_for_an_intercepted_host_only(
    tmp_path: Path, host: str, verdict: str
) -> None:
    """mitmproxy's own certificate store, on this CA's files, makes the leaf
    it would serve for `host` (as anyone holding the key could): a client
    trusting the CA takes it for Cursor's hosts and refuses it for any other."""
    files, _ = ensure_ca(tmp_path / "ca")
    store = CertStore.from_store(files.directory, BASENAME, KEY_SIZE)
    try:
        name: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        name = x509.DNSName(host)
    leaf = store.get_cert(host, [name])
    assert leaf.cert.to_cryptography().issuer == _certificate(files).subject
    assert await _handshake(leaf, files, host, tmp_path) == verdict


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("CURSOR_BYOK_CONFIG", raising=False)
    return tmp_path / "config" / "cursor-byok" / "proxy-ca"


def _proxy(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["proxy", *argv], out=out), out.getvalue()


def test_ca_path_says_until_when_and_new_ca_replaces_it(
    config_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, printed = _proxy("--ca-path")
    files = CAFiles(config_home)
    assert (code, printed) == (0, f"{files.certificate}\n")  # alone: NODE_EXTRA_CA_CERTS=$(...)
    until = f"{_certificate(files).not_valid_after_utc:%Y-%m-%d}"
    assert f"the proxy CA is valid until {until} for cursor.sh" in capsys.readouterr().err
    old_key, old_certificate = files.key.read_bytes(), files.certificate.read_bytes()
    code, printed = _proxy("--new-ca", "--ca-path")
    assert (code, printed) == (0, f"{files.certificate}\n")
    assert "remove the old one from where you trusted it" in capsys.readouterr().err
    assert files.key.read_bytes() != old_key
    assert files.certificate.read_bytes() != old_certificate
    assert files.certificate.read_bytes() in files.key.read_bytes()
    assert stat.S_IMODE(files.key.stat().st_mode) == 0o600
    assert sorted(p.name for p in config_home.iterdir()) == [
        files.certificate.name,
        files.key.name,
    ]


@pytest.mark.parametrize(
    ("make", "argv", "said"),
    [
        # what mitmproxy made for earlier versions: no name constraints, ten years
        (
            lambda d: CertStore.create_store(d, BASENAME, KEY_SIZE, cn=CA_NAME),
            (),
            "can sign for any site (made by an earlier version, without name constraints)",
        ),
        (
            lambda d: ensure_ca(d, now=datetime.datetime.now(datetime.UTC) - VALIDITY),
            (),
            "expired on ",
        ),
        (ensure_ca, ("--intercept", "example.org"), "signs only for cursor.sh"),
    ],
)
def test_a_ca_that_cannot_serve_stops_the_proxy_naming_new_ca(
    config_home: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], object],
    argv: tuple[str, ...],
    said: str,
) -> None:
    make(config_home)
    before = CAFiles(config_home).key.read_bytes()
    code, printed = _proxy(*argv)
    error = capsys.readouterr().err
    assert code == 1 and printed == "" and "listening" not in error
    assert said in error and "run 'cursor-byok proxy --new-ca'" in error
    code, printed = _proxy("--ca-path", *argv)  # the path still, for the remove steps
    assert (code, printed) == (1, f"{CAFiles(config_home).certificate}\n")
    assert CAFiles(config_home).key.read_bytes() == before  # never replaced unasked
    assert _proxy("--new-ca", "--ca-path", *argv)[0] == 0


def test_ide_status_says_until_when_and_fails_once_expired(config_home: Path) -> None:
    ensure_ca(config_home, now=datetime.datetime.now(datetime.UTC) - VALIDITY / 2)
    out = io.StringIO()
    main(["ide", "status", "--settings", str(config_home / "none.json")], out=out)
    until = f"{_certificate(CAFiles(config_home)).not_valid_after_utc:%Y-%m-%d}"
    assert f"ok   proxy CA valid until {until} for cursor.sh\n" in out.getvalue()
    ensure_ca(config_home, renew=True, now=datetime.datetime.now(datetime.UTC) - VALIDITY)
    out = io.StringIO()
    assert main(["ide", "status", "--settings", str(config_home / "none.json")], out=out) == 1
    assert "FAIL the proxy CA expired on " in out.getvalue()
    assert "run 'cursor-byok proxy --new-ca'" in out.getvalue()
