"""Marked sockets first in a loop pass (`ready_order`), on real sockets.

The selector lists marked sockets ahead of the others it found ready and
still lists every ready one; the server's loop runs their read callbacks in
that order; and a provider answer's socket is marked from the moment its
reader waits for the body until the first read of it, then never again, so
no mark outlives the call.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from cursor_byok.llm import ready_order
from cursor_byok.llm.events import ResponseEvent, StartEvent, TextDelta
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.types import RequestMessages
from tests.factories import user
from tests.llm.loopback import LoopbackServer, Reply, recording

REQUEST = RequestMessages("Be brief.", (user("hi"),))


@contextmanager
def readable_pairs(count: int) -> Iterator[list[socket.socket]]:
    """`count` sockets, each with a byte waiting to be read."""
    pairs = [socket.socketpair() for _ in range(count)]
    try:
        for _, far in pairs:
            far.send(b"x")
        yield [near for near, _ in pairs]
    finally:
        for near, far in pairs:
            ready_order.served_in_turn(near.fileno())
            near.close()
            far.close()


def test_the_selector_lists_marked_sockets_first_and_every_ready_one() -> None:
    selector = ready_order.FirstServedSelector()
    with readable_pairs(4) as sockets:
        for sock in sockets:
            selector.register(sock, 1)  # EVENT_READ
        unordered = [key.fd for key, _ in selector.select(0)]
        assert sorted(unordered) == sorted(s.fileno() for s in sockets)

        ready_order.serve_first(sockets[3].fileno())
        ready_order.serve_first(sockets[1].fileno())
        ordered = [key.fd for key, _ in selector.select(0)]
        assert set(ordered[:2]) == {sockets[3].fileno(), sockets[1].fileno()}
        assert sorted(ordered) == sorted(unordered)  # none dropped, none twice

        ready_order.served_in_turn(sockets[3].fileno())
        ready_order.served_in_turn(sockets[1].fileno())
        assert [key.fd for key, _ in selector.select(0)] == unordered
    selector.close()


def test_the_servers_loop_runs_a_marked_sockets_read_first_in_its_pass() -> None:
    loop = ready_order.new_event_loop()
    try:
        with readable_pairs(5) as sockets:
            fds = [sock.fileno() for sock in sockets]
            ran: list[int] = []
            for fd in fds:
                loop.add_reader(fd, ran.append, fd)
            ready_order.serve_first(fds[4])
            loop.run_until_complete(asyncio.sleep(0))  # all five are ready in the first pass
            for fd in fds:
                loop.remove_reader(fd)
        first_pass = ran[: len(fds)]
        assert first_pass[0] == fds[4]
        assert sorted(first_pass) == sorted(fds)
    finally:
        loop.close()


async def test_an_answers_socket_is_marked_until_its_first_read_and_never_after() -> None:
    body = recording("anthropic/text-usage.sse")
    before = ready_order.marked()
    async with LoopbackServer([Reply(body, chunk_size=None)], pace_s=0.05) as server:
        llm = AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", server.base_url), "sk-ant")
        try:
            stream = await llm.call(CallContext("c1", "s1"), REQUEST)
            marks_at_take: list[frozenset[int]] = []

            def take(event: ResponseEvent) -> None:
                marks_at_take.append(ready_order.marked())

            stream.pass_on(take)  # type: ignore[attr-defined]
            assert isinstance(await stream.recv(), StartEvent)
            reading = asyncio.ensure_future(stream.recv())
            for _ in range(5):  # the reader parks, waiting for the body
                await asyncio.sleep(0)
            waiting = ready_order.marked() - before
            last = await reading  # the answer's end: its deltas were taken
            assert not isinstance(last, TextDelta)
            with pytest.raises(StopAsyncIteration):
                await stream.recv()
        finally:
            await llm.aclose()
    assert len(waiting) == 1  # the answer's connection, while its reader waited
    # Every delta was taken with the mark gone: it goes with the first read.
    assert marks_at_take and all(not (marks - before) for marks in marks_at_take)
    assert ready_order.marked() == before
