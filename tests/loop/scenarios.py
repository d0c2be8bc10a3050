"""Random but valid conversations: a list of abstract actions, turned into
loop inputs against the current state. Shared by the property tests and the
cross-process determinism check (`python -m tests.loop.scenarios SEED`)."""

from __future__ import annotations

import hashlib
import random
import sys
from dataclasses import dataclass

from cursor_byok.llm.events import ResponseEvent, TextDelta
from cursor_byok.llm.serialize import serialize_messages
from cursor_byok.llm.types import AssistantContent, StopReason, TextContent, ThinkingContent
from cursor_byok.loop import Cancel, Input, LLMEvent, Status, StopCall, ToolResult, UserInput
from tests.factories import (
    assistant,
    error_event,
    fresh,
    result,
    start,
    stream_of,
    tool_call,
    user,
)
from tests.loop.drive import Trace


@dataclass(frozen=True)
class Block:
    kind: str  # "text" | "thinking" | "tool"
    text: str


@dataclass(frozen=True)
class Respond:
    blocks: tuple[Block, ...]
    cut: int | None  # stop after this many events, then end with `ending`
    ending: str  # "done" | "length" | "error" | "abort"


@dataclass(frozen=True)
class Action:
    kind: str  # start | respond | result | duplicate | stale | cancel | user
    respond: Respond | None = None
    text: str = ""
    flag: bool = False


class Interpreter:
    """Turns actions into inputs; every input goes through `Trace.feed`."""

    def __init__(self) -> None:
        self.trace = Trace(fresh())
        self.clock = 100
        self.tool_ids = 0
        self.last: Input | None = None
        self.fed: list[Input] = []

    def feed(self, given: Input) -> None:
        self.trace.feed(given)
        self.fed.append(given)
        self.last = given

    def run(self, action: Action) -> None:
        self.clock += 1
        state = self.trace.state.committed
        match action.kind:
            case "start":
                self.feed(start(action.text or "task", timestamp=self.clock))
            case "user":
                self.feed(UserInput(user(action.text or "more", self.clock)))
            case "respond":
                assert action.respond is not None
                call_id = state.call_id or "conv-1:call:0"
                for event in self.events(action.respond):
                    self.feed(LLMEvent(call_id, event))
            case "result":
                if state.waiting is not None:
                    current = state.waiting.current.id
                    self.feed(ToolResult(result(current, action.text or "out", action.flag)))
                else:
                    self.feed(ToolResult(result("nobody", "late")))
            case "duplicate":
                if self.last is not None:
                    self.feed(self.last)
            case "stale":
                self.feed(LLMEvent("conv-1:call:stale", TextDelta(0, "ghost")))
            case "cancel":
                self.feed(Cancel("stop", timestamp=self.clock))
                command = self.trace.commands[-1]
                if isinstance(command, StopCall):  # the runner hands over the last word
                    self.feed(LLMEvent(command.call_id, error_event(aborted=True)))

    def events(self, respond: Respond) -> list[ResponseEvent]:
        content: list[AssistantContent] = []
        for block in respond.blocks:
            if block.kind == "text":
                content.append(TextContent(block.text))
            elif block.kind == "thinking":
                content.append(ThinkingContent(block.text, "sig-" + block.text[:3]))
            else:
                self.tool_ids += 1
                content.append(tool_call(f"t{self.tool_ids}", block.text))
        stop: StopReason | None = "length" if respond.ending == "length" else None
        events = stream_of(assistant(*content, stop_reason=stop, timestamp=self.clock), chunk=3)
        if respond.ending in ("done", "length"):
            return events
        cut = len(events) - 1 if respond.cut is None else min(respond.cut, len(events) - 1)
        return [*events[:cut], error_event(aborted=respond.ending == "abort")]


def random_actions(rng: random.Random, count: int) -> list[Action]:
    words = ["a", "bb", "héllo", "tool", "x y z", "ünï", "🙂 ok", "long text here"]
    actions: list[Action] = []
    for _ in range(count):
        kind = rng.choice(
            ["start", "respond", "respond", "result", "result", "duplicate", "stale", "cancel"]
        )
        blocks = tuple(
            Block(rng.choice(["text", "thinking", "tool"]), rng.choice(words))
            for _ in range(rng.randint(0, 4))
        )
        respond = Respond(
            blocks, rng.choice([None, 1, 2, 5]), rng.choice(["done", "done", "length", "error"])
        )
        actions.append(Action(kind, respond, rng.choice(words), rng.random() < 0.3))
    return actions


def digest(seed: int) -> str:
    """A digest of everything a run produced: states, emits, commands, bytes."""
    rng = random.Random(seed)
    interpreter = Interpreter()
    for action in random_actions(rng, 60):
        interpreter.run(action)
    h = hashlib.sha256()
    for step in interpreter.trace.transitions:
        h.update(repr(step).encode())
    state = interpreter.trace.state.committed
    h.update(serialize_messages(state.messages))
    h.update(state.messages_hash.encode())
    assert state.status in Status
    return h.hexdigest()


if __name__ == "__main__":
    print(" ".join(digest(int(seed)) for seed in sys.argv[1:]))
