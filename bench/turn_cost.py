"""What one turn and one delta cost the server, one turn at a time.

`bench/server.py` measures the server under load, where the machine's noise
decides much of each figure. This bench splits the server's CPU into a cost
per turn and a cost per relayed delta, read from the server's own exact CPU
clock (the `cursor_byok_process_cpu_seconds` gauge) between turns: one
stream at a time, so nothing else the server does lands in a turn's figure.

Turns of `--short` deltas and of `--long` deltas alternate; each figure is
the median of its kind:
  turn_cpu_ms             server CPU for a turn of --short deltas
  delta_cpu_us            (long turn - short turn) / (long - short deltas)
  delta_cpu_us_batched    the same with every delta of a turn sent at once
                          (pace 0): the per-delta cost when the server takes
                          many deltas per wake-up, as it does under load
Processes as in bench/server.py: the fake provider, the load client and the
real `cursor-byok serve`, each apart.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import LineProcess, Server, processes


def read_cost(server: Server) -> float:
    """The CPU one read of /metrics costs the server (taken off each turn)."""
    reads = [server.precise_cpu_s() for _ in range(8)]
    return statistics.median(b - a for a, b in itertools.pairwise(reads))


MODES = {"http1": "server", "h2": "server-h2"}
"""The load client's mode for each `--path`: RunSSE + BidiAppend, or Run over h2c."""


def turn_cpu(
    client: LineProcess,
    server: Server,
    deltas: int,
    pace_ms: float,
    tag: str,
    cost: float,
    path: str = "http1",
) -> float:
    before = server.precise_cpu_s()
    answer = client.ask(
        {
            "op": "streams",
            "mode": MODES[path],
            "n": 1,
            "deltas": deltas,
            "pace_ms": pace_ms,
            "tag": tag,
            "url": server.url,
        }
    )
    stream = answer["streams"][0]
    if stream["error"]:
        raise RuntimeError(f"turn {tag}: {stream['error']}")
    if stream["deltas"] != deltas:
        raise RuntimeError(f"turn {tag}: {stream['deltas']} deltas of {deltas}")
    return server.precise_cpu_s() - before - cost


def measure(
    client: LineProcess,
    server: Server,
    turns: int,
    short: int,
    long: int,
    pace_ms: float,
    path: str,
    label: str,
) -> tuple[float, float]:
    """Median CPU (s) of a short turn and of a long one, alternating; each
    turn a new conversation named from `label` (a name used twice would be
    the same turn sent again, answered from what was stored)."""
    cost = read_cost(server)
    shorts: list[float] = []
    longs: list[float] = []
    for i in range(turns):
        shorts.append(turn_cpu(client, server, short, pace_ms, f"{label}-s{i}", cost, path))
        longs.append(turn_cpu(client, server, long, pace_ms, f"{label}-l{i}", cost, path))
    return statistics.median(shorts), statistics.median(longs)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=40, help="turns of each kind")
    parser.add_argument("--short", type=int, default=2, help="deltas in a short turn")
    parser.add_argument("--long", type=int, default=100, help="deltas in a long turn")
    parser.add_argument("--pace-ms", type=float, default=10.0, help="ms between deltas")
    parser.add_argument(
        "--path", choices=sorted(MODES), default="http1", help="http1: RunSSE; h2: Run over h2c"
    )
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="bench-turn-cost-"))
    try:
        with processes(["one-port"], ["aiohttp"], workdir) as (client, servers):
            server = servers[0]
            for i in range(10):  # warm: connections, pages, lazy imports
                turn_cpu(client, server, args.short, 0.0, f"warm-{i}", 0.0, args.path)
            kinds = (args.turns, args.short, args.long)
            short, long = measure(client, server, *kinds, args.pace_ms, args.path, "paced")
            short0, long0 = measure(client, server, *kinds, 0.0, args.path, "batched")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    span = args.long - args.short
    print(f"# {args.turns} turns of each kind, {args.short} and {args.long} deltas, {args.path}")
    print(f"turn_cpu_ms = {short * 1e3:.3f}")
    print(f"delta_cpu_us = {(long - short) / span * 1e6:.1f}")
    print(f"turn_cpu_ms_batched = {short0 * 1e3:.3f}")
    print(f"delta_cpu_us_batched = {(long0 - short0) / span * 1e6:.1f}")


if __name__ == "__main__":
    main()
