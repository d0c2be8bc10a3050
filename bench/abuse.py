"""Abuse benchmark: what a hostile client can make the server hold, and what
a new request id costs when many sessions are live.

Two parts, loopback only:
- the real `cursor-byok serve` in a subprocess (a temporary config and
  database, no provider keys). Its idle RSS is read from /proc, then a flood
  of out-of-order appends is sent: 20 new request ids x 16 appends x 4 MiB
  (seqno 1..16, so none is ever due and every byte would be buffered), 16 in
  flight as real clients keep them. Then its RSS again. Without a total cap
  this is 1.25 GiB held; with it, the memory budget plus the process itself;
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
  new_session_us[100] / [50000]          microseconds per new session
  new_session_us_ratio_50000_over_100    the second over the first (goal <= 2)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402

from cursor_byok.store.sqlite import SQLiteStore  # noqa: E402
from cursor_byok.transport.http.app import build_service  # noqa: E402
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2  # noqa: E402
from cursor_byok.transport.sessions.hub import SessionHub, budget_key  # noqa: E402

MiB = 1024 * 1024
BUDGET_BYTES = 512 * MiB
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
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


def start_server(folder: Path, budget: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    config = folder / "config.toml"
    config.write_text(
        f'[server]\nport = {port}\ndatabase = "{folder / "state.sqlite3"}"\n'
        f"memory_budget_bytes = {budget}\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    env["CURSOR_BYOK_CONFIG"] = str(config)
    env["NO_COLOR"] = "1"
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


def rss_part(ids: int, appends: int, size: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server, url = start_server(Path(folder), BUDGET_BYTES)
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
    args = parser.parse_args()
    rss_part(args.ids, args.appends, args.size_mib * MiB)
    session_part(args.live[0], args.live[1], made=args.made, rounds=args.rounds)


if __name__ == "__main__":
    main()
