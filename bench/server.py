"""Whole-server benchmark: what the real `cursor-byok serve` process adds
between a Cursor-like client and a model provider, at 1, 50 and 200 streams.

Three processes apart from each other, all on 127.0.0.1:
- bench/fake_provider.py: an OpenAI Chat Completions provider streaming SSE
  text deltas at a fixed offered load (each stream 100 deltas/s);
- the server: `cursor-byok serve` itself (or bench/serve_as.py, the same
  command with another ASGI server or upstream client), its CPU read from
  /proc/PID/stat;
- bench/load_client.py: runs N streams at once, either straight to the fake
  provider (`direct`) or as Cursor turns through the server, with the same
  code and warm keep-alive pools on both sides.
Direct and through-the-server rounds alternate (paired runs), so a change in
machine load hits both. Only model deltas are counted (the fake provider's
tokens found in the text the client got), not heartbeats or other messages.

Prints, from one run, per level N (the names are read by scripts):
  added_ttft_p50_ms[N]          time to the first delta, p50, through - direct (through:
                                from the run request, sent once the server has answered
                                the stream, RunSSE's 200 or Run's response headers)
  added_gap_p99_ms[N]           gap between reads carrying deltas, p99, through - direct
  relay_cpu_us_per_delta[N]     server process CPU over the deltas it relayed
  relayed_deltas_per_s[N]       deltas reaching the clients per second (offered: N x 100)
  direct_cpu_us_per_delta[N]    the bench's own load client and fake provider, CPU per
                                delta in the direct rounds: a yardstick of the host's
                                speed (a Python reader and a writer, on uvloop)
The h2 path's figures follow suffixed [h2], and from the steady rounds:
  h2_cpu_ratio[N][steady]       its CPU per delta over the HTTP/1.1 path's
  h2_rate_ratio[N][steady]      its deltas per second over the HTTP/1.1 path's
Those are burst rounds: a round opens its N streams at once. At N > 1 the
same figures follow suffixed [steady], from steady rounds: N slots each run
4 streams back to back (--steady-turns), their starts spread over one
stream's length, so N streams are open at every moment and the offered load
is N x 100 deltas/s throughout; the figures come from the streams begun
while all N were open, the rate from the deltas that arrived meanwhile. A
burst lets the server take many streams' deltas per wake-up; a steady load
is what it must sustain.
and, from one tool session of T turns (T = 200 unless --turns) on one conversation,
on a fresh `serve` process of its own (with its own fake provider and load
client), begun once the rounds above are over and their processes gone:
  turn_cpu_ms[early], turn_cpu_ms[late]   server CPU per turn, the median turn of the
                                early window (turns 5..4+W) and of the late one (the
                                last W turns), from the server's own CPU clock (W = 20
                                unless --window)
  turn_cpu_ratio_200_over_5     late over early (the name is kept whatever T is;
                                turn_cpu_ratio_late_over_early says the same)
  turn_cpu_ratio_late_over_early[paired]   a check on the machine's load: turns
                                T+1..T+W over turns 5..4+W of the session on a second
                                fresh server, the two run alternating (both meet the
                                same load)
  turn_stage_ms[late][STAGE]    per stage of a late turn, the median over the late
                                window of the server's own stage clock (/metrics,
                                wall time): decode, load, transition, commit, render
                                (the model request's messages), join (its body's
                                bytes), relay (the output encoded and written)
  db_bytes_per_turn_ratio_200_over_5   database growth per turn, same windows
and, with --tool-calls-per-turn K, from one turn of K tool calls (--tool-batch B
to a model response; B = 3) on a fresh `serve` of its own, per step (one model
call and its B tool calls, the server's clocks read at each exec request while
the server waits for the client), medians of W steps: early = steps 3..2+W,
late = the last W:
  step_cpu_ms[early], step_cpu_ms[late], step_cpu_ratio_late_over_early
  step_stage_ms[late][STAGE]
  step_client_bytes[early], step_client_bytes[late]   what the client received
                                per step (cards, checkpoints, blobs)
With several --stacks / --clients, every candidate serves at once and each
round visits all of them in turn; the first candidate's figures use the names
above, the comparison follows as a table.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

HERE = Path(__file__).resolve().parent
LEVELS = (1, 50, 200)
ROUNDS = {1: 10, 50: 3, 200: 2}
DELTAS = 100
PACE_MS = 10.0
TURNS = 200
WINDOW = 20
"""Turns per window of the tool session: early = turns 5..4+WINDOW, late = the last."""
STAGES = ("decode", "load", "transition", "commit", "render", "join", "relay")
"""The server's stage clock (`cursor_byok_stage_seconds_total`), in its order."""
TOOL_BATCH = 3
"""Tool calls to a model response in the long turn (--tool-calls-per-turn):
200 calls are 67 model calls, within the loop's 100 a turn."""
STEADY_TURNS = 4
"""Streams per slot in a steady round: the first and last are ramps, the
middle ones run with all N open."""
STEADY_ROUNDS = 2
STACKS = (
    "one-port",
    "one-port-uvloop",
    "hypercorn",
    "hypercorn-uvloop",
    "uvicorn",
    "uvicorn-httptools",
    "uvicorn-fast",
    "granian",
)
"""The servers to compare (bench/serve_as.py builds them); the first ships."""
HTTP2_STACKS = ("one-port", "one-port-uvloop", "hypercorn", "hypercorn-uvloop", "granian")
"""The stacks that serve `Run` (HTTP/2) besides HTTP/1.1."""
CLIENTS = ("aiohttp", "httpx2")
PATHS = ("http1", "h2")
"""http1: RunSSE + BidiAppend over HTTP/1.1; h2: one `Run` stream per turn over h2c."""
CONFIG = """
default_model = "bench"
[server]
durability = "full"
metrics_public = true
[providers.fake]
api = "openai-chat"
base_url = "{url}"
api_key = "sk-bench-not-a-key"
[models.bench]
provider = "fake"
model = "gpt-4o"
"""


def session_keys() -> list[str]:
    """What the tool session prints, whatever its length."""
    return [
        "turn_cpu_ms[early]",
        "turn_cpu_ms[late]",
        "turn_cpu_ratio_200_over_5",
        "turn_cpu_ratio_late_over_early",
        *(f"turn_stage_ms[late][{stage}]" for stage in STAGES),
        "db_bytes_per_turn_ratio_200_over_5",
    ]


def required_keys(levels: Sequence[int], turns: int) -> list[str]:
    low, high = levels[0], levels[-1]
    session = session_keys() if turns else []
    return [
        *session,
        f"added_ttft_p50_ms[{low}]",
        f"added_ttft_p50_ms[{high}]",
        f"added_gap_p99_ms[{high}]",
        f"relay_cpu_us_per_delta[{high}]",
        f"relayed_deltas_per_s[{high}]",
        f"added_ttft_p50_ms[{high}][h2]",
        f"relay_cpu_us_per_delta[{high}][h2]",
        f"added_ttft_p50_ms[{high}][steady]",
        f"added_gap_p99_ms[{high}][steady]",
        f"relay_cpu_us_per_delta[{high}][steady]",
        f"relayed_deltas_per_s[{high}][steady]",
        f"direct_cpu_us_per_delta[{high}]",
        f"direct_cpu_us_per_delta[{high}][steady]",
    ]


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_s(pid: int) -> float:
    """utime + stime of a process, all its threads, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_ns(pid: int) -> int | None:
    """The CPU time of a process's threads in nanoseconds, from the
    scheduler's own accounting (/proc/PID/task/*/schedstat, Linux): exact,
    and read without asking the process anything. None where it is not kept."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        except (OSError, ValueError, IndexError):
            return None
    return total


# -- the processes --------------------------------------------------------------------


class LineProcess:
    """A child speaking one line in, one line out. `partner`: a process whose
    CPU counts with this one's (`bench_cpu_s`): the fake provider with the
    load client."""

    def __init__(self, args: list[str], log: Path, partner: LineProcess | None = None) -> None:
        self.partner = partner
        self.log = log.open("w")
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            cwd=HERE.parent,
        )

    def line(self) -> str:
        assert self.process.stdout is not None
        text = self.process.stdout.readline()
        if not text:
            raise RuntimeError(f"{self.process.args!r} ended; see {self.log.name}")
        return text.strip()

    def ask(self, command: dict[str, Any]) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return json.loads(self.line())

    def bench_cpu_s(self) -> float:
        """This process's CPU and its partner's."""
        partner = self.partner.bench_cpu_s() if self.partner is not None else 0.0
        return cpu_s(self.process.pid) + partner

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()


@dataclass
class Server:
    """One `serve` process: a stack and an upstream client."""

    stack: str
    client: str
    workdir: Path
    provider_url: str
    src: Path | None = None
    """Another tree's `src` folder (--baseline-src): its package serves instead."""
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def name(self) -> str:
        return f"{'baseline+' if self.src else ''}{self.stack}+{self.client}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def speaks_h2(self) -> bool:
        return self.stack in HTTP2_STACKS

    @property
    def database(self) -> Path:
        return self.workdir / "state.sqlite3"

    def start(self) -> None:
        self.workdir.mkdir(parents=True)
        config = self.workdir / "config.toml"
        config.write_text(CONFIG.format(url=self.provider_url))
        self.port = free_port()
        serve = [
            "--config",
            str(config),
            "serve",
            "--port",
            str(self.port),
            "--database",
            str(self.database),
        ]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_BYOK")}
        if self.src is not None:
            env["PYTHONPATH"] = str(self.src.resolve())
            command = [sys.executable, "-m", "cursor_byok"]
        elif (self.stack, self.client) == (STACKS[0], CLIENTS[0]):
            installed = Path(sys.executable).with_name("cursor-byok")
            command = (
                [str(installed)] if installed.exists() else [sys.executable, "-m", "cursor_byok"]
            )
        else:
            command = [sys.executable, str(HERE / "serve_as.py"), self.stack, self.client, "--"]
        log = self.workdir / "server.log"
        with log.open("w") as sink:  # the child holds its own descriptor
            self.process = subprocess.Popen([*command, *serve], stdout=sink, stderr=sink, env=env)
        began = time.monotonic()
        while not self._healthy():
            if self.process.poll() is not None or time.monotonic() - began > 60:
                raise RuntimeError(f"{self.name} did not start; see {log}")
            time.sleep(0.02)

    def _healthy(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                head = f"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
                conn.sendall(head.encode() + b"connection: close\r\n\r\n")
                return conn.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def cpu_s(self) -> float:
        assert self.process is not None
        return cpu_s(self.process.pid)

    def precise_cpu_s(self) -> float:
        """The server's own CPU clock from /metrics: exact where /proc counts
        10 ms ticks, a few per turn. Read between turns, never inside one."""
        return self.clocks()[0]

    def clocks(self) -> tuple[float, dict[str, float]]:
        """One read of /metrics: the CPU clock and the stage clock's sums (s)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as conn:
            head = f"GET /metrics HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
            conn.sendall(head.encode() + b"connection: close\r\n\r\n")
            reply = b""
            while chunk := conn.recv(65536):
                reply += chunk
        cpu: float | None = None
        stages: dict[str, float] = {}
        for line in reply.decode().splitlines():
            if line.startswith("cursor_byok_process_cpu_seconds "):
                cpu = float(line.split()[1])
            elif line.startswith('cursor_byok_stage_seconds_total{stage="'):
                name, value = line.split('"', 2)[1], line.rsplit(" ", 1)[1]
                stages[name] = float(value)
        if cpu is None:
            raise RuntimeError(f"{self.name}: no cursor_byok_process_cpu_seconds in /metrics")
        return cpu, stages

    def db_bytes(self) -> int:
        """Pages in use (the WAL's included), free pages not counted."""
        db = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)
        try:
            size = db.execute("PRAGMA page_size").fetchone()[0]
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
        finally:
            db.close()
        return int((pages - free) * size)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# -- measuring ------------------------------------------------------------------------


@dataclass
class Side:
    """All rounds of one level on one side (direct, or one server)."""

    streams: list[dict[str, Any]] = field(default_factory=list)
    cpu_s: float = 0.0
    rates: list[float] = field(default_factory=list)
    relayed: int = 0
    """Every delta of the rounds (a steady round answers the streams of its
    steady window only, but the server's CPU covers all of them)."""

    def add(self, answer: dict[str, Any], cpu: float) -> None:
        done = [s for s in answer["streams"] if s["error"] is None and s["deltas"]]
        self.streams += answer["streams"]
        self.cpu_s += cpu
        burst = sum(s["deltas"] for s in answer["streams"] if s["error"] is None)
        self.relayed += answer.get("deltas", burst)
        if "rate" in answer:  # steady: the load client measured its window
            if answer["rate"] is not None:
                self.rates.append(answer["rate"])
        elif done:
            window = max(s["last_s"] for s in done) - min(s["first_s"] for s in done)
            # A one-delta window is no rate: count it over the pace instead.
            self.rates.append(sum(s["deltas"] for s in done) / max(window, 1e-3))

    @property
    def ok(self) -> list[dict[str, Any]]:
        return [s for s in self.streams if s["error"] is None]

    @property
    def failures(self) -> int:
        return len(self.streams) - len(self.ok)

    @property
    def deltas(self) -> int:
        return self.relayed

    def ttft_ms(self, q: float) -> float:
        return percentile([s["ttft_s"] * 1000 for s in self.ok if s["deltas"]], q)

    def gap_ms(self, q: float) -> float:
        return percentile([gap for s in self.ok for gap in s["gaps_ms"]], q)


def run_level(
    n: int,
    rounds: int,
    deltas: int,
    pace_ms: float,
    client: LineProcess,
    servers: Sequence[Server],
    label: str = "",
    paths: Sequence[str] = PATHS,
    steady: int = 0,
) -> dict[str, Side]:
    """`rounds` paired rounds of N streams; every conversation is new (`label` +
    level + round + candidate + index). Each server is visited once per path
    it serves (the HTTP/2 path only on stacks that speak it). With `steady`,
    a round is a steady load of N slots of `steady` streams each, instead of
    a burst of N streams (load_client.py)."""
    order: list[tuple[Server, str] | None] = [None]
    for server in servers:
        order += [(server, path) for path in paths if path == "http1" or server.speaks_h2]
    sides: dict[str, Side] = {"direct": Side()}
    sides.update({side_name(*visit): Side() for visit in order if visit is not None})
    for r in range(rounds):
        shift = r % len(order)
        for visit in order[shift:] + order[:shift]:  # each side leads in turn
            command = {
                "op": "streams",
                "n": n,
                "deltas": deltas,
                "pace_ms": pace_ms,
                "tag": f"{label}n{n}-r{r}",
                "mode": "direct",
                "turns": steady,
            }
            if visit is None:  # the bench's own client and provider: the host's yardstick
                before = client.bench_cpu_s()
                answer = client.ask(command)
                sides["direct"].add(answer, client.bench_cpu_s() - before)
                continue
            server, path = visit
            before = server.cpu_s()
            answer = client.ask(
                {
                    **command,
                    "mode": "server" if path == "http1" else "server-h2",
                    "url": server.url,
                    "tag": f"{server.name.replace('+', '-')}-{path}-{label}n{n}-r{r}",
                }
            )
            sides[side_name(server, path)].add(answer, server.cpu_s() - before)
    return sides


def side_name(server: Server, path: str) -> str:
    return server.name if path == "http1" else f"{server.name} h2"


@dataclass
class Meter:
    """One server's clocks as last read: its CPU time, its stage clock, its
    database's size, read after every turn, so each turn's figures are what
    changed during it, whichever conversation it was. The CPU time is the
    scheduler's count of the server's threads (`run_ns`): it asks the
    server nothing, and it is read again after the stage clock's /metrics
    read, so that read's own CPU is in no turn. Where the scheduler keeps no
    count, the server's own clock is read from /metrics instead, the cost
    of one read taken off."""

    server: Server
    read_cost: float = 0.0
    clock: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    size: int = 0
    scheduled: bool = False

    def begin(self) -> None:
        assert self.server.process is not None
        self.scheduled = run_ns(self.server.process.pid) is not None
        if not self.scheduled:
            reads = [self.server.precise_cpu_s() for _ in range(6)]
            self.read_cost = statistics.median(b - a for a, b in itertools.pairwise(reads))
        self.stages, self.size = self.server.clocks()[1], self.server.db_bytes()
        self.clock = self._cpu_s()

    def _cpu_s(self) -> float:
        assert self.server.process is not None
        ran = run_ns(self.server.process.pid) if self.scheduled else None
        return ran / 1e9 if ran is not None else self.server.precise_cpu_s()

    def since(self) -> tuple[float, dict[str, float], int]:
        """CPU, stage times and database bytes since the last read."""
        if self.scheduled:
            now = self._cpu_s()
            staged, grown = self.server.clocks()[1], self.server.db_bytes()
            spent, after = now - self.clock, self._cpu_s()
        else:
            (now, staged), grown = self.server.clocks(), self.server.db_bytes()
            spent = after = now
            spent = now - self.clock - self.read_cost
        stages = {k: v - self.stages.get(k, 0.0) for k, v in staged.items()}
        added = grown - self.size
        self.clock, self.stages, self.size = after, staged, grown
        return spent, stages, added


@dataclass
class Track:
    """The turns of one conversation on a server: per turn, its CPU from
    the server's own exact clock, its stage clock's time per stage, and the
    database bytes added."""

    meter: Meter
    conversation: str
    cpu_s: dict[int, float] = field(default_factory=dict)
    stage_s: dict[int, dict[str, float]] = field(default_factory=dict)
    db_bytes: dict[int, int] = field(default_factory=dict)

    def turn(self, client: LineProcess, turn: int) -> None:
        server = self.meter.server
        seen = client.ask(
            {"op": "turn", "conversation": self.conversation, "turn": turn, "url": server.url}
        )
        if seen["error"]:
            raise RuntimeError(f"tool session {self.conversation}, turn {turn}: {seen['error']}")
        self.cpu_s[turn], self.stage_s[turn], self.db_bytes[turn] = self.meter.since()

    def cpu_ms(self, turns: range) -> float:
        """The median turn of `turns`: a turn that met a WAL checkpoint or a
        garbage collection does not decide the figure."""
        return statistics.median(self.cpu_s[t] for t in turns) * 1000

    def cheapest_ms(self, turns: range) -> float:
        return min(self.cpu_s[t] for t in turns) * 1000

    def stage_ms(self, turns: range, stage: str) -> float:
        return statistics.median(self.stage_s[t].get(stage, 0.0) for t in turns) * 1000

    def db_bytes_per_turn(self, turns: range) -> float:
        return statistics.fmean(self.db_bytes[t] for t in turns)


@dataclass
class Session:
    """A tool session of `turns` turns (`old`) on one fresh server, whose
    last `window` turns alternate, turn by turn, with the turns 5..4+window
    of a new conversation on the same server (`young`; its turns 1-4 come
    just before): the late and the early window meet the same machine at
    the same moment, in the same process, so a change in the machine's load
    (other processes come and go on a shared machine) moves both alike.
    Database growth is counted per turn, the conversation's own."""

    turns: int
    window: int
    old: Track
    young: Track

    @property
    def early(self) -> range:
        return range(5, 5 + self.window)

    @property
    def late(self) -> range:
        return range(self.turns - self.window + 1, self.turns + 1)


def session_turns(turns: int, window: int) -> None:
    """The session needs its two windows apart: turns 5.. and the last ones."""
    if window < 1 or turns < 4 + 2 * window:
        raise SystemExit(f"a tool session of {turns} turns has no two windows of {window}")


def fresh_session(turns: int, window: int, workdir: Path) -> tuple[str, Session]:
    """The tool session on a `serve` process of its own, started for it:
    nothing the server did before (the relay rounds) warms or loads it."""
    workdir.mkdir(parents=True)
    with processes(STACKS[:1], CLIENTS[:1], workdir) as (client, servers):
        meter = Meter(servers[0])
        session = Session(turns, window, Track(meter, "session"), Track(meter, "young"))
        meter.begin()
        late = session.late
        for turn in range(1, late[0]):  # the history grows, alone
            session.old.turn(client, turn)
        for turn in range(1, session.early[0]):
            session.young.turn(client, turn)
        for old, young in zip(late, session.early, strict=True):
            session.old.turn(client, old)
            session.young.turn(client, young)
        return servers[0].name, session


@dataclass
class LongTurn:
    """One turn of `calls` tool calls, `batch` to a model response, on a
    fresh server: the server's clocks at each exec request, when it waits
    for the client, with the bytes the client got since the one before.
    A step is a model call and its `batch` tool calls: from the first exec
    request of one response to the first of the next."""

    calls: int
    batch: int
    window: int
    read_cost: float
    clocks: list[tuple[float, dict[str, float]]]
    received: list[int]

    @property
    def steps(self) -> int:
        """Whole steps measured (the last response's calls start no new one)."""
        return (len(self.clocks) - 1) // self.batch

    @property
    def early(self) -> range:
        return range(2, 2 + self.window)

    @property
    def late(self) -> range:
        return range(self.steps - self.window, self.steps)

    def cpu_ms(self, step: int) -> float:
        begin, end = self.clocks[step * self.batch][0], self.clocks[(step + 1) * self.batch][0]
        return (end - begin - self.batch * self.read_cost) * 1000

    def stage_ms(self, step: int, stage: str) -> float:
        begin, end = self.clocks[step * self.batch][1], self.clocks[(step + 1) * self.batch][1]
        return (end.get(stage, 0.0) - begin.get(stage, 0.0)) * 1000

    def client_bytes(self, step: int) -> int:
        return sum(self.received[step * self.batch + 1 : (step + 1) * self.batch + 1])

    def median(self, steps: range, figure: Callable[[int], float]) -> float:
        return float(statistics.median(figure(step) for step in steps))


def fresh_long_turn(calls: int, batch: int, window: int, workdir: Path) -> tuple[str, LongTurn]:
    """One turn of `calls` tool calls on a `serve` process of its own."""
    workdir.mkdir(parents=True)
    with processes(STACKS[:1], CLIENTS[:1], workdir) as (client, servers):
        server = servers[0]
        reads = [server.precise_cpu_s() for _ in range(6)]
        # The least of the gaps: a read's own cost, without the noise a busy
        # machine adds to some (a median could exceed a quiet step's CPU).
        cost = min(b - a for a, b in itertools.pairwise(reads))
        seen = client.ask(
            {
                "op": "turn",
                "conversation": "long",
                "turn": 1,
                "url": server.url,
                "tool_calls": calls,
                "batch": batch,
                "clock": True,
            }
        )
        if seen["error"]:
            raise RuntimeError(f"the long turn: {seen['error']}")
        clocks = [(cpu, stages) for cpu, stages in seen["exec_clocks"]]
        turn = LongTurn(calls, batch, window, cost, clocks, seen["exec_bytes"])
        if turn.steps < 2 + 2 * window:
            raise SystemExit(f"{calls} tool calls, {batch} a step, have no two windows of {window}")
        return server.name, turn


def stage_of(turn: LongTurn, stage: str, step: int) -> float:
    return turn.stage_ms(step, stage)


def long_turn_lines(name: str, turn: LongTurn) -> Iterator[str]:
    early, late = turn.early, turn.late
    yield (
        f"# one turn of {turn.calls} tool calls on a fresh {name}, {turn.batch} to a model "
        f"response; per step (a model call and its {turn.batch} calls), medians of "
        f"{turn.window} steps: early = steps {early[0] + 1}-{early[-1] + 1}, "
        f"late = steps {late[0] + 1}-{late[-1] + 1} of {turn.steps}"
    )
    cpu_early, cpu_late = turn.median(early, turn.cpu_ms), turn.median(late, turn.cpu_ms)
    yield f"step_cpu_ms[early] = {cpu_early:.2f}"
    yield f"step_cpu_ms[late] = {cpu_late:.2f}"
    yield f"step_cpu_ratio_late_over_early = {cpu_late / cpu_early:.2f}"
    for stage in STAGES:
        timed = functools.partial(stage_of, turn, stage)
        was, now = turn.median(early, timed), turn.median(late, timed)
        yield f"step_stage_ms[late][{stage}] = {now:.3f}  # early {was:.3f}, {now - was:+.3f}"
    yield f"step_client_bytes[early] = {turn.median(early, turn.client_bytes):.0f}"
    yield f"step_client_bytes[late] = {turn.median(late, turn.client_bytes):.0f}"


# -- reporting ------------------------------------------------------------------------


def level_lines(n: int, sides: dict[str, Side], name: str, suffix: str = "") -> Iterator[str]:
    direct, through = sides["direct"], sides[name]
    label = f"[{n}]{suffix}"
    yield (
        f"# N={n} {name}: {len(through.streams)} streams through, {through.failures} "
        f"failed; {len(direct.streams)} direct, {direct.failures} failed; failures="
        f"{through.failures + direct.failures}"
    )
    errors = sorted({s["error"] for s in (*through.streams, *direct.streams) if s["error"]})
    if errors:
        yield f"#   errors: {errors[:3]}"
    for q in (50, 95):
        yield (f"ttft_p{q}_ms{label} = {through.ttft_ms(q):.2f} (direct {direct.ttft_ms(q):.2f})")
    yield f"added_ttft_p50_ms{label} = {through.ttft_ms(50) - direct.ttft_ms(50):.2f}"
    for q in (50, 99):
        yield (f"gap_p{q}_ms{label} = {through.gap_ms(q):.2f} (direct {direct.gap_ms(q):.2f})")
    yield f"added_gap_p99_ms{label} = {through.gap_ms(99) - direct.gap_ms(99):.2f}"
    per_delta = through.cpu_s / through.deltas * 1e6 if through.deltas else float("nan")
    yield f"relay_cpu_us_per_delta{label} = {per_delta:.1f}"
    rate = statistics.fmean(through.rates) if through.rates else float("nan")
    direct_rate = statistics.fmean(direct.rates) if direct.rates else float("nan")
    yield f"relayed_deltas_per_s{label} = {rate:.0f} (direct {direct_rate:.0f})"


def direct_cpu_line(n: int, direct: Side, suffix: str = "") -> str:
    """What the bench's own processes spend per delta when the load client
    reads the fake provider directly: one Python reader and one writer of
    the same streams, on uvloop. The server both reads and writes each
    delta, so its figure is best read beside this one: it moves with the
    host's speed as much as with the server's code."""
    per_delta = direct.cpu_s / direct.deltas * 1e6 if direct.deltas else float("nan")
    return f"direct_cpu_us_per_delta[{n}]{suffix} = {per_delta:.1f}"


def h2_ratio_lines(n: int, http1: Side, h2: Side) -> Iterator[str]:
    """`Run` over HTTP/2 against RunSSE over HTTP/1.1 in the same steady
    rounds: server CPU per delta (goal <= 1.15 at 50 streams) and deltas
    relayed per second (goal >= 0.95 at 200)."""

    def per_delta(side: Side) -> float:
        return side.cpu_s / side.deltas if side.deltas else float("nan")

    def rate(side: Side) -> float:
        return statistics.fmean(side.rates) if side.rates else float("nan")

    yield f"h2_cpu_ratio[{n}][steady] = {per_delta(h2) / per_delta(http1):.2f}"
    yield f"h2_rate_ratio[{n}][steady] = {rate(h2) / rate(http1):.2f}"


def report(
    levels: dict[int, dict[str, Side]],
    servers: Sequence[Server],
    session: tuple[str, Session] | None,
    offered: float,
    out: TextIO,
    steady: dict[int, dict[str, Side]] | None = None,
) -> None:
    def line(text: str) -> None:
        print(text, file=out, flush=True)

    first = servers[0].name if servers else ""
    for n, sides in levels.items():
        line(f"# N={n}: offered {n * offered:.0f} deltas/s")
        if first in sides:  # (not with --paths h2 alone)
            for text in level_lines(n, sides, first):
                line(text)
        if f"{first} h2" in sides:  # the same figures for the HTTP/2 path, suffixed [h2]
            for text in level_lines(n, sides, f"{first} h2", "[h2]"):
                line(text)
        line(direct_cpu_line(n, sides["direct"]))
    for n, sides in (steady or {}).items():  # the same figures, suffixed [steady]
        line(
            f"# N={n} steady: {n} streams open at every moment, {n * offered:.0f} deltas/s "
            "offered throughout (starts spread over one stream's length, each slot's "
            "streams back to back); figures from the streams begun while all were open"
        )
        if first in sides:
            for text in level_lines(n, sides, first, "[steady]"):
                line(text)
        if f"{first} h2" in sides:
            for text in level_lines(n, sides, f"{first} h2", "[h2][steady]"):
                line(text)
            if first in sides:
                for text in h2_ratio_lines(n, sides[first], sides[f"{first} h2"]):
                    line(text)
        line(direct_cpu_line(n, sides["direct"], "[steady]"))
    names = [name for name in next(iter(levels.values()), {}) if name != "direct"]
    if len(names) > 1:
        line("# side by side (same rounds, alternating; N followed by s: steady rounds):")
        line(
            f"# {'candidate':<24} {'N':>4} {'cpu us/delta':>12} {'+ttft p50':>10} "
            f"{'+gap p99':>9} {'deltas/s':>9} {'failed':>6}"
        )
        rows = [(f"{level}", sides) for level, sides in levels.items()]
        rows += [(f"{level}s", sides) for level, sides in (steady or {}).items()]  # steady
        for name in names:
            for row, sides in rows:
                side, direct = sides[name], sides["direct"]
                cpu = side.cpu_s / side.deltas * 1e6 if side.deltas else float("nan")
                rate = statistics.fmean(side.rates) if side.rates else float("nan")
                line(
                    f"# {name:<24} {row:>4} {cpu:>12.1f} "
                    f"{side.ttft_ms(50) - direct.ttft_ms(50):>10.2f} "
                    f"{side.gap_ms(99) - direct.gap_ms(99):>9.2f} {rate:>9.0f} "
                    f"{side.failures:>6}"
                )
                errors = sorted({s["error"] for s in side.streams if s["error"]})
                if errors:
                    line(f"#   errors: {errors[:2]}")
    if session is not None:
        for text in session_lines(*session):
            line(text)


def session_lines(name: str, session: Session) -> Iterator[str]:
    early, late, old, young = session.early, session.late, session.old, session.young
    yield (
        f"# tool session on a fresh {name}: {session.turns} turns, each a read_file call and "
        f"an answer, the client sending back its last checkpoint as official clients do; "
        f"medians of {session.window} turns: late = its turns {late[0]}-{late[-1]}, "
        f"alternating turn by turn with early = turns {early[0]}-{early[-1]} of a new "
        "conversation on the same server"
    )
    cpu_early, cpu_late = young.cpu_ms(early), old.cpu_ms(late)
    yield f"turn_cpu_ms[early] = {cpu_early:.2f}"
    yield f"turn_cpu_ms[late] = {cpu_late:.2f}"
    yield f"turn_cpu_ratio_{session.turns}_over_5 = {cpu_late / cpu_early:.2f}"
    if session.turns != TURNS:
        yield f"turn_cpu_ratio_200_over_5 = {cpu_late / cpu_early:.2f}  # the name scripts read"
    yield f"turn_cpu_ratio_late_over_early = {cpu_late / cpu_early:.2f}"
    yield (
        f"# cheapest turn: early {young.cheapest_ms(early):.2f} ms, "
        f"late {old.cheapest_ms(late):.2f} ms; the session's own turns "
        f"{early[0]}-{early[-1]} (alone, while it grew): {old.cpu_ms(early):.2f} ms"
    )
    yield "# per stage (server wall time, ms per turn, medians): late (early, late - early)"
    for stage in STAGES:
        was, now = young.stage_ms(early, stage), old.stage_ms(late, stage)
        yield f"turn_stage_ms[late][{stage}] = {now:.3f}  # early {was:.3f}, {now - was:+.3f}"
    db_early, db_late = old.db_bytes_per_turn(early), old.db_bytes_per_turn(late)
    yield f"db_bytes_per_turn[early] = {db_early:.0f}, db_bytes_per_turn[late] = {db_late:.0f}"
    yield f"db_bytes_per_turn_ratio_200_over_5 = {db_late / db_early:.2f}"


@contextmanager
def processes(
    stacks: Sequence[str],
    clients: Sequence[str],
    workdir: Path,
    baseline_src: Path | None = None,
) -> Iterator[tuple[LineProcess, list[Server]]]:
    with ExitStack() as stack:
        python = sys.executable
        provider = LineProcess([python, str(HERE / "fake_provider.py")], workdir / "provider.log")
        stack.callback(provider.close)
        provider_url = f"http://127.0.0.1:{provider.line()}/v1"
        servers = [
            Server(s, c, workdir / f"{s}+{c}", provider_url) for s in stacks for c in clients
        ]
        if baseline_src is not None:
            base = Server(STACKS[0], CLIENTS[0], workdir / "baseline", provider_url, baseline_src)
            servers.append(base)
        for server in servers:
            stack.callback(server.stop)
            server.start()
        client = LineProcess(
            [python, str(HERE / "load_client.py"), provider_url], workdir / "client.log", provider
        )
        stack.callback(client.close)
        yield client, servers


def run(
    levels: Sequence[int] = LEVELS,
    rounds: dict[int, int] | None = None,
    deltas: int = DELTAS,
    pace_ms: float = PACE_MS,
    turns: int = TURNS,
    stacks: Sequence[str] = STACKS[:1],
    clients: Sequence[str] = CLIENTS[:1],
    out: TextIO = sys.stdout,
    keep: Path | None = None,
    paths: Sequence[str] = PATHS,
    steady_turns: int = STEADY_TURNS,
    baseline_src: Path | None = None,
    window: int = WINDOW,
    tool_calls: int = 0,
    tool_batch: int = TOOL_BATCH,
) -> None:
    """The whole benchmark; `keep` keeps the servers' folders (logs, databases);
    `baseline_src` serves another tree's package beside this one's. No
    `levels`: the tool session alone (`turns` of them, 0: none). `tool_calls`:
    also one turn of that many tool calls (`tool_batch` to a response)."""
    rounds = rounds or ROUNDS
    if turns:
        session_turns(turns, window)
    began = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="bench-server-"))
    results: dict[int, dict[str, Side]] = {}
    steady: dict[int, dict[str, Side]] = {}
    servers: list[Server] = []
    try:
        if levels:
            with processes(stacks, clients, workdir, baseline_src) as (client, servers):
                # Warm-up, not counted: connections, first SQLite pages, lazy imports.
                run_level(max(levels), 1, 5, pace_ms, client, servers, "warm-", paths)
                for n in levels:
                    count = rounds.get(n, 1)
                    results[n] = run_level(n, count, deltas, pace_ms, client, servers, "", paths)
                for n in [n for n in levels if n > 1 and steady_turns > 0]:
                    steady[n] = run_level(
                        n,
                        STEADY_ROUNDS,
                        deltas,
                        pace_ms,
                        client,
                        servers,
                        "s-",
                        paths,
                        steady=steady_turns,
                    )
            print(
                f"# {deltas} deltas a stream, one every {pace_ms:g} ms; rounds "
                f"{ {n: rounds.get(n, 1) for n in levels} }; servers: "
                f"{', '.join(s.name for s in servers)}",
                file=out,
                flush=True,
            )
        # The rounds' processes are gone: the session has the machine to itself.
        session = fresh_session(turns, window, workdir / "session") if turns else None
        report(results, servers, session, 1000 / pace_ms, out, steady)
        if tool_calls:
            long_window = min(window, (tool_calls // tool_batch - 3) // 2)
            named = fresh_long_turn(tool_calls, tool_batch, long_window, workdir / "long")
            for text in long_turn_lines(*named):
                print(text, file=out, flush=True)
    finally:
        if keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            shutil.copytree(workdir, keep, dirs_exist_ok=True)
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"# total wall time {time.perf_counter() - began:.1f} s", file=out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--levels", type=int, nargs="+", default=list(LEVELS))
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="rounds per level (default: 10 at N=1, 3 at N=50, 2 at N=200)",
    )
    parser.add_argument("--deltas", type=int, default=DELTAS, help="deltas per stream")
    parser.add_argument(
        "--turns", type=int, default=TURNS, help="turns of the tool session (0: skip it)"
    )
    parser.add_argument(
        "--window",
        type=int,
        default=WINDOW,
        help="turns per window of the tool session: early = turns 5.., late = the last ones",
    )
    parser.add_argument(
        "--session-only", action="store_true", help="the tool session alone, no relay rounds"
    )
    parser.add_argument(
        "--tool-calls-per-turn",
        type=int,
        default=0,
        help="also one turn of this many tool calls, per step (0: none)",
    )
    parser.add_argument(
        "--tool-batch",
        type=int,
        default=TOOL_BATCH,
        help="tool calls to a model response in that turn",
    )
    parser.add_argument(
        "--stacks",
        nargs="+",
        choices=STACKS,
        default=[STACKS[0]],
        help="ASGI servers to compare (the first is the one reported by name)",
    )
    parser.add_argument(
        "--clients",
        nargs="+",
        choices=CLIENTS,
        default=[CLIENTS[0]],
        help="upstream HTTP clients to compare",
    )
    parser.add_argument(
        "--paths",
        nargs="+",
        choices=PATHS,
        default=list(PATHS),
        help="http1: RunSSE + BidiAppend; h2: Run over h2c (stacks that speak HTTP/2)",
    )
    parser.add_argument(
        "--steady-turns",
        type=int,
        default=STEADY_TURNS,
        help="streams per slot of the steady rounds at N > 1 (0: burst rounds only)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a few seconds: levels 1 and 4, 20 deltas, a 12-turn session",
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="also serve the cursor_byok package under this folder (another tree's src), "
        "visited in the same rounds",
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="copy the servers' logs and databases here"
    )
    args = parser.parse_args(argv)
    if args.quick:
        run(
            levels=(1, 4),
            rounds={1: 2, 4: 1},
            deltas=20,
            turns=12,
            window=3,
            stacks=args.stacks,
            clients=args.clients,
            keep=args.keep,
            paths=args.paths,
            steady_turns=3,
            baseline_src=args.baseline_src,
        )
        return
    rounds = {n: args.rounds for n in args.levels} if args.rounds else None
    run(
        () if args.session_only else args.levels,
        rounds,
        args.deltas,
        PACE_MS,
        args.turns,
        args.stacks,
        args.clients,
        keep=args.keep,
        paths=args.paths,
        steady_turns=args.steady_turns,
        baseline_src=args.baseline_src,
        window=args.window,
        tool_calls=args.tool_calls_per_turn,
        tool_batch=args.tool_batch,
    )


if __name__ == "__main__":
    main()
