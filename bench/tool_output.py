"""What keeping a running command's output costs: each piece of a shell
command's streamed output is committed with the call before its append is
answered (`ToolProgress`), so that a run cut off by a lost connection or a
restart can still say what arrived. This times that commit, through the real
runner and SQLite store, for a conversation whose settings carry the built-in
tools and a 10 KB system prompt (their bytes are in every state document).

TURNS commands each print 750 pieces of 80 characters: the 60,000 characters
kept with a running command (past that a piece commits nothing). Prints,
for one run on this machine (medians):
  piece_ms[first|last] (NORMAL|FULL) = X   one piece, submit to its commit,
                                   among the first 50 and the last 50 (whose
                                   state document carries ~60 KB of output);
                                   a piece's commit is never flushed on its own
  result_ms (NORMAL|FULL) = X      a tool result's commit, the baseline: what
                                   every tool call paid before
  piece_over_result[last] (FULL) = X
  pieces_per_s (NORMAL) = X        one command's pieces back to back
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cursor_byok.llm.events import DoneEvent, ResponseEvent, StartEvent
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import (
    AssistantMessage,
    RequestMessages,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.loop import CallClient, Start, ToolProgress, ToolResult, TurnSettings
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.sqlite import SQLiteStore, Synchronous
from cursor_byok.transport.dialect.tools import ToolSet

PIECES = 750
PIECE = "x" * 79 + "\n"
TURNS = 10
EDGE = 50


class Stream:
    def __init__(self, events: list[ResponseEvent]) -> None:
        self.events = events

    async def recv(self) -> ResponseEvent:
        if not self.events:
            raise StopAsyncIteration
        return self.events.pop(0)

    async def aclose(self) -> None:
        self.events.clear()


class Model:
    """Answers every request with one shell call (its id from the request's length)."""

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> Stream:
        call = ToolCall(f"t{len(request.messages)}", "run_terminal_cmd", {"command": "make"}, None)
        message = AssistantMessage((TextContent("Building."), call), "b", "b", "b", timestamp=2)
        return Stream([StartEvent(), DoneEvent("toolUse", message)])


class Sink:
    def __init__(self) -> None:
        self.asked: asyncio.Queue[CallClient] = asyncio.Queue()

    def publish(self, conversation_id: str, item: Outbound) -> None:
        if isinstance(item, CallClient):
            self.asked.put_nowait(item)


def settings() -> TurnSettings:
    tools = ToolSet.for_run().definitions()
    return TurnSettings("bench-model", "You are a careful agent. " * 400, tools)


async def measure(path: Path, mode: Synchronous) -> tuple[float, float, float, float]:
    """Median ms of the first and the last pieces, of a result; pieces per second."""
    store = SQLiteStore(path, synchronous=mode)
    sink = Sink()
    runner = Runner(store, Model(), sink)
    first = Start(UserMessage("build it", 1), settings=settings())
    await runner.submit("bench", "start", first)
    first: list[float] = []
    last: list[float] = []
    results: list[float] = []
    spent = 0.0
    for turn in range(TURNS):
        asked = await sink.asked.get()
        call = asked.tool_call
        pieces: list[float] = []
        for n in range(PIECES):
            began = time.perf_counter()
            await runner.submit(
                "bench", f"{asked.operation_id}:out:{n}", ToolProgress(call.id, PIECE)
            )
            pieces.append(time.perf_counter() - began)
        first += pieces[:EDGE]
        last += pieces[-EDGE:]
        spent += sum(pieces)
        message = ToolResultMessage(call.id, call.name, (TextContent("done"),), timestamp=3 + turn)
        began = time.perf_counter()
        await runner.submit("bench", f"tool:{asked.operation_id}", ToolResult(message))
        results.append(time.perf_counter() - began)
    await runner.close()
    store.close()
    ms = [statistics.median(times) * 1000 for times in (first, last, results)]
    return ms[0], ms[1], ms[2], TURNS * PIECES / spent


def main() -> None:
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("NORMAL", "FULL"):
            figures[mode] = asyncio.run(measure(Path(folder) / f"{mode}.sqlite3", mode))
    for mode, (first, last, result, _) in figures.items():
        print(f"piece_ms[first] ({mode}) = {first:.3f}")
        print(f"piece_ms[last] ({mode}) = {last:.3f}")
        print(f"result_ms ({mode}) = {result:.3f}")
    print(f"piece_over_result[last] (FULL) = {figures['FULL'][1] / figures['FULL'][2]:.2f}")
    print(f"pieces_per_s (NORMAL) = {figures['NORMAL'][3]:.0f}")


if __name__ == "__main__":
    main()
