"""The output sink: routing to the serving stream, the stash while none
serves, deltas dropped past the bound and once the turn's end is stashed,
and the sweep."""

from __future__ import annotations

from dataclasses import dataclass, field

from cursor_byok.llm.events import StartEvent, TextDelta, TextEnd
from cursor_byok.loop import CallClient, Final
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.transport.sessions import registry as registry_module
from cursor_byok.transport.sessions.memory_budget import MemoryBudget
from cursor_byok.transport.sessions.sink import ITEM_BYTES, OutputSink
from tests.factories import assistant, tool_call


@dataclass
class Stream:
    ended: bool = False
    got: list[tuple[str, Outbound]] = field(default_factory=list)

    def deliver(self, conversation_id: str, item: Outbound) -> None:
        self.got.append((conversation_id, item))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_output_goes_to_the_serving_stream_else_to_the_stash() -> None:
    sink = OutputSink()
    stream = Stream()
    sink.publish("c", StartEvent())
    assert sink.serve("c", stream) is None
    sink.publish("c", TextDelta(0, "hi"))
    assert stream.got == [("c", TextDelta(0, "hi"))]
    assert sink.take_stash("c") == [StartEvent()]
    stream.ended = True  # an ended stream takes nothing more
    sink.publish("c", TextDelta(0, "late"))
    assert sink.stashed("c") == 1
    newer = Stream()
    assert sink.serve("c", newer) is stream
    sink.release("c", stream)  # not the serving one: no effect
    assert sink.serving("c") is newer
    sink.release("c", newer)
    assert sink.serving("c") is None


def test_deltas_are_dropped_past_the_bound_but_commands_are_kept() -> None:
    sink = OutputSink(limit=2)
    call = CallClient("op", tool_call("t1"))
    for piece in ("a", "b", "c"):
        sink.publish("c", TextDelta(0, piece))
    sink.publish("c", TextEnd(0, "abc"))
    sink.publish("c", call)
    assert sink.take_stash("c") == [TextDelta(0, "a"), TextDelta(0, "b"), TextEnd(0, "abc"), call]


def test_once_the_turn_end_is_stashed_its_deltas_go() -> None:
    sink = OutputSink()
    final = Final(assistant())
    sink.publish("c", StartEvent())
    sink.publish("c", TextDelta(0, "a"))
    sink.publish("c", final)
    sink.publish("c", TextDelta(0, "after the end"))
    assert sink.take_stash("c") == [StartEvent(), final]
    assert sink.take_stash("c") == []


def test_stashes_nobody_picks_up_are_swept() -> None:
    clock = Clock()
    sink = OutputSink(clock=clock)
    sink.publish("done", Final(assistant()))
    sink.publish("idle", StartEvent())
    clock.now += registry_module.ENDED_SESSION_TTL_S + 1
    sink.publish("fresh", StartEvent())  # a new stash sweeps the old ones
    assert sink.stashed("done") == 0 and sink.stashed("idle") == 1
    clock.now += registry_module.IDLE_SESSION_TTL_S + 1
    sink.sweep()
    assert sink.stashed("idle") == 0 and sink.stashed("fresh") == 0


def test_stashes_are_charged_to_the_budget_and_the_oldest_goes_first() -> None:
    budget = MemoryBudget(total_bytes=3 * ITEM_BYTES, request_bytes=3 * ITEM_BYTES)
    sink = OutputSink(budget=budget)
    sink.publish("old", StartEvent())
    sink.publish("new", TextDelta(0, "hi"))
    assert budget.used == 2 * ITEM_BYTES + 2
    sink.publish("new", TextDelta(0, "there"))  # no room: the oldest stash goes
    assert sink.stashed("old") == 0 and sink.stashed("new") == 2
    assert budget.stats.dropped == {"stash": 1} and budget.used == 2 * ITEM_BYTES + 7
    sink.take_stash("new")
    assert budget.used == 0


def test_a_stash_alone_over_the_budget_is_dropped_not_grown() -> None:
    budget = MemoryBudget(total_bytes=10_000, request_bytes=ITEM_BYTES + 10)
    sink = OutputSink(budget=budget)
    sink.publish("c", TextDelta(0, "0123456789"))
    sink.publish("c", TextDelta(0, "more"))
    assert sink.stashed("c") == 0 and budget.used == 0
    sink.publish("c", StartEvent())  # a new stash begins
    assert sink.stashed("c") == 1


def test_a_conversation_is_taken_over_only_by_another_serving_stream() -> None:
    sink = OutputSink()
    old, new = Stream(), Stream()
    sink.serve("c", old)
    assert not sink.taken_over("c", old)
    sink.release("c", old)  # a Run stream went away: nobody serves
    assert not sink.taken_over("c", old)
    sink.serve("c", new)  # a resume on a new stream
    assert sink.taken_over("c", old) and not sink.taken_over("c", new)
    assert not sink.taken_over(None, old)
