"""What a web fetch costs the server (runtime/web): the HTML -> markdown
conversion, and the memory of fetching bodies far over the cap.

Prints, from one run on this machine:
  markdown_ms_per_mib = X     html-to-markdown on a generated 1 MiB docs page
                              (median of rounds)
  markdownify_ms_per_mib = X  the same page through markdownify (the baseline the
                              choice was made against; skipped when not installed)
  loop_worst_tick_ms = X      the event loop's longest stall while one conversion
                              runs in a worker thread (a 1 ms sleep, repeated)
  peak_mib[plain] = X         the most memory Python held at once (tracemalloc)
                              while fetching an endless body (1 GiB offered) with
                              the default 5 MiB cap: the page itself, and little else
  peak_mib[gzip] = X          the same for a gzip bomb (10 GiB inflated)
  served_mib[plain] = X, served_members[gzip] = X
                              what the server got to send before the fetch hung up
"""

from __future__ import annotations

import asyncio
import gzip
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from aiohttp import web

from cursor_byok.runtime.web.addresses import PrivateHosts
from cursor_byok.runtime.web.fetch import FetchedPage, fetch
from cursor_byok.runtime.web.limits import MIB, FetchLimits
from cursor_byok.runtime.web.pages import html_markdown

ROUNDS = 7
BASE = "https://docs.example/guide/"


def docs_page(size: int) -> str:
    """A documentation page of about `size` characters: navigation, headings,
    paragraphs with links, code blocks, tables, lists."""
    nav = "".join(f'<li><a href="/p{n}">Page {n}</a></li>' for n in range(60))
    head = "<html><head><title>Guide</title><script>var x=1;</script></head>"
    parts = [f"{head}<body><nav><ul>{nav}</ul></nav>"]
    n = 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(
            f"<h2 id='s{n}'>Section {n}</h2><p>Some <em>text</em> about "
            f"<a href='../api/{n}'>the API {n}</a>, with <code>inline()</code> code.</p>"
            f"<pre><code class='language-python'>def f{n}(x):\n    return x * {n}\n</code></pre>"
            "<table><tr><th>name</th><th>value</th></tr>"
            + "".join(f"<tr><td>k{i}</td><td>{i * n}</td></tr>" for i in range(5))
            + "</table><ul><li>one</li><li>two</li></ul>"
        )
    return "".join(parts) + "</body></html>"


def conversion() -> None:
    page = docs_page(MIB)
    mib = len(page.encode()) / MIB
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        html_markdown(page, BASE)
        times.append((time.perf_counter() - started) * 1000)
    print(f"markdown_ms_per_mib = {statistics.median(times) / mib:.0f}")
    try:
        import markdownify  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: PLC0415
    except ImportError:
        print("markdownify_ms_per_mib = (not installed: pip install markdownify)")
    else:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            markdownify.markdownify(page, heading_style="ATX")
            times.append((time.perf_counter() - started) * 1000)
        print(f"markdownify_ms_per_mib = {statistics.median(times) / mib:.0f}")
    print(f"loop_worst_tick_ms = {asyncio.run(worst_tick(page)):.1f}")


async def worst_tick(page: str) -> float:
    worst = 0.0
    done = False

    async def ticker() -> None:
        nonlocal worst
        while not done:
            started = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - started)

    task = asyncio.create_task(ticker())
    await asyncio.to_thread(html_markdown, page, BASE)
    done = True
    await task
    return worst * 1000


async def capped_fetches() -> None:
    member = gzip.compress(b"\0" * 16 * MIB)
    served = {"plain": 0, "gzip": 0}

    async def endless(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        chunk = b"x" * 65536
        for _ in range(16_384):  # 1 GiB
            try:
                await response.write(chunk)
            except ConnectionError:  # the fetch hung up at its cap
                break
            served["plain"] += len(chunk)
        return response

    async def bomb(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"}
        )
        await response.prepare(request)
        for _ in range(640):  # 10 GiB inflated
            try:
                await response.write(member)
            except ConnectionError:
                break
            served["gzip"] += 1
        return response

    app = web.Application()
    app.router.add_get("/plain", endless)
    app.router.add_get("/gzip", bomb)
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.1)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    limits = FetchLimits(private_hosts=PrivateHosts.parse(["127.0.0.1"]))
    tracemalloc.start()
    try:
        for kind in ("plain", "gzip"):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            page = await fetch(f"http://127.0.0.1:{port}/{kind}", limits)
            assert isinstance(page, FetchedPage) and len(page.body) == limits.max_bytes, page
            peak = tracemalloc.get_traced_memory()[1] - base
            print(f"peak_mib[{kind}] = {peak / MIB:.1f}")
            del page
            await asyncio.sleep(0.2)
        print(f"served_mib[plain] = {served['plain'] / MIB:.1f}")
        print(f"served_members[gzip] = {served['gzip']} of 640")
    finally:
        tracemalloc.stop()
        await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(capped_fetches())
    conversion()
