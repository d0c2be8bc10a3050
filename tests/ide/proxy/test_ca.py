"""The proxy's CA: one per installation, private, reused, and really checked."""

from __future__ import annotations

import ssl
import stat
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cursor_byok.ide.proxy.ca import CA_NAME, CAError, ensure_ca
from tests.ide.proxy.conftest import FakeCursor, RunningProxy


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
    files, _ = ensure_ca(tmp_path / "ca")
    before = files.key.read_bytes()
    proxy = proxy_factory("http://127.0.0.1:9", files, fake_cursor.ca_file)
    assert files.key.read_bytes() == before  # reused, not replaced, on start
    async with httpx2.AsyncClient(
        proxy=proxy.url, verify=proxy.client_tls(), trust_env=False
    ) as client:
        assert (await client.get(f"{fake_cursor.url}/x")).status_code == 201
    other, _ = ensure_ca(tmp_path / "other")
    wrong = ssl.create_default_context(cafile=str(other.certificate))
    async with httpx2.AsyncClient(proxy=proxy.url, verify=wrong, trust_env=False) as client:
        with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(f"{fake_cursor.url}/x")
    assert len(fake_cursor.received) == 1
