"""A real mitmproxy between a client and two loopback servers: the cursor-byok
server and a fake "Cursor service" over HTTPS. Cursor's host is played by
`localhost` (it resolves to loopback), so no byte leaves 127.0.0.0/8 even if
a route were wrong: the fake service would receive it and the test fail."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cursor_byok.ide.proxy.ca import CAFiles, ensure_ca
from cursor_byok.ide.proxy.routes import Route
from cursor_byok.transport.http.http_server import HttpServer, TLSFiles, free_port

if TYPE_CHECKING:
    from cursor_byok.ide.proxy.runner import ProxyThread

MITMPROXY = "the proxy needs mitmproxy 12, which needs Python 3.12+"

CURSOR_HOST = "localhost"
"""The domain standing for Cursor's: the proxy intercepts it, its CA signs for it."""
FAKE_BODY = b"".join(b"chunk-%d;" % n for n in range(50))


@dataclass
class Recorded:
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes


@dataclass
class FakeCursor:
    """Cursor's own service as far as the proxy can tell: HTTPS, its own CA."""

    url: str
    ca_file: Path
    received: list[Recorded] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"]]
        self.received.append(Recorded(scope["method"], scope["path"], headers, body))
        await send(
            {
                "type": "http.response.start",
                "status": 201,
                "headers": [(b"content-type", b"application/proto"), (b"x-cursor-fake", b"yes")],
            }
        )
        for start in range(0, len(FAKE_BODY), 64):
            chunk = FAKE_BODY[start : start + 64]
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})


def _leaf_for_localhost(directory: Path) -> tuple[Path, Path, Path]:
    """A CA standing for the public PKI, and a localhost certificate it signed."""
    from cryptography import x509  # noqa: PLC0415 - these come with mitmproxy
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415
    from mitmproxy.certs import CertStore  # noqa: PLC0415

    store = CertStore.from_store(directory, "public", 2048)
    entry = store.get_cert("localhost", [x509.DNSName("localhost")])
    cert, key = directory / "leaf.pem", directory / "leaf-key.pem"
    cert.write_bytes(entry.cert.to_pem())
    key.write_bytes(
        entry.privatekey.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    return directory / "public-ca-cert.pem", cert, key


@pytest.fixture
async def fake_cursor(tmp_path: Path) -> AsyncIterator[FakeCursor]:
    ca_file, cert, key = _leaf_for_localhost(tmp_path / "public-pki")
    port = free_port()
    fake = FakeCursor(f"https://localhost:{port}", ca_file)
    server = HttpServer(fake, "127.0.0.1", port, tls=TLSFiles(cert, key))
    task = asyncio.create_task(server.serve())
    assert await server.started(task)
    yield fake
    server.stop()
    await task


@pytest.fixture
def proxy_ca(tmp_path: Path) -> CAFiles:
    files, created = ensure_ca(tmp_path / "proxy-ca", (CURSOR_HOST,))
    assert created
    return files


@dataclass
class RunningProxy:
    url: str
    ca: CAFiles
    counted: list[Route]

    async def settled(self, flows: int) -> list[Route]:
        """The routes counted, once `flows` flows are: a flow counts when the
        proxy closes it, which can be just after its client saw the end."""
        for _ in range(100):
            if len(self.counted) >= flows:
                break
            await asyncio.sleep(0.05)
        return self.counted

    def client_tls(self) -> ssl.SSLContext:
        """What a client configured with the proxy's CA trusts: that CA only."""
        return ssl.create_default_context(cafile=str(self.ca.certificate))


def start_proxy(
    server_url: str,
    ca: CAFiles,
    upstream_ca: Path,
    token: str | None = None,
    proxy_auth: str | None = None,
) -> tuple[ProxyThread, RunningProxy]:
    from cursor_byok.ide.proxy.runner import ProxySettings, ProxyThread  # noqa: PLC0415

    counted: list[Route] = []
    settings = ProxySettings(
        server_url=server_url,
        ca=ca,
        listen_port=0,
        hosts=(CURSOR_HOST,),
        access_token=token,
        proxy_auth=proxy_auth,
        extra={"ssl_verify_upstream_trusted_ca": str(upstream_ca)},
    )
    thread = ProxyThread(settings, counted.append)
    host, port = thread.start()
    return thread, RunningProxy(f"http://{host}:{port}", ca, counted)


@pytest.fixture
def proxy_factory() -> Iterator[Any]:
    threads: list[ProxyThread] = []

    def make(*args: Any, **kwargs: Any) -> RunningProxy:
        thread, running = start_proxy(*args, **kwargs)
        threads.append(thread)
        return running

    yield make
    for thread in threads:
        thread.stop()
