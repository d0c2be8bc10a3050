"""Abuse benchmark: what a hostile client can make the server hold, and what
a new request id costs when many sessions are live.

Four parts, loopback only; the first three each against the real
`cursor-byok serve` in a subprocess of its own (a temporary config and
database, no provider keys), whose idle RSS is read from /proc first:
- a flood of out-of-order appends: 20 new request ids x 16 appends x 4 MiB
  (seqno 1..16, so none is ever due and every byte would be buffered), 16 in
  flight as real clients keep them. Then its RSS again. Without a total cap
  this is 1.25 GiB held; with it, the memory budget plus the process itself;
- gzip bombs: 4 RunSSE requests at once, each body 200 gzip envelopes of a
  request id padded to 4 MiB of zeros, the body gzipped again (about 1 KiB
  on the wire, 800 MiB if every envelope were inflated), while /healthz is
  asked every 10 ms. Its RSS is read once every bomb is answered, before
  their connections close (a stream a bomb opened would still hold it);
- HTTP/2 envelopes that never finish: 2 connections x 16 `Run` streams, each
  declaring a 24 MiB envelope and sending all of it but its last byte
  (768 MiB if all were buffered). Its RSS is read while they are all open;
- the real `SessionHub` (with a SQLite store) in this process: the cost of
  making a new session (one tiny out-of-order append on a new request id)
  with 100 sessions live and with 50,000 live: rounds of 200 alternate
  between the two (the machine's load hits both alike), the new sessions
  are removed after each round, and the best round of each counts.

Prints, one line each:
  idle_rss_mb                            the server's RSS before the flood
  memory_budget_mb                       the configured total budget
  peak_rss_mb_during_flood               the server's peak RSS (VmHWM)
  rss_mb_after_append_flood              its RSS after the flood
  rss_goal_mb                            2 x idle RSS + the budget
  held_mb_after_append_flood             bytes the budget accounts after the flood
  dropped_sessions                       idle sessions the budget dropped
  gzip_bomb_statuses                     the HTTP status of each bomb, counted
  healthz_ms_max_during_gzip_bomb        the longest /healthz answer meanwhile
  rss_mb_after_gzip_bomb                 its RSS after the bombs (goal beside it:
                                         <= 2 x idle RSS + the budget)
  h2_partial_envelope_ends               how each stream stood: still open, or
                                         the Connect code it was ended with
  rss_mb_after_h2_partial_envelopes      its RSS with them all open (goal beside it)
  new_session_us[100] / [50000]          microseconds per new session
  new_session_us_ratio_50000_over_100    the second over the first (goal <= 2)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import gzip
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import h2.exceptions  # noqa: E402
import httpx2  # noqa: E402

from cursor_byok.client.client import End  # noqa: E402
from cursor_byok.client.run_client import H2Client, RunStream  # noqa: E402
from cursor_byok.store.sqlite import SQLiteStore  # noqa: E402
from cursor_byok.transport.connect.framing import encode_envelope  # noqa: E402
from cursor_byok.transport.http.app import build_service  # noqa: E402
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2  # noqa: E402
from cursor_byok.transport.sessions.hub import SessionHub, budget_key  # noqa: E402

MiB = 1024 * 1024
BUDGET_BYTES = 512 * MiB
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
RUN_SSE = "/agent.v1.AgentService/RunSSE"
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def proc_mb(pid: int, field: str) -> float:
    """VmRSS / VmHWM of a process, in MB (Linux)."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB", status, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no {field} in /proc/{pid}/status")
    return int(match.group(1)) / 1024


def start_server(
    folder: Path, budget: int, src: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """`cursor-byok serve` on a free port; `src` serves another tree's package."""
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        f'[server]\nport = {port}\ndatabase = "{folder / "state.sqlite3"}"\n'
        f"memory_budget_bytes = {budget}\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    env["CURSOR_BYOK_CONFIG"] = str(config)
    env["NO_COLOR"] = "1"
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    command = [sys.executable, "-m", "cursor_byok", "serve"]
    with open(folder / "log", "wb") as log:  # the child keeps its own copy
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited: {(folder / 'log').read_text()[-2000:]}")
        try:
            if httpx2.get(f"{url}/healthz", timeout=1).status_code == 200:
                return server, url
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start within 60 s")


def append_body(request_id: str, seqno: int, payload: bytes) -> bytes:
    request = bidi_pb2.BidiAppendRequest(
        data_binary=payload,
        request_id=bidi_pb2.BidiRequestId(request_id=request_id),
        append_seqno=seqno,
    )
    return request.SerializeToString()


async def flood(url: str, ids: int, appends: int, size: int, in_flight: int) -> dict[int, int]:
    """Out-of-order appends on new request ids; returns the count per HTTP status."""
    payload = b"\x5a" * size
    statuses: dict[int, int] = {}
    jobs: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    for number in range(ids):
        for seqno in range(1, appends + 1):
            jobs.put_nowait((f"flood-{number:04d}", seqno))
    limits = httpx2.Limits(max_connections=in_flight)
    async with httpx2.AsyncClient(base_url=url, timeout=120, limits=limits) as http:

        async def worker() -> None:
            while not jobs.empty():
                request_id, seqno = jobs.get_nowait()
                answer = await http.post(
                    BIDI_APPEND,
                    content=append_body(request_id, seqno, payload),
                    headers={"content-type": "application/proto"},
                )
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

        await asyncio.gather(*(worker() for _ in range(in_flight)))
    return statuses


def metric(text: str, name: str) -> float:
    found = re.findall(rf"^{re.escape(name)}(?:{{[^}}]*}})? ([0-9.e+-]+)$", text, re.MULTILINE)
    return sum(float(value) for value in found)


def rss_part(ids: int, appends: int, size: int, src: Path | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server, url = start_server(Path(folder), BUDGET_BYTES, src)
        try:
            time.sleep(1.0)
            idle = proc_mb(server.pid, "VmRSS")
            statuses = asyncio.run(flood(url, ids, appends, size, in_flight=16))
            time.sleep(0.5)
            after = proc_mb(server.pid, "VmRSS")
            peak = proc_mb(server.pid, "VmHWM")
            metrics = httpx2.get(f"{url}/metrics", timeout=10).text
        finally:
            server.terminate()
            server.wait(30)
    budget_mb = BUDGET_BYTES / 1e6
    print(f"idle_rss_mb = {idle:.1f}")
    print(f"memory_budget_mb = {budget_mb:.1f}")
    print(f"append_statuses = {dict(sorted(statuses.items()))}")
    print(f"peak_rss_mb_during_flood = {peak:.1f}")
    print(f"rss_mb_after_append_flood = {after:.1f}")
    print(f"rss_goal_mb = {2 * idle + budget_mb:.1f}")
    held = metric(metrics, "cursor_byok_memory_held_bytes") / 1e6
    print(f"held_mb_after_append_flood = {held:.1f}")
    print(f"dropped_sessions = {metric(metrics, 'cursor_byok_memory_dropped_total'):.0f}")


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def gzip_bomb(request_id: str, envelopes: int, inflated: int) -> bytes:
    """A RunSSE body of `envelopes` gzip envelopes, each a valid request id
    padded to `inflated` bytes with an unknown field of zeros (so the first
    is a request the server takes), the whole body gzipped again."""
    message = bidi_pb2.BidiRequestId(request_id=request_id).SerializeToString()
    filler = inflated - len(message) - 6
    padded = message + varint(15 << 3 | 2) + varint(filler) + bytes(filler)
    return gzip.compress(encode_envelope(padded, compress=True) * envelopes)


async def gzip_bombs(
    url: str, bombs: int, envelopes: int, measure: Callable[[], float]
) -> tuple[dict[int, int], float, float]:
    """Send the bombs at once while /healthz is asked every 10 ms; returns
    the count per HTTP status, the longest /healthz answer (ms) and what
    `measure` read once every bomb was answered, before any was closed."""
    bodies = [gzip_bomb(f"bomb-{number}", envelopes, 4 * MiB - 64) for number in range(bombs)]
    headers = {"content-type": "application/connect+proto", "content-encoding": "gzip"}
    longest = 0.0
    done = asyncio.Event()
    limits = httpx2.Limits(max_connections=bombs + 1)
    async with httpx2.AsyncClient(base_url=url, timeout=120, limits=limits) as http:

        async def health() -> None:
            nonlocal longest
            while not done.is_set():
                started = time.perf_counter()
                (await http.get("/healthz")).raise_for_status()
                longest = max(longest, time.perf_counter() - started)
                await asyncio.sleep(0.01)

        async def bomb(body: bytes) -> httpx2.Response:
            request = http.build_request("POST", RUN_SSE, content=body, headers=headers)
            return await http.send(request, stream=True)  # a stream that opens stays open

        polling = asyncio.create_task(health())
        await asyncio.sleep(0.2)
        answers = await asyncio.gather(*(bomb(body) for body in bodies))
        done.set()
        await polling
        rss = measure()
        for answer in answers:
            await answer.aclose()
    statuses: dict[int, int] = {}
    for answer in answers:
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
    return statuses, longest * 1000, rss


def bomb_part(bombs: int, envelopes: int, src: Path | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server, url = start_server(Path(folder), BUDGET_BYTES, src)
        try:
            time.sleep(1.0)
            idle = proc_mb(server.pid, "VmRSS")

            def measure() -> float:
                time.sleep(0.5)
                return proc_mb(server.pid, "VmRSS")

            statuses, health_ms, after = asyncio.run(gzip_bombs(url, bombs, envelopes, measure))
        finally:
            server.terminate()
            server.wait(30)
    goal = 2 * idle + BUDGET_BYTES / 1e6
    print(f"gzip_bomb_statuses = {dict(sorted(statuses.items()))}")
    print(f"healthz_ms_max_during_gzip_bomb = {health_ms:.1f}")
    print(f"rss_mb_after_gzip_bomb = {after:.1f} (goal <= {goal:.1f})")


async def unfinished(client: H2Client, declared: int) -> RunStream:
    """A Run stream declaring a `declared`-byte envelope and sending all of
    it but the last byte, 64 KiB at a time, until the server ends it."""
    stream = await client.open("proto")
    chunk = b"\x5a" * 65536
    left = declared - 1
    try:
        await client.send_data(stream.stream_id, b"\x00" + declared.to_bytes(4, "big"))
        while left > 0:
            await client.send_data(stream.stream_id, chunk[: min(left, len(chunk))])
            left -= len(chunk)
    except (ConnectionError, h2.exceptions.ProtocolError):
        pass  # the server ended the stream: its End says why
    return stream


async def settled(url: str) -> None:
    """Until the memory the server accounts stops changing (it has read
    what was sent)."""
    async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
        last = -1.0
        while True:
            await asyncio.sleep(0.5)
            text = (await http.get("/metrics")).text
            held = metric(text, "cursor_byok_memory_held_bytes")
            if held == last:
                return
            last = held


async def partial_envelopes(
    url: str, connections: int, streams: int, declared: int, measure: Callable[[], float]
) -> tuple[dict[str, int], float]:
    """Every stream's envelope left unfinished; returns how each stream
    stood and what `measure` read while they were all open."""
    clients = [await H2Client.connect(url) for _ in range(connections)]
    try:
        opened = await asyncio.gather(
            *(unfinished(client, declared) for client in clients for _ in range(streams))
        )
        await settled(url)
        rss = measure()
        ends: dict[str, int] = {}
        for stream in opened:
            end = next((item for item in stream.received if isinstance(item, End)), None)
            while end is None and not stream.items.empty():
                item = stream.items.get_nowait()
                end = item if isinstance(item, End) else None
            code = "open" if end is None else str((end.error or {}).get("code", "ok"))
            ends[code] = ends.get(code, 0) + 1
    finally:
        for client in clients:
            await client.close()
    return ends, rss


def h2_part(connections: int, streams: int, declared: int, src: Path | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server, url = start_server(Path(folder), BUDGET_BYTES, src)
        try:
            time.sleep(1.0)
            idle = proc_mb(server.pid, "VmRSS")

            def measure() -> float:
                return proc_mb(server.pid, "VmRSS")

            ends, after = asyncio.run(
                partial_envelopes(url, connections, streams, declared, measure)
            )
        finally:
            server.terminate()
            server.wait(30)
    goal = 2 * idle + BUDGET_BYTES / 1e6
    print(f"h2_partial_envelope_ends = {dict(sorted(ends.items()))}")
    print(f"rss_mb_after_h2_partial_envelopes = {after:.1f} (goal <= {goal:.1f})")


async def filled_hub(folder: Path, live: int) -> SessionHub:
    store = SQLiteStore(folder / f"state-{live}.sqlite3", synchronous="NORMAL")
    hub = build_service(store, None).hub  # type: ignore[arg-type]  # no model is called
    for number in range(live):
        await hub.append(f"live-{number}", 1, b"x")
    return hub


async def time_new_sessions(hub: SessionHub, made: int, round_: int) -> float:
    """Microseconds per new session; they are removed after, so the number of
    live sessions is the same for every round."""
    ids = [f"new-{round_}-{number}" for number in range(made)]
    started = time.perf_counter()
    for request_id in ids:
        await hub.append(request_id, 1, b"x")
    spent = time.perf_counter() - started
    for request_id in ids:
        session = hub.sessions.get(request_id)
        assert session is not None, "a session was dropped"
        hub.sessions.remove(session, "measured")
        hub.budget.forget(budget_key(request_id))
    return spent / made * 1e6


async def new_session_us(small: int, large: int, made: int, rounds: int) -> tuple[float, float]:
    """Best per-session cost with `small` and with `large` sessions live; the
    rounds alternate between the two, so both see the same machine load."""
    with tempfile.TemporaryDirectory() as folder:
        hubs = [await filled_hub(Path(folder), live) for live in (small, large)]
        best = [float("inf"), float("inf")]
        for round_ in range(rounds):
            gc.collect()
            for index, hub in enumerate(hubs):
                best[index] = min(best[index], await time_new_sessions(hub, made, round_))
        assert [len(hub.sessions) for hub in hubs] == [small, large]
        return best[0], best[1]


def session_part(small: int, large: int, made: int, rounds: int) -> None:
    few, many = asyncio.run(new_session_us(small, large, made, rounds))
    print(f"new_session_us[{small}] = {few:.1f}")
    print(f"new_session_us[{large}] = {many:.1f}")
    print(f"new_session_us_ratio_{large}_over_{small} = {many / few:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ids", type=int, default=20)
    parser.add_argument("--appends", type=int, default=16)
    parser.add_argument("--size-mib", type=int, default=4)
    parser.add_argument("--live", type=int, nargs=2, default=(100, 50_000))
    parser.add_argument("--made", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--bombs", type=int, default=4)
    parser.add_argument("--bomb-envelopes", type=int, default=200)
    parser.add_argument("--h2-connections", type=int, default=2)
    parser.add_argument("--h2-streams", type=int, default=16)
    parser.add_argument("--h2-envelope-mib", type=int, default=24)
    parser.add_argument(
        "--server-src",
        type=Path,
        help="serve another tree's package (its src folder), e.g. the tree before a change",
    )
    args = parser.parse_args()
    rss_part(args.ids, args.appends, args.size_mib * MiB, args.server_src)
    bomb_part(args.bombs, args.bomb_envelopes, args.server_src)
    h2_part(args.h2_connections, args.h2_streams, args.h2_envelope_mib * MiB, args.server_src)
    session_part(args.live[0], args.live[1], made=args.made, rounds=args.rounds)


if __name__ == "__main__":
    main()
