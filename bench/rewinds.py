"""What rewinds cost a run (`runtime/rewinds.py`), on SQLite: a conversation
of TURNS turns (a user message and an answer each), every turn's end marked
as the transport marks it.

Prints, per size (medians):
  place_us[TURNS] = X     where a run goes when its state names every turn
                          (the two reads each run with a state now makes)
  fork_ms[TURNS] = X      a rewind to the middle: the reads, the branch's
                          first commit (a copy of the kept half) and its row
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from cursor_byok.llm.events import ResponseStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import (
    AssistantMessage,
    Message,
    RequestMessages,
    TextContent,
    UserMessage,
)
from cursor_byok.loop.forks import TurnMark
from cursor_byok.loop.state import ConversationState, Status
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.runtime.rewinds import Rewinds
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.sqlite import SQLiteStore

SIZES = (10, 200)
ROUNDS = 50
FORKS = 20


class Quiet:
    def publish(self, conversation_id: str, item: Outbound) -> None:
        del conversation_id, item


class NoModel:
    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        raise AssertionError("no model call is made here")


def conversation(key: str, turns: int) -> ConversationState:
    messages: list[Message] = []
    for number in range(turns):
        messages.append(UserMessage(f"question {number} " + "x" * 400, number))
        answer = (TextContent(f"answer {number} " + "y" * 800),)
        messages.append(AssistantMessage(answer, "api", "provider", "model", timestamp=number))
    base = ConversationState(key)
    chain = messages_hash(messages)
    return replace(base, messages=tuple(messages), messages_hash=chain, status=Status.FINAL)


async def measure(folder: Path, turns: int) -> tuple[float, float]:
    store = SQLiteStore(folder / f"bench-{turns}.sqlite3", synchronous="NORMAL")
    runner = Runner(store, NoModel(), Quiet())
    rewinds = Rewinds(store, runner)
    key = "conv"
    store.commit_input("run-0", 0, conversation(key, turns), None)
    blobs = [number.to_bytes(32, "big") for number in range(1, turns + 1)]
    for number, blob in enumerate(blobs, start=1):
        store.mark_turn(blob, TurnMark(key, number, 2 * number), number)
    placing = []
    for round_ in range(ROUNDS):
        began = time.perf_counter()
        placed = await rewinds.place(key, blobs, True, f"next-{round_}")
        placing.append(time.perf_counter() - began)
        assert placed == key
    forking = []
    for round_ in range(FORKS):
        began = time.perf_counter()
        placed = await rewinds.place(key, blobs[: turns // 2], True, f"fork-{round_}")
        forking.append(time.perf_counter() - began)
        assert placed != key
    await runner.close()
    store.close()
    return statistics.median(placing) * 1e6, statistics.median(forking) * 1e3


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        for turns in SIZES:
            place_us, fork_ms = await measure(Path(folder), turns)
            print(f"place_us[{turns}] = {place_us:.0f}")
            print(f"fork_ms[{turns}] = {fork_ms:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
