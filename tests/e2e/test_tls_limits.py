"""Under TLS the port holds connections to the same limits as in plain
text, counted as they are accepted (before the handshake), and one whose
handshake never finishes is closed after the keep-alive time; against the
real server on a real socket, with a certificate made here."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trustme

from cursor_byok.client.client import End, kind, run_request
from cursor_byok.client.run_client import H2Client
from cursor_byok.llm.types import TextContent
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.connection_limits import ConnectionLimits
from cursor_byok.transport.http.http_server import TLSFiles
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

KEEPALIVE_S = 1


@dataclass
class Served:
    url: str
    port: int
    context: ssl.SSLContext


@asynccontextmanager
async def served(
    tmp_path: Path, limits: ConnectionLimits, keepalive_s: int = KEEPALIVE_S
) -> AsyncIterator[Served]:
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.cert_chain_pems[0].write_to_path(cert)
    issued.private_key_pem.write_to_path(key)
    context = ssl.create_default_context()
    authority.configure_trust(context)
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(assistant(TextContent("over TLS")))])
    service = build_service(store, llm, retry=RetryPolicy(2, 0.001, 0.01), heartbeat_s=0.2)
    tls = TLSFiles(cert, key)
    async with serving(service, keepalive_timeout_s=keepalive_s, tls=tls, limits=limits) as url:
        yield Served(url, int(url.rsplit(":", 1)[1]), context)
    store.close()


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


async def test_a_connection_that_never_shakes_hands_is_closed(tmp_path: Path) -> None:
    async with served(tmp_path, ConnectionLimits()) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        assert await closed_within(reader, KEEPALIVE_S + 3)
        writer.close()


async def test_connections_over_the_per_peer_cap_are_refused_before_the_handshake(
    tmp_path: Path,
) -> None:
    limits = ConnectionLimits(total=8, per_peer=2)
    async with served(tmp_path, limits, keepalive_s=30) as server:
        held = [
            await asyncio.open_connection("127.0.0.1", server.port, local_addr=("127.0.0.2", 0))
            for _ in range(2)
        ]
        await asyncio.sleep(0.1)
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, local_addr=("127.0.0.2", 0)
        )
        assert await closed_within(reader, 0.5)  # no handshake was even tried
        writer.close()
        # Another address is served while those two hold their own share.
        client = await H2Client.connect(server.url, server.context)
        stream = await client.open("proto")
        await stream.send(run_request("hello"))
        end = await stream.until(lambda item: isinstance(item, End))
        await client.close()
        for _, held_writer in held:
            held_writer.close()
    assert isinstance(end, End) and end.error is None
    assert stream.text() == "over TLS"
    assert "text_delta" in map(kind, stream.received)
