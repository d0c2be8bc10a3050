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

With `--baseline-src DIR` a second server runs the `cursor_byok` package
under DIR (another tree's `src`), and every turn is made on both, one after
the other, so a change in the machine's load meets both sides; the same
figures follow for it, suffixed `[baseline]`, and
  turn_cpu_ratio[batched]   this tree's batched turn over the baseline's
  turn_cpu_ratio            the same, paced
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
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
    servers: Sequence[Server],
    turns: int,
    short: int,
    long: int,
    pace_ms: float,
    path: str,
    label: str,
) -> list[tuple[float, float]]:
    """Per server, the median CPU (s) of a short turn and of a long one,
    alternating, each turn made on every server in turn; each turn a new
    conversation named from `label` (a name used twice would be the same
    turn sent again, answered from what was stored)."""
    costs = [read_cost(server) for server in servers]
    shorts: list[list[float]] = [[] for _ in servers]
    longs: list[list[float]] = [[] for _ in servers]
    for i in range(turns):
        for k, (server, cost) in enumerate(zip(servers, costs, strict=True)):
            made = turn_cpu(client, server, short, pace_ms, f"{label}-{k}-s{i}", cost, path)
            shorts[k].append(made)
        for k, (server, cost) in enumerate(zip(servers, costs, strict=True)):
            made = turn_cpu(client, server, long, pace_ms, f"{label}-{k}-l{i}", cost, path)
            longs[k].append(made)
    return [
        (statistics.median(s), statistics.median(lo)) for s, lo in zip(shorts, longs, strict=True)
    ]


def figures(
    suffix: str, paced: tuple[float, float], batched: tuple[float, float], span: int
) -> Iterator[str]:
    """The four figures of one server (`suffix`: "" or "[baseline]")."""
    (short, long), (short0, long0) = paced, batched
    yield f"turn_cpu_ms{suffix} = {short * 1e3:.3f}"
    yield f"delta_cpu_us{suffix} = {(long - short) / span * 1e6:.1f}"
    yield f"turn_cpu_ms_batched{suffix} = {short0 * 1e3:.3f}"
    yield f"delta_cpu_us_batched{suffix} = {(long0 - short0) / span * 1e6:.1f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=40, help="turns of each kind")
    parser.add_argument("--short", type=int, default=2, help="deltas in a short turn")
    parser.add_argument("--long", type=int, default=100, help="deltas in a long turn")
    parser.add_argument("--pace-ms", type=float, default=10.0, help="ms between deltas")
    parser.add_argument(
        "--path", choices=sorted(MODES), default="http1", help="http1: RunSSE; h2: Run over h2c"
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="also serve the cursor_byok package under this folder (another tree's src), "
        "every turn made on both",
    )
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="bench-turn-cost-"))
    try:
        with processes(["one-port"], ["aiohttp"], workdir, args.baseline_src) as (
            client,
            servers,
        ):
            for server in servers:
                for i in range(10):  # warm: connections, pages, lazy imports
                    turn_cpu(client, server, args.short, 0.0, f"warm-{i}", 0.0, args.path)
            kinds = (args.turns, args.short, args.long)
            paced = measure(client, servers, *kinds, args.pace_ms, args.path, "paced")
            batched = measure(client, servers, *kinds, 0.0, args.path, "batched")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    span = args.long - args.short
    print(f"# {args.turns} turns of each kind, {args.short} and {args.long} deltas, {args.path}")
    for line in figures("", paced[0], batched[0], span):
        print(line)
    if args.baseline_src is not None:
        for line in figures("[baseline]", paced[1], batched[1], span):
            print(line)
        print(f"turn_cpu_ratio = {paced[0][0] / paced[1][0]:.2f}")
        print(f"turn_cpu_ratio[batched] = {batched[0][0] / batched[1][0]:.2f}")


if __name__ == "__main__":
    main()
