"""What `cursor-byok proxy` adds to a request Cursor sends: the same unary
model-list call (the size of a BidiAppend round trip) made N times directly
to the server and N times through the proxy (TLS to the proxy, routed to the
server), on one kept-alive connection each, all on 127.0.0.1.

Prints, from one run:
  direct_p50_ms / direct_p95_ms        straight to the server
  proxied_p50_ms / proxied_p95_ms      through mitmproxy with our addon
  added_p50_ms                         proxied minus direct, median
  ratio_p50                            proxied / direct, median
  cpu_ms_per_request_direct / _proxied CPU of this process (client, server and
                                       proxy) per request; steadier than wall
                                       time on a busy machine
  cpu_ratio                            proxied / direct CPU
"""

from __future__ import annotations

import argparse
import asyncio
import ssl
import statistics
import tempfile
import time
from pathlib import Path

import httpx2

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.ide.proxy.ca import ensure_ca
from cursor_byok.ide.proxy.runner import ProxySettings, ProxyThread
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving

PATH = "/agent.v1.AgentService/GetUsableModels"


async def timed(client: httpx2.AsyncClient, url: str, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        response = await client.post(
            url, content=b"{}", headers={"content-type": "application/json"}
        )
        response.raise_for_status()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


async def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "db.sqlite3", synchronous="NORMAL")
        empty = Path(folder) / "config.toml"
        empty.write_text("")
        router = Router(load_config(empty, env={}))  # no provider: the list is empty
        service = build_service(store, router, models=router.entries)
        async with serving(service) as url:
            ca, _ = ensure_ca(Path(folder) / "ca")
            # With credentials, as the command runs it.
            hosts = (r"^localhost:\d+$",)
            settings = ProxySettings(url, ca, listen_port=0, hosts=hosts, proxy_auth="bench:pw")
            proxy = ProxyThread(settings)
            host, port = proxy.start()
            try:
                tls = ssl.create_default_context(cafile=str(ca.certificate))
                async with (
                    httpx2.AsyncClient(trust_env=False) as direct,
                    httpx2.AsyncClient(
                        proxy=f"http://bench:pw@{host}:{port}", verify=tls, trust_env=False
                    ) as proxied,
                ):
                    await timed(direct, url + PATH, 20)  # warm-up
                    await timed(proxied, f"https://localhost:1{PATH}", 20)
                    cpu = time.process_time()
                    plain = await timed(direct, url + PATH, count)
                    cpu_direct = (time.process_time() - cpu) * 1000 / count
                    cpu = time.process_time()
                    through = await timed(proxied, f"https://localhost:1{PATH}", count)
                    cpu_proxied = (time.process_time() - cpu) * 1000 / count
            finally:
                proxy.stop()
        await router.aclose()
        store.close()
    direct_p50, proxied_p50 = statistics.median(plain), statistics.median(through)
    print(f"direct_p50_ms = {direct_p50:.2f}")
    print(f"direct_p95_ms = {p95(plain):.2f}")
    print(f"proxied_p50_ms = {proxied_p50:.2f}")
    print(f"proxied_p95_ms = {p95(through):.2f}")
    print(f"added_p50_ms = {proxied_p50 - direct_p50:.2f}")
    print(f"ratio_p50 = {proxied_p50 / direct_p50:.2f}")
    print(f"cpu_ms_per_request_direct = {cpu_direct:.2f}")
    print(f"cpu_ms_per_request_proxied = {cpu_proxied:.2f}")
    print(f"cpu_ratio = {cpu_proxied / cpu_direct:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="requests per path (default 300)")
    asyncio.run(main(parser.parse_args().count))
