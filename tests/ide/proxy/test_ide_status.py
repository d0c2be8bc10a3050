"""`ide status` end to end: settings written by `ide setup`, a real proxy, the
server behind it; and the server's `/metrics` counting the proxy's flows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cursor_byok.client.client import CursorClient
from cursor_byok.config.local_secret import PROXY_PASSWORD, proxy_auth, read_secret
from cursor_byok.ide.proxy.ca import CAFiles, default_ca_dir, ensure_ca
from cursor_byok.ide.proxy.metrics import count_flows
from cursor_byok.ide.proxy.runner import ProxySettings, ProxyThread
from cursor_byok.ide.status import probe
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.http.aux_rpcs import ModelEntry
from tests.fakes import ScriptedLLM
from tests.ide.proxy.conftest import CURSOR_HOST, FakeCursor, RunningProxy
from tests.ide.test_settings import home, run, settings_file

__all__ = ["home"]  # the fixture, shared


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, Service]]:
    store = SQLiteStore(tmp_path / "db.sqlite3")
    models = [ModelEntry("claude-test", 200_000), ModelEntry("gpt-test", 128_000)]
    service = build_service(store, ScriptedLLM([]), models=lambda: models)
    async with serving(service) as url:
        yield url, service
    store.close()


async def test_status_reports_a_working_path_and_metrics_count_it(
    home: Path, server: tuple[str, Service], fake_cursor: FakeCursor
) -> None:
    url, service = server
    ca, _ = ensure_ca(default_ca_dir(), (CURSOR_HOST,))
    trusted = {"ssl_verify_upstream_trusted_ca": str(fake_cursor.ca_file)}
    settings = ProxySettings(url, ca, listen_port=0, hosts=(CURSOR_HOST,), extra=trusted)
    proxy = ProxyThread(settings, count_flows(service.metrics.registry))
    host, port = proxy.start()
    try:
        settings_file(home)
        assert run("ide", "setup", "--proxy-url", f"http://{host}:{port}")[0] == 0
        probe_host = fake_cursor.url.removeprefix("https://")
        code, out = await asyncio.to_thread(run, "ide", "status", "--probe-host", probe_host)
        assert code == 0, out
        assert "reaches cursor-byok (models: claude-test, gpt-test)" in out
        assert "FAIL" not in out
        assert "note the proxy answers AvailableModels, BidiAppend, GetDefaultModelForCli, " in out
        assert fake_cursor.received == []  # the probe never reaches Cursor's service
        # The flow is counted when the proxy has finished it, just after the client.
        counted = 'cursor_byok_proxy_flows_total{destination="cursor-byok"} 1.0'
        client = CursorClient(url)
        try:
            for _ in range(100):
                metrics = (await client.get("/metrics")).text
                if counted in metrics:
                    break
                await asyncio.sleep(0.05)
        finally:
            await client.close()
        assert counted in metrics
        assert 'cursor_byok_proxy_flows_total{destination="cursor"} 0.0' in metrics
    finally:
        proxy.stop()
    code, out = await asyncio.to_thread(run, "ide", "status", "--probe-host", probe_host)
    assert code == 1
    assert "FAIL cannot reach" in out and "is 'cursor-byok proxy' running?" in out


def test_status_without_setup_says_what_to_do(home: Path) -> None:
    code, out = run("ide", "status")
    assert code == 1
    assert "run 'cursor-byok ide setup'" in out
    assert "run 'cursor-byok proxy' once" in out  # no CA yet


async def test_the_probe_names_a_proxy_certificate_from_another_ca(
    tmp_path: Path,
    fake_cursor: FakeCursor,
    proxy_ca: CAFiles,
    proxy_factory: Callable[..., RunningProxy],
) -> None:
    proxy = proxy_factory("http://127.0.0.1:9", proxy_ca, fake_cursor.ca_file)
    other, _ = ensure_ca(tmp_path / "other-ca")
    probe_host = fake_cursor.url.removeprefix("https://")
    check = await asyncio.to_thread(probe, proxy.url, other.certificate, probe_host)
    assert not check.ok
    assert check.what.endswith(f"the proxy's certificate is not from the CA {other.certificate}")
    assert fake_cursor.received == []


async def test_the_probe_says_when_the_proxy_refuses_the_tunnel(
    tmp_path: Path, proxy_ca: CAFiles
) -> None:
    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        check = await asyncio.to_thread(
            probe, f"http://127.0.0.1:{port}", proxy_ca.certificate, "localhost:9"
        )
    finally:
        server.close()
        await server.wait_closed()
    assert not check.ok
    assert check.what.startswith(f"the proxy at http://127.0.0.1:{port} refused the tunnel: 403")


async def test_a_setting_from_before_the_proxy_had_credentials_is_named_then_fixed(
    home: Path, server: tuple[str, Service], fake_cursor: FakeCursor
) -> None:
    """`ide setup` of an earlier version wrote `http.proxy` without
    credentials: status says so (the proxy refuses such a Cursor), and the
    next `ide setup` writes them, never printing the password."""
    url, _service = server
    ca, _ = ensure_ca(default_ca_dir(), (CURSOR_HOST,))
    trusted = {"ssl_verify_upstream_trusted_ca": str(fake_cursor.ca_file)}
    settings = ProxySettings(
        url, ca, listen_port=0, hosts=(CURSOR_HOST,), proxy_auth=proxy_auth(), extra=trusted
    )
    proxy = ProxyThread(settings)
    host, port = proxy.start()
    probe_host = fake_cursor.url.removeprefix("https://")
    try:
        path = settings_file(home, None)
        path.parent.mkdir(parents=True)
        path.write_text(
            f'{{"http.proxy": "http://{host}:{port}", "http.proxySupport": "override",\n'
            '"cursor.general.disableHttp2": true, "http.experimental.systemCertificatesV2": true}\n'
        )
        old_code, old = await asyncio.to_thread(run, "ide", "status", "--probe-host", probe_host)
        assert run("ide", "setup", "--proxy-url", f"http://{host}:{port}")[0] == 0
        code, out = await asyncio.to_thread(run, "ide", "status", "--probe-host", probe_host)
        path.chmod(0o644)
        shared_code, shared = await asyncio.to_thread(
            run, "ide", "status", "--probe-host", probe_host
        )
    finally:
        proxy.stop()
    assert old_code == 1
    assert "FAIL http.proxy has no credentials, and the proxy refuses clients without them" in old
    assert "refused the credentials of http.proxy: run 'cursor-byok ide setup' again" in old
    assert code == 0, out
    assert f"ok   http.proxy = 'http://cursor-byok:***@{host}:{port}'" in out
    assert "reaches cursor-byok" in out
    password = read_secret(PROXY_PASSWORD)
    assert password is not None and password.reveal() not in out + old + shared
    assert shared_code == 1
    assert f"FAIL {path} holds the proxy's password and other users can read it" in shared
