"""The session registry: made on first use, the reconnect grace period,
and the sweep of ended and idle sessions."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from cursor_byok.transport.sessions import registry as registry_module
from cursor_byok.transport.sessions.registry import SessionRegistry


@dataclass(eq=False)
class Fake:
    request_id: str
    readers: int = 0
    ended: bool = False
    ended_at: float | None = None
    touched: float = 0.0
    conversation_id: str | None = "conv"
    grace: asyncio.Task[None] | None = None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(
    grace_s: float = 0.05, clock: Clock | None = None
) -> tuple[SessionRegistry[Fake], list[str]]:
    abandoned: list[str] = []

    async def on_abandoned(session: Fake) -> None:
        abandoned.append(session.request_id)

    return SessionRegistry(Fake, on_abandoned, grace_s, clock or Clock()), abandoned


async def test_a_session_is_made_once_per_request_id() -> None:
    sessions, _ = make()
    first = sessions.session("r1")
    assert sessions.session("r1") is first and sessions.get("r1") is first
    assert sessions.get("r2") is None and len(sessions) == 1


async def test_a_stream_without_reader_is_abandoned_after_the_grace() -> None:
    sessions, abandoned = make(grace_s=0.05)
    session = sessions.session("r1")
    sessions.reader_attached(session)
    sessions.reader_detached(session)
    await asyncio.sleep(0.15)
    assert abandoned == ["r1"]


async def test_a_reader_back_within_the_grace_keeps_the_turn() -> None:
    sessions, abandoned = make(grace_s=0.1)
    session = sessions.session("r1")
    sessions.reader_attached(session)
    sessions.reader_detached(session)
    await asyncio.sleep(0.02)
    sessions.reader_attached(session)
    await asyncio.sleep(0.15)
    assert abandoned == [] and session.grace is None


async def test_an_ended_stream_is_not_abandoned() -> None:
    sessions, abandoned = make(grace_s=0.01)
    session = sessions.session("r1")
    sessions.reader_attached(session)
    session.ended = True
    sessions.reader_detached(session)
    await asyncio.sleep(0.05)
    assert abandoned == [] and session.grace is None


async def test_ended_and_idle_sessions_are_swept_when_a_new_one_is_made() -> None:
    clock = Clock()
    sessions, _ = make(clock=clock)
    ended = sessions.session("ended")
    ended.ended = True
    sessions.ended(ended)
    reading = sessions.session("reading")
    sessions.reader_attached(reading)
    sessions.session("idle")
    clock.now += registry_module.ENDED_SESSION_TTL_S + 1
    sessions.session("new")
    assert sessions.get("ended") is None and sessions.get("idle") is not None
    clock.now += registry_module.IDLE_SESSION_TTL_S + 1
    sessions.session("newer")
    assert sessions.get("idle") is None and sessions.get("new") is None
    assert sessions.get("reading") is not None  # a reader keeps it
    await sessions.close()


@dataclass(eq=False)
class Watched(Fake):
    """Counts how often the sweep looks at its last touch."""

    looks: int = 0

    def __getattribute__(self, name: str) -> object:
        if name == "touched":
            object.__setattr__(self, "looks", object.__getattribute__(self, "looks") + 1)
        return object.__getattribute__(self, name)


async def test_the_sweep_looks_only_at_expired_sessions_however_many_live() -> None:
    clock = Clock()

    async def ignore(_session: Watched) -> None:
        return None

    forgotten: list[str] = []
    sessions = SessionRegistry(
        Watched, ignore, 1.0, clock, on_forget=lambda s: forgotten.append(s.request_id)
    )
    old = [sessions.session(f"old-{n}") for n in range(3)]
    clock.now += registry_module.IDLE_SESSION_TTL_S / 2
    live = [sessions.session(f"live-{n}") for n in range(2000)]
    for session in [*old, *live]:
        session.looks = 0
    clock.now += registry_module.IDLE_SESSION_TTL_S / 2 + 1
    sessions.sweep()
    assert forgotten == ["old-0", "old-1", "old-2"] and len(sessions) == 2000
    assert sum(s.looks for s in live) == 1  # the first live one, where the sweep stops
    await sessions.close()


async def test_a_session_in_use_is_not_expired_and_a_reused_ended_one_stays() -> None:
    clock = Clock()
    sessions, _ = make(clock=clock)
    reading = sessions.session("reading")
    sessions.reader_attached(reading)
    reused = sessions.session("reused")
    reused.ended = True
    sessions.ended(reused)
    reused.ended = False  # the request id began a new run
    clock.now += registry_module.IDLE_SESSION_TTL_S - 1
    sessions.session("reused")  # touched
    clock.now += 2
    sessions.sweep()
    assert sessions.get("reading") is reading and sessions.get("reused") is reused
    await sessions.close()
