"""Scale-out benchmark: one `cursor-byok serve --workers N` on PostgreSQL,
N = 1 then 2, at an offered load above what one process relays.

Processes, all on 127.0.0.1: bench/fake_provider.py (text deltas at a fixed
pace), the server (its parent and workers; CPU read from /proc for all of
them), bench/load_client.py (N streams at once as Cursor turns). Both
servers run at once and the rounds alternate between them, so a change in the
machine's load hits both alike. With two workers on one port, the kernel
hands each new connection to either worker, so a stream's RunSSE and its
appends land on a random process each; appends that miss their stream are
relayed through the database.

Prints, from one run:
  relayed_deltas_per_s[workers=1]   deltas reaching the clients per second
  relayed_deltas_per_s[workers=2]
  scale_efficiency                  relayed deltas per server CPU-second, 2 workers over 1
  takeover_s                        kill -9 of a turn's owner to another worker owning it
                                    (the lease is --lease-s; goal: at most twice that)

    python bench/scale.py
    python bench/scale.py --postgresql postgresql://user@/db?host=/run/postgresql

Without --postgresql (or $CURSOR_BYOK_BENCH_POSTGRESQL) the bench starts a
PostgreSQL server of its own from the machine's initdb/pg_ctl in a temporary
directory (fsync off, as in the tests) and removes it after. A database given
is used as it is (new conversations each run, nothing dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import psycopg
from server import CONFIG, HERE, LineProcess, Side, cpu_s, free_port

from cursor_byok.client.client import CursorClient, kind, run_request
from cursor_byok.store.scratch_postgres import MISSING, PostgresServer, find_binaries

STREAMS = 40  # x 100 deltas/s: above what one process relays here (about 3,400)
ROUNDS = 6
LEASE_S = 2.0


def tree(pid: int) -> list[int]:
    """A process and its children (the workers), from /proc."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


def tree_cpu_s(pid: int) -> float:
    total = 0.0
    for member in tree(pid):
        try:
            total += cpu_s(member)
        except FileNotFoundError:  # a worker replaced meanwhile
            continue
    return total


class Serve:
    """`cursor-byok serve --workers N` on the given database."""

    def __init__(
        self, workdir: Path, provider_url: str, database: str, workers: int, name: str = ""
    ) -> None:
        name = name or str(workers)
        config = workdir / f"config-{name}.toml"
        text = CONFIG.format(url=provider_url)
        config.write_text(text.replace("[server]\n", f"[server]\nlease_s = {LEASE_S}\n"))
        self.port = free_port()
        self.log = (workdir / f"serve-{name}.log").open("w")
        command = [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"]
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port), "--database", database, "--workers", str(workers)],
            stdout=self.log,
            stderr=self.log,
            cwd=HERE.parent,
        )
        self.workers = workers
        began = time.monotonic()
        processes = workers + 1 if workers > 1 else 1  # one worker: no parent apart
        while len(tree(self.process.pid)) < processes or not self._listening():
            if self.process.poll() is not None or time.monotonic() - began > 60:
                self.stop()
                raise RuntimeError(f"serve --workers {workers} did not start; see {self.log.name}")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _listening(self) -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def one_round(client: LineProcess, serve: Serve, side: Side, tag: str) -> None:
    """STREAMS turns at once through `serve`; its tree's CPU over the round."""
    before = tree_cpu_s(serve.process.pid)
    answer = client.ask(
        {
            "op": "streams",
            "mode": "server",
            "n": STREAMS,
            "deltas": 100,
            "pace_ms": 10.0,
            "tag": f"{tag}-{os.getpid()}-{time.time_ns()}",
            "url": serve.url,
        }
    )
    side.add(answer, tree_cpu_s(serve.process.pid) - before)


def measure(client: LineProcess, serves: Sequence[Serve]) -> dict[int, tuple[float, float]]:
    """Rounds alternate between the servers (paired: a change in machine load
    hits each alike). Per server: relayed deltas per second (median of its
    rounds) and deltas per CPU-second (all its rounds)."""
    sides = {serve.workers: Side() for serve in serves}
    for serve in serves:  # connections, pools, imports
        one_round(client, serve, Side(), f"warm{serve.workers}")
    for r in range(ROUNDS):
        for serve in serves if r % 2 == 0 else reversed(serves):
            one_round(client, serve, sides[serve.workers], f"w{serve.workers}-r{r}")
    results = {}
    for workers, side in sides.items():
        if side.failures:
            print(f"# workers={workers}: {side.failures} streams failed", file=sys.stderr)
        results[workers] = (statistics.median(side.rates), side.deltas / max(side.cpu_s, 1e-9))
    return results


async def takeover(serve: Serve, database: str) -> float:
    """Start a long turn, kill -9 its owner, time until another worker owns it."""
    conversation = f"takeover-{time.time_ns()}"
    client = CursorClient(serve.url)
    stream = await client.open(f"{conversation}-r")
    text = "[bench deltas=2000 pace_ms=10] a long answer"
    await client.append(f"{conversation}-r", 0, run_request(text, conversation_id=conversation))
    await stream.until(lambda i: kind(i) == "text_delta", within=30)
    first = await asyncio.to_thread(owner_of, database, conversation)
    assert first is not None, "the turn has no lease"
    os.kill(int(first.split(":")[1]), signal.SIGKILL)
    killed = time.monotonic()
    while True:
        now = await asyncio.to_thread(owner_of, database, conversation)
        if now is not None and now != first:
            break
        if time.monotonic() - killed > 20 * LEASE_S:
            raise RuntimeError("no worker took the turn over")
        await asyncio.sleep(0.01)
    took = time.monotonic() - killed
    await client.close()
    return took


def owner_of(database: str, conversation_id: str) -> str | None:
    with psycopg.connect(database) as conn:
        row = conn.execute(
            "SELECT owner FROM conversation_leases WHERE conversation_id = %s", (conversation_id,)
        ).fetchone()
    return None if row is None else str(row[0])


def parser_for(doc: str | None) -> argparse.ArgumentParser:
    """A bench's command line, with `--postgresql` (see `postgresql`)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0] if doc else None)
    parser.add_argument(
        "--postgresql",
        default=os.environ.get("CURSOR_BYOK_BENCH_POSTGRESQL"),
        help="the database (default: $CURSOR_BYOK_BENCH_POSTGRESQL, else a server of its own)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = parser_for(__doc__).parse_args(argv)
    with postgresql(args.postgresql) as url:
        run(url)


@contextmanager
def postgresql(given: str | None) -> Iterator[str]:
    """The database given, else one on a throwaway server of the bench's own."""
    if given:
        yield given
        return
    binaries = find_binaries()
    if binaries is None:
        raise SystemExit(MISSING)
    server = PostgresServer(binaries)
    try:
        yield server.new_database().url
    finally:
        server.stop()


def run(database: str) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    python = sys.executable
    provider = LineProcess([python, str(HERE / "fake_provider.py")], workdir / "provider.log")
    provider_url = f"http://127.0.0.1:{provider.line()}/v1"
    client = LineProcess(
        [python, str(HERE / "load_client.py"), provider_url], workdir / "client.log"
    )
    serves: list[Serve] = []
    try:
        for workers in (1, 2):
            serves.append(Serve(workdir, provider_url, database, workers))
        results = measure(client, serves)
        serves.pop(0).stop()  # only the two workers are left to take a turn over
        took = asyncio.run(takeover(serves[0], database))
    finally:
        for serve in serves:
            serve.stop()
        client.close()
        provider.close()
    print(
        f"# {STREAMS} streams x 100 deltas/s offered; {ROUNDS} rounds each, alternating;"
        f" lease {LEASE_S:g} s"
    )
    for workers, (rate, _) in results.items():
        print(f"relayed_deltas_per_s[workers={workers}] = {rate:.0f}")
    print(f"scale_efficiency = {results[2][1] / results[1][1]:.2f}")
    print(f"takeover_s = {took:.2f}")


if __name__ == "__main__":
    main()
