"""Piped-stream benchmark: a turn's output read on a process that does not
own the conversation (relayed through PostgreSQL) against the same output
read on the owner.

Two `cursor-byok serve` processes, A and B, on one database; the fake
provider answers each turn with text deltas at a fixed pace. For each of
`--streams` conversations at once, a turn starts on A, its stream drops at
the first delta, and the client resumes it on a new request id: on A itself
(direct), or on B, which pipes it to A (piped). Prints, from one run:

  resumed_deltas_per_s[direct|piped]      text deltas reaching the resumed streams per second
  first_delta_ms[direct|piped]            resume sent -> its first text delta (median)
  server_cpu_us_per_delta[direct|piped]   A + B CPU per delta delivered
  piped_over_direct_rate                  the throughput ratio
  piped_over_direct_cpu                   the CPU-per-delta ratio

    python bench/pipe.py
    python bench/pipe.py --postgresql postgresql://user@/db?host=/run/postgresql

The database is used as given (new conversations each run, nothing dropped).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scale import Serve, parser_for, postgresql, tree_cpu_s
from server import HERE, LineProcess

from cursor_byok.client.client import CursorClient, End, Item, kind, kv_reply, run_request

MODES = ("direct", "piped")


@dataclass
class Resumed:
    deltas: int
    sent: float
    first: float
    ended: float


def is_text(item: Item) -> bool:
    return kind(item) == "text_delta"


async def resumed_turn(owner: str, reader: str, conversation: str, deltas: int) -> Resumed:
    """Start a turn on `owner`, drop its stream at the first delta, resume on `reader`."""
    first = CursorClient(owner)
    stream = await first.open(f"{conversation}-1")
    text = f"[bench deltas={deltas} pace_ms=10] go"
    message = run_request(text, conversation_id=conversation, model="bench")
    await first.append(f"{conversation}-1", 0, message)
    await stream.until(is_text, within=60)
    if stream.task is not None:
        stream.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await stream.task
    await first.close()
    second = CursorClient(reader)
    try:
        resumed = await second.open(f"{conversation}-2")
        resume = run_request("", conversation_id=conversation, model="bench")
        resume.run_request.action.resume_action.SetInParent()
        sent = time.monotonic()
        await second.append(f"{conversation}-2", 0, resume)
        got_first, seqno = 0.0, 1
        while not isinstance(end := await resumed.next(within=120), End):
            if not got_first and is_text(end):
                got_first = time.monotonic()
            elif end.HasField("kv_server_message"):  # answered as Cursor does; the end waits
                await second.append(f"{conversation}-2", seqno, kv_reply(end.kv_server_message))
                seqno += 1
        if not got_first or end.error is not None:
            raise RuntimeError(f"{conversation}: the resumed stream failed: {end}")
        return Resumed(sum(map(is_text, resumed.received)), sent, got_first, time.monotonic())
    finally:
        await second.close()


async def phase(
    a: Serve, b: Serve, mode: str, streams: int, deltas: int
) -> tuple[float, float, float]:
    """Deltas per second, median first-delta ms, server CPU us per delta."""
    reader = a.url if mode == "direct" else b.url
    tag = f"{mode}-{os.getpid()}-{time.time_ns()}"
    cpu_before = tree_cpu_s(a.process.pid) + tree_cpu_s(b.process.pid)
    runs = await asyncio.gather(
        *(resumed_turn(a.url, reader, f"{tag}-{n}", deltas) for n in range(streams))
    )
    cpu = tree_cpu_s(a.process.pid) + tree_cpu_s(b.process.pid) - cpu_before
    total = sum(r.deltas for r in runs)
    span = max(r.ended for r in runs) - min(r.sent for r in runs)
    first_ms = statistics.median((r.first - r.sent) * 1000 for r in runs)
    return total / span, first_ms, cpu / max(total, 1) * 1e6


def main(argv: Sequence[str] | None = None) -> None:
    parser = parser_for(__doc__)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--deltas", type=int, default=500)
    args = parser.parse_args(argv)
    with postgresql(args.postgresql) as url:
        run(url, args.streams, args.deltas)


def run(database: str, streams: int, deltas: int) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bench-pipe-"))
    provider = LineProcess([sys.executable, str(HERE / "fake_provider.py")], workdir / "p.log")
    provider_url = f"http://127.0.0.1:{provider.line()}/v1"
    results: dict[str, tuple[float, float, float]] = {}
    a = Serve(workdir, provider_url, database, 1, name="a")
    try:
        b = Serve(workdir, provider_url, database, 1, name="b")
        try:
            asyncio.run(phase(a, b, "piped", 2, 20))  # connections, pools, imports
            for mode in MODES:
                results[mode] = asyncio.run(phase(a, b, mode, streams, deltas))
        finally:
            b.stop()
    finally:
        a.stop()
        provider.close()
    print(f"# {streams} resumed streams x {deltas} deltas at 100 deltas/s each")
    for mode, (rate, first_ms, cpu_us) in results.items():
        print(f"resumed_deltas_per_s[{mode}] = {rate:.0f}")
        print(f"first_delta_ms[{mode}] = {first_ms:.1f}")
        print(f"server_cpu_us_per_delta[{mode}] = {cpu_us:.1f}")
    direct, piped = results["direct"], results["piped"]
    print(f"piped_over_direct_rate = {piped[0] / direct[0]:.2f}")
    print(f"piped_over_direct_cpu = {piped[2] / direct[2]:.2f}")


if __name__ == "__main__":
    main()
