"""HTTP/2 `Run` path: the server in its own process under each candidate
stack (hypercorn, granian), a paced scripted model, and Run streams over
h2c from this process. Per level N (concurrent streams): server CPU per
relayed delta, time to the first delta over the model's own, and deltas/s.
Every stack is measured in the same run, levels alternating per stack.

    python bench/run_h2.py [--levels 1 50 200] [--deltas 100]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cursor_byok.llm.events import (  # noqa: E402
    DoneEvent,
    ResponseEvent,
    StartEvent,
    TextDelta,
    TextEnd,
    TextStart,
)
from cursor_byok.llm.types import AssistantMessage, TextContent, Usage  # noqa: E402
from cursor_byok.transport.cursor.client import End, kind, run_request  # noqa: E402
from cursor_byok.transport.cursor.run_client import H2Client  # noqa: E402

STACKS = ("hypercorn", "granian")
PACE_S = 0.01  # 100 deltas/s per stream, as bench/server.py offers


class PacedText:
    """One model answer: `deltas` text deltas, one every PACE_S."""

    def __init__(self, deltas: int) -> None:
        text = "ab" * deltas
        message = AssistantMessage(
            content=(TextContent(text),),
            api="bench",
            provider="bench",
            model="bench",
            usage=Usage(input=10, output=deltas, total_tokens=10 + deltas),
            stop_reason="stop",
            response_id="r",
            timestamp=1,
        )
        self.events: list[ResponseEvent] = [StartEvent(), TextStart(0)]
        self.events += [TextDelta(0, text[i : i + 2]) for i in range(0, len(text), 2)]
        self.events += [TextEnd(0, text), DoneEvent("stop", message)]
        self.position = 0

    async def recv(self) -> ResponseEvent:
        if self.position >= len(self.events):
            raise StopAsyncIteration
        await asyncio.sleep(PACE_S)
        self.position += 1
        return self.events[self.position - 1]

    async def aclose(self) -> None:
        self.position = len(self.events)


@dataclass
class PacedModel:
    """Answers every call with a paced text answer (the provider's own pace)."""

    deltas: int

    async def call(self, model: str, ctx: object, request: object) -> PacedText:
        return PacedText(self.deltas)


def serve(stack: str, port: int, deltas: int) -> None:
    from cursor_byok.store.sqlite import SQLiteStore  # noqa: PLC0415
    from cursor_byok.transport.wire.app import build_service  # noqa: PLC0415
    from cursor_byok.transport.wire.http_server import HttpServer  # noqa: PLC0415

    store = SQLiteStore(Path(tempfile.mkdtemp()) / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, PacedModel(deltas))  # type: ignore[arg-type]

    async def main() -> None:
        if stack == "granian":
            from granian.constants import HTTPModes, Interfaces  # noqa: PLC0415
            from granian.log import LogLevels  # noqa: PLC0415
            from granian.server.embed import Server  # noqa: PLC0415

            server = Server(
                service.server,
                address="127.0.0.1",
                port=port,
                interface=Interfaces.ASGI,
                http=HTTPModes.auto,
                log_level=LogLevels.error,
            )
            await server.serve()
        else:
            await HttpServer(service.server, "127.0.0.1", port, signals=True).serve()

    asyncio.run(main())


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_round(url: str, streams: int, tag: str) -> tuple[list[float], int]:
    """`streams` concurrent turns on one connection per 100 streams."""
    clients = [await H2Client.connect(url) for _ in range((streams + 99) // 100)]
    firsts: list[float] = []
    relayed = 0

    async def turn(i: int) -> None:
        nonlocal relayed
        stream = await clients[i % len(clients)].open("proto")
        started = time.perf_counter()
        await stream.send(run_request("go", conversation_id=f"{tag}-{i}"))
        await stream.until(lambda item: kind(item) == "text_delta", within=60)
        firsts.append(time.perf_counter() - started)
        await stream.until(lambda item: isinstance(item, End), within=120)
        relayed += sum(1 for item in stream.received if kind(item) == "text_delta")

    await asyncio.gather(*(turn(i) for i in range(streams)))
    for client in clients:
        await client.close()
    return firsts, relayed


async def measure(ports: dict[str, tuple[int, int]], levels: list[int]) -> None:
    for level in levels:
        for stack, (port, pid) in ports.items():
            url = f"http://127.0.0.1:{port}"
            await one_round(url, min(level, 5), f"warm{level}")
            before = cpu_s(pid)
            firsts, relayed = await one_round(url, level, f"{stack}{level}")
            used = cpu_s(pid) - before
            added = (statistics.median(firsts) - PACE_S) * 1000
            p95 = (sorted(firsts)[int(0.95 * (len(firsts) - 1))] - PACE_S) * 1000
            cpu = used / relayed * 1e6
            print(
                f"{stack:10s} N={level:<4d} relay_cpu_us_per_delta={cpu:7.1f} "
                f"added_ttft_p50_ms={added:6.1f} p95_ms={p95:6.1f} deltas={relayed}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 50, 200])
    parser.add_argument("--deltas", type=int, default=100)
    parser.add_argument("--stacks", nargs="+", choices=STACKS, default=list(STACKS))
    parser.add_argument("--serve", nargs=2, metavar=("STACK", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.deltas)
        return 0
    from cursor_byok.transport.wire.http_server import free_port  # noqa: PLC0415

    servers: dict[str, subprocess.Popen[bytes]] = {}
    ports: dict[str, tuple[int, int]] = {}
    try:
        stacks = [s for s in args.stacks if importlib.util.find_spec(s) is not None]
        for missing in sorted(set(args.stacks) - set(stacks)):
            print(f"{missing}: not installed (pip install {missing}); left out")
        for stack in stacks:
            port = free_port()
            command = [sys.executable, __file__, "--serve", stack, str(port)]
            command += ["--deltas", str(args.deltas)]
            servers[stack] = subprocess.Popen(command, stderr=subprocess.DEVNULL)
            ports[stack] = (port, servers[stack].pid)
        time.sleep(3)
        asyncio.run(measure(ports, args.levels))
    finally:
        for process in servers.values():
            process.terminate()
            process.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
