"""The memory budget: per-key and total caps, the oldest idle holder dropped
first, busy holders kept, bodies being read reserved and given back."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import pytest

from cursor_byok.transport.connect.codec import Codec, ContentType
from cursor_byok.transport.connect.request_body import RequestError
from cursor_byok.transport.http.append_body import Append, read_append
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.sessions.memory_budget import MemoryBudget


@dataclass
class State:
    busy: bool = False
    dropped: list[str] = field(default_factory=list)

    def idle(self) -> bool:
        return not self.busy

    def drop(self, reason: str) -> None:
        self.dropped.append(reason)


def test_a_key_cannot_pass_its_own_cap() -> None:
    budget = MemoryBudget(total_bytes=1000, request_bytes=100)
    budget.track("a", State(), "session")
    assert budget.charge("a", 60) is None
    refused = budget.charge("a", 50)
    assert refused is not None and "limit of 100 bytes per request id" in refused
    assert budget.held("a") == 60 and budget.used == 60 and budget.stats.refused == 1


def test_past_the_total_the_least_recently_touched_idle_state_goes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    drops: list[tuple[str, int]] = []
    budget = MemoryBudget(100, 100, on_drop=lambda kind, size: drops.append((kind, size)))
    states = {name: State() for name in "abc"}
    for name, state in states.items():
        budget.track(name, state, "session")
        assert budget.charge(name, 30) is None
    budget.touch("a")  # now b is the oldest
    with caplog.at_level(logging.WARNING):
        assert budget.charge("c", 30) is None
    assert states["b"].dropped and not states["a"].dropped and not states["c"].dropped
    assert "memory budget" in states["b"].dropped[0]
    assert budget.used == 90 and budget.held("b") == 0 and len(budget) == 2
    assert drops == [("session", 30)] and budget.stats.dropped == {"session": 1}
    assert "dropped idle session b holding 30 bytes (60 of 100" in caplog.text


def test_busy_state_is_never_dropped_and_then_the_charge_is_refused() -> None:
    budget = MemoryBudget(100, 100)
    busy = State(busy=True)
    budget.track("busy", busy, "session")
    assert budget.charge("busy", 80) is None
    budget.track("new", State(), "session")
    refused = budget.charge("new", 30)
    assert refused is not None and "budget of 100 bytes is in use" in refused
    assert not busy.dropped and budget.used == 80


def test_forgetting_and_refunding_give_the_bytes_back() -> None:
    budget = MemoryBudget(100, 100)
    budget.track("a", State(), "stash")
    assert budget.charge("a", 40) is None
    budget.refund("a", 15)
    assert budget.used == 25
    budget.refund("a", 1000)  # never below what the key holds
    assert budget.used == 0
    assert budget.charge("a", 10) is None
    budget.forget("a")
    assert budget.used == 0 and budget.held("a") == 0


def chunks(*parts: bytes) -> Any:
    last = len(parts) - 1
    sent = [
        {"type": "http.request", "body": part, "more_body": number < last}
        for number, part in enumerate(parts)
    ]

    async def receive() -> dict[str, Any]:
        return sent.pop(0)

    return receive


PROTO = ContentType(Codec.PROTO, grpc_web=False, streaming=False)


def append_of(payload: bytes) -> bytes:
    request = bidi_pb2.BidiAppendRequest(
        data_binary=payload, request_id=bidi_pb2.BidiRequestId(request_id="r"), append_seqno=1
    )
    return request.SerializeToString()


async def test_an_append_body_is_reserved_while_read_and_given_back() -> None:
    budget = MemoryBudget(100, 100)
    body = append_of(b"x" * 40)
    half = len(body) // 2
    append = await read_append(chunks(body[:half], body[half:]), {}, PROTO, budget, 1000, 5.0)
    assert append == Append("r", 1, b"x" * 40)
    assert budget.used == 0 and budget.in_flight == 0


async def test_an_append_body_with_no_room_left_is_refused_and_nothing_stays_reserved() -> None:
    budget = MemoryBudget(100, 100)
    budget.track("busy", State(busy=True), "session")
    assert budget.charge("busy", 50) is None
    with pytest.raises(RequestError) as refused:
        await read_append(chunks(b"x" * 40, b"y" * 40), {}, PROTO, budget, 1000, 5.0)
    assert "memory budget is in use" in str(refused.value)
    assert budget.used == 50 and budget.in_flight == 0


def test_a_fixed_cost_counts_in_the_total_but_not_in_the_per_key_cap() -> None:
    budget = MemoryBudget(total_bytes=150, request_bytes=100)
    assert budget.track("a", State(busy=True), "session", fixed=40) is None
    assert budget.charge("a", 100) is None  # the whole per-key cap, besides the fixed 40
    assert budget.held("a") == 140 and budget.used == 140
    budget.refund("a", 1000)
    assert budget.held("a") == 40  # the fixed cost stays while the key is held
    assert budget.charge("a", 100) is None
    refused = budget.track("b", State(), "session", fixed=40)
    assert refused is not None and "in use" in refused and budget.held("b") == 0
