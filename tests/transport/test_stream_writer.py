"""The RunSSE writer on a session's outbox: a parked writer keeps serving its
session through a request-id reuse and a take-over, heartbeats only while
idle, what a failed write held goes back first, and relaying items costs no
Task per item. The writer's `send` is the ASGI seam; here it collects the
bytes, which are decoded back into envelopes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cursor_byok.transport.connect.codec import Codec, ContentType
from cursor_byok.transport.connect.framing import EnvelopeDecoder
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.http.stream_writer import StreamWriter
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.handover import take_over
from cursor_byok.transport.sessions.outbox import EndOfStream
from cursor_byok.transport.sessions.session import Session

PROTO_STREAM = ContentType(Codec.PROTO, grpc_web=False, streaming=True)
NO_BEAT_S = 60.0
"""A heartbeat interval no test waits for: only an item or a wake moves the writer."""


class Wire:
    """An ASGI `send` that keeps what was sent; `fail_next` makes the next body write fail."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.fail_next = False

    async def send(self, message: dict[str, Any]) -> None:
        if self.fail_next:
            self.fail_next = False
            raise ConnectionResetError("the peer went away")
        self.bodies.append(message["body"])

    def messages(self) -> list[pb.AgentServerMessage | str]:
        """What the client would read: messages, and "end" for the end-of-stream."""
        decoded: list[pb.AgentServerMessage | str] = []
        for envelope in EnvelopeDecoder().feed(b"".join(self.bodies)):
            if envelope.is_end_stream:
                decoded.append("end")
            else:
                decoded.append(pb.AgentServerMessage.FromString(envelope.payload))
        return decoded


def text(value: str) -> pb.AgentServerMessage:
    update = pb.InteractionUpdate(text_delta=pb.TextDeltaUpdate(text=value))
    return pb.AgentServerMessage(interaction_update=update)


def new_session(request_id: str = "req-1") -> Session:
    return Session(request_id, feedback=lambda *_: None, release=lambda *_: None)


def pump(
    session: Session, wire: Wire, heartbeat_s: float = NO_BEAT_S
) -> tuple[asyncio.Task[None], asyncio.Future[None]]:
    gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    writer = StreamWriter(heartbeat_s).pump(session, PROTO_STREAM, wire.send, gone)
    return asyncio.ensure_future(writer), gone


async def parked(session: Session) -> None:
    """Let the writer reach its wait on the empty outbox."""
    for _ in range(5):
        await asyncio.sleep(0)
    assert session.outbox.empty()


async def test_a_parked_writer_serves_the_new_run_of_a_reused_request_id() -> None:
    session, wire = new_session(), Wire()
    session.put(text("old run"))
    writer, _ = pump(session, wire)
    await parked(session)
    session.reset()
    session.put(text("new run"))
    session.put(EndOfStream())
    await asyncio.wait_for(writer, 1)
    assert wire.messages() == [text("old run"), text("new run"), "end"]


async def test_a_parked_writer_of_a_stream_taken_over_gets_its_end_at_once() -> None:
    previous, wire = new_session("req-old"), Wire()
    writer, _ = pump(previous, wire)
    await parked(previous)
    previous.outbox.put_nowait(text("unread"))  # queued, not yet taken by the writer
    resumed = new_session("req-new")
    take_over(resumed, previous)
    previous.put(EndOfStream())
    await asyncio.wait_for(writer, 1)
    assert wire.messages() == ["end"]
    assert resumed.outbox.take(10) == [text("unread")]


async def test_an_idle_writer_beats_and_a_busy_one_does_not() -> None:
    session, wire = new_session(), Wire()
    writer, _ = pump(session, wire, heartbeat_s=0.05)
    await asyncio.sleep(0.18)
    idle = wire.messages()
    assert len(idle) >= 2 and all(m == dialect.heartbeat() for m in idle)
    wire.bodies.clear()
    for n in range(20):
        session.put(text(str(n)))
        await asyncio.sleep(0.01)
    session.put(EndOfStream())
    await asyncio.wait_for(writer, 1)
    assert wire.messages() == [*(text(str(n)) for n in range(20)), "end"]


async def test_what_a_failed_write_held_goes_back_to_the_head_in_order() -> None:
    session, wire = new_session(), Wire()
    for n in range(3):
        session.put(text(str(n)))
    wire.fail_next = True
    writer, _ = pump(session, wire)
    await asyncio.wait_for(writer, 1)
    session.put(text("3"))
    assert session.outbox.take(10) == [text(str(n)) for n in range(4)]


async def test_a_disconnect_wakes_a_parked_writer_and_leaves_the_outbox_alone() -> None:
    session, wire = new_session(), Wire()
    writer, gone = pump(session, wire)
    await parked(session)
    gone.set_result(None)
    await asyncio.wait_for(writer, 1)
    session.put(text("for the next reader"))
    assert wire.bodies == []
    assert session.outbox.take(10) == [text("for the next reader")]


@contextmanager
def counting_tasks() -> Iterator[list[int]]:
    """Counts the Tasks the loop creates meanwhile."""
    loop = asyncio.get_running_loop()
    created = [0]
    previous = loop.get_task_factory()

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        created[0] += 1
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(factory)
    try:
        yield created
    finally:
        loop.set_task_factory(previous)


async def test_relaying_items_one_by_one_creates_no_task_per_item() -> None:
    session, wire = new_session(), Wire()
    writer, _ = pump(session, wire)
    await parked(session)
    with counting_tasks() as created:
        for n in range(200):
            session.put(text(str(n)))
            await asyncio.sleep(0)  # the writer parks again between items
        session.put(EndOfStream())
        await asyncio.wait_for(asyncio.shield(writer), 1)
    assert len(wire.messages()) == 201
    assert created[0] <= 2  # wait_for's own; none per item


def test_a_query_the_old_stream_never_sent_is_not_carried_over_twice() -> None:
    """Its run is canceled and asks again on the new stream: carrying the
    unsent query over too would show the user the same question twice."""
    previous = new_session("req-old")
    query = pb.InteractionQuery(id=5, ask_question_interaction_query={"tool_call_id": "c1"})
    previous.outbox.put_nowait(pb.AgentServerMessage(interaction_query=query))
    previous.outbox.put_nowait(text("unread"))
    resumed = new_session("req-new")
    take_over(resumed, previous)
    assert resumed.outbox.take(10) == [text("unread")]
