"""Appends and output that meet their stream across processes (several
servers, one database).

A request's appends are applied where its session is hosted, since that is
where its turn runs. The host is the process reading the request's stream,
unless that process does not own the request's conversation (another live
process holds its lease): then the owner hosts it, and the stream's process
is a pipe.

- An append whose session is hosted here is applied at once, as on one
  process; any other is stored in the database and announced. The host picks
  it up on the announcement, and reads every stored append of the request
  when it starts hosting it, so an append stored before that, or whose
  announcement was missed, is not lost. The append inbox orders by seqno and
  drops repeats, so an append that reaches the inbox twice is applied once.
- A run request that meets a conversation owned elsewhere turns its session
  into a pipe (`relay_pipe`): the run request and the appends waiting behind
  it in the inbox are stored, the owner is asked to host the request from
  the run request's seqno on, and from then on every append of the request,
  wherever it lands, is stored for the host. The owner hosts it
  (`relay_host`): its session's output goes to a table the pipe feeds its
  stream from, and the pipe's reader counts as the session's reader.

SQLite and one process never get here: the plain `SessionHub` serves them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import Any

from cursor_byok.cluster.lease import Notice, NoticeKind, Relay
from cursor_byok.cluster.leased_runner import LeasedRunner, NotOwner
from cursor_byok.cluster.relay_host import (
    READER_BEAT_S,
    READER_SILENCE_S,
    Hosted,
    pump,
    refuse,
    unavailable,
)
from cursor_byok.cluster.relay_pipe import Pipe
from cursor_byok.store.base import StoreError
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.dialect.run_request import RunStarted
from cursor_byok.transport.sessions.hub import SessionHub
from cursor_byok.transport.sessions.memory_budget import OverBudget, budget_key
from cursor_byok.transport.sessions.session import EndOfStream, Session

log = logging.getLogger(__name__)

SWEEP_EVERY_S = 300.0
KEEP_RELAYED_S = 3600.0
"""Stored appends and output older than this belong to runs long over."""
NOT_OWNED_HERE = "this process no longer owns the conversation; retry to resume it"
CHANGED_HANDS = "the conversation changed hands; retry"


class RelayingHub(SessionHub):
    """A `SessionHub` that hands appends and output to and from other processes."""

    def __init__(self, *args: Any, relay: Relay, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.relay = relay
        self.leased = self.runner if isinstance(self.runner, LeasedRunner) else None
        self.relayed_out = 0
        """Appends this process stored for another one."""
        self.relayed_in = 0
        """Stored appends this process read for its sessions (one read twice,
        on its stream's opening and on its announcement, counts twice; the
        inbox applies it once)."""
        self.piped: dict[str, Pipe] = {}
        """Request id -> the pipe of a stream read here, hosted elsewhere."""
        self.hosted: dict[str, Hosted] = {}
        """Request id -> a request hosted here for a stream read elsewhere."""
        self._hosting: set[str] = set()
        self._delivering: dict[str, tuple[int, bytes]] = {}
        """Request id -> the append being applied now (a run request may be piped)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.reader_beat_s = READER_BEAT_S
        self.reader_silence_s = READER_SILENCE_S

    @property
    def name(self) -> str:
        """This process's name in the lease table."""
        return self.leased.leases.owner if self.leased is not None else ""

    def start(self) -> None:
        """Listen for announcements (call from the serving loop)."""
        self._loop = asyncio.get_running_loop()
        self.relay.listen(self._announced)
        self._sweeper = asyncio.create_task(self._sweep(), name="relay sweep")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        await asyncio.to_thread(self.relay.close)
        await super().close()

    def _read_here(self, request_id: str) -> Session | None:
        """The session, when this process applies the request's appends: its
        stream is read here, or hosted here, or ended here (an append after
        the end is late, and late here as on one process: nobody else would
        ever read it)."""
        if request_id in self.piped:
            return None
        session = self.sessions.get(request_id)
        if session is None:
            return None
        here = session.readers > 0 or session.ended or request_id in self.hosted
        return session if here else None

    # -- appends ---------------------------------------------------------------------------

    async def append(
        self, request_id: str, seqno: int, payload: bytes, headers: Mapping[str, str] | None = None
    ) -> None:
        session = self._read_here(request_id)
        if session is None:
            # Stored without its headers: the host reads the client as unknown.
            await self._store(request_id, seqno, payload)
            piped = self.sessions.get(request_id)
            if piped is not None:  # a piped stream's end waits for its KV answers
                piped.kv.answered_in(payload)
            return
        await super().append(request_id, seqno, payload, headers)

    async def _store(self, request_id: str, seqno: int, payload: bytes) -> None:
        await asyncio.to_thread(self.relay.put, request_id, seqno, payload)
        self.relayed_out += 1

    async def _deliver(self, session: Session, seqno: int, data: bytes) -> None:
        request_id = session.request_id
        if request_id in self.piped:  # piped by an append of the same batch
            await self._store(request_id, seqno, data)
            return
        self._delivering[request_id] = (seqno, data)
        try:
            await super()._deliver(session, seqno, data)
        finally:
            self._delivering.pop(request_id, None)

    async def _catch_up(self, request_id: str) -> None:
        """Apply the stored appends of a request hosted here."""
        session = self._read_here(request_id)
        if session is None:
            return
        for seqno, payload in await asyncio.to_thread(
            self.relay.since, request_id, session.inbox.next_seqno
        ):
            self.relayed_in += 1
            await SessionHub.append(self, request_id, seqno, payload)

    # -- the run request: host here, or pipe to the owner -------------------------------------

    async def _run_started(self, session: Session, event: RunStarted, input_id: str) -> None:
        if self.leased is None:
            await super()._run_started(session, event, input_id)
            return
        conversation_id = event.conversation_id
        if not await self.leased.owns(conversation_id):
            await self._not_owner(session, conversation_id)
            return
        try:
            await super()._run_started(session, event, input_id)
        except NotOwner:  # the lease went between the check and the work: retry
            self.sink.release(conversation_id, session)
            session.put(EndOfStream(unavailable(CHANGED_HANDS)))

    async def _not_owner(self, session: Session, conversation_id: str) -> None:
        if session.request_id in self.hosted:
            session.put(EndOfStream(unavailable(NOT_OWNED_HERE)))
            return
        try:
            await self._pipe(session, conversation_id)
        except StoreError as error:  # the owner cannot be reached: the client retries
            log.warning("request %s: not piped: %s", session.request_id, error)
            session.put(EndOfStream(unavailable("the conversation's owner is out of reach")))

    async def _pipe(self, session: Session, conversation_id: str) -> None:
        """Hand the request to the conversation's owner; this stream reads its output."""
        assert self.leased is not None
        request_id = session.request_id
        session.conversation_id = conversation_id
        owner = await self.leased.owner_of(conversation_id)
        run = self._delivering.get(request_id)
        if owner is None or owner == self.name or run is None:
            # Nobody to pipe to, or a turn begun here whose lease went while
            # it waited for the client's context: the client's retry settles it.
            session.put(EndOfStream(unavailable(CHANGED_HANDS)))
            return
        pipe = Pipe(session, conversation_id, owner, self.relay, self.leased.owner_of)
        pipe.counters, pipe.beat_s, pipe.first_seqno = self.counters, self.reader_beat_s, run[0]
        self.piped[request_id] = pipe
        # The run request and what waits behind it go to the host; appends
        # before it were applied here as nothing, and the host skips them.
        waiting = sorted(session.inbox.pending.items())
        self.budget.refund(budget_key(request_id), session.inbox.clear())
        for seqno, payload in [run, *waiting]:
            await self._store(request_id, seqno, payload)
        await asyncio.to_thread(self.relay.announce, pipe.host_request())
        log.info("request %s: piped to %s, which owns %s", request_id, owner, conversation_id)
        self._spawn(pipe.feed())

    async def _host(self, request_id: str, conversation_id: str, first_seqno: int) -> None:
        """Host a request piped here by the process reading its stream, from
        the append that carries its run request."""
        if request_id in self._hosting or request_id in self.hosted or request_id in self.piped:
            return  # asked again (the ask is repeated until output comes)
        self._hosting.add(request_id)
        try:
            if self.leased is None or not await self.leased.owns(conversation_id):
                await refuse(self.relay, request_id, "the conversation is not owned here; retry")
                return
            seq = await asyncio.to_thread(self.relay.next_output_seq, request_id)
            try:
                session = self.session(request_id)
            except OverBudget as no_room:
                await refuse(self.relay, request_id, str(no_room))
                return
        except StoreError as error:  # the pipe asks again until it hears from us
            log.warning("request %s: not hosted yet: %s", request_id, error)
            return
        finally:
            self._hosting.discard(request_id)
        session.inbox.start_at(first_seqno)
        hosted = self.hosted[request_id] = Hosted(session)
        self.leased.pin(conversation_id)
        self.reader_attached(session)  # the far reader; reads the stored appends
        log.info("request %s: hosted here for a stream read elsewhere", request_id)
        self._spawn(self._serve(hosted, conversation_id, seq))

    async def _serve(self, hosted: Hosted, conversation_id: str, seq: int) -> None:
        session = hosted.session
        watch = asyncio.ensure_future(self._watch(hosted, conversation_id))
        try:
            await pump(session, self.relay, seq)
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
            self.hosted.pop(session.request_id, None)
            if self.leased is not None:
                self.leased.unpin(conversation_id)
            self._far_reader(session.request_id, False, hosted)

    async def _watch(self, hosted: Hosted, conversation_id: str) -> None:
        """A pipe that falls silent is a reader gone; a conversation whose
        lease went elsewhere is hosted here no more (the stream ends, its
        client retries and meets the new owner)."""
        request_id = hosted.session.request_id
        while True:
            await asyncio.sleep(self.reader_beat_s)
            if hosted.silent(self.reader_silence_s):
                log.info("request %s: its pipe fell silent", request_id)
                self._far_reader(request_id, False, hosted)
            if self.leased is not None and not self.leased.holds(conversation_id):
                hosted.session.put(EndOfStream(unavailable(NOT_OWNED_HERE)))

    def _far_reader(self, request_id: str, reading: bool, hosted: Hosted | None = None) -> None:
        """The pipe's client came or went: count it as a reader here."""
        hosted = hosted or self.hosted.get(request_id)
        if hosted is None:
            return
        if reading:
            hosted.heard_at = time.monotonic()
        if hosted.reading == reading:
            return
        hosted.reading = reading
        if reading:
            self.reader_attached(hosted.session)
        else:
            self.reader_detached(hosted.session)

    # -- readers ---------------------------------------------------------------------------

    def reader_attached(self, session: Session) -> None:
        super().reader_attached(session)
        pipe = self.piped.get(session.request_id)
        if pipe is None:
            self._spawn(self._catch_up(session.request_id))
        elif session.readers == 1:
            self._spawn(self._tell(pipe.reader_notice(True)))

    def reader_detached(self, session: Session) -> None:
        super().reader_detached(session)
        pipe = self.piped.get(session.request_id)
        if pipe is not None and session.readers == 0:
            self._spawn(self._tell(pipe.reader_notice(False)))

    async def _tell(self, notice: Notice) -> None:
        await asyncio.to_thread(self.relay.announce, notice)

    def _fail(self, session: Session, reason: str) -> None:
        pipe = self.piped.pop(session.request_id, None)
        if pipe is None:
            super()._fail(session, reason)
            return
        # A pipe holds no input its turn needs: only its stream ends (the
        # host hears its reader is gone, and applies the grace period).
        session.failed = reason
        pipe.stop()
        error = WireError(Code.RESOURCE_EXHAUSTED, f"request {session.request_id}: {reason}")
        session.put(EndOfStream(error))

    async def _abandoned(self, session: Session) -> None:
        if session.request_id not in self.piped:  # a pipe's host decides
            await super()._abandoned(session)

    def _forget(self, session: Session) -> None:
        super()._forget(session)
        pipe = self.piped.pop(session.request_id, None)
        if pipe is not None:
            pipe.stop()

    # -- announcements -----------------------------------------------------------------------

    def _announced(self, notice: Notice) -> None:
        """From the listening thread: hand the notice to the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._heard, notice)

    def _heard(self, notice: Notice) -> None:
        request_id = notice.request_id
        match notice.kind:
            case NoticeKind.APPEND:
                if self._read_here(request_id) is not None:
                    self._spawn(self._catch_up(request_id))
            case NoticeKind.OUTPUT:
                pipe = self.piped.get(request_id)
                if pipe is not None:
                    pipe.wake.set()
            case NoticeKind.HOST if notice.to == self.name:
                self._spawn(self._host(request_id, notice.conversation_id, notice.seqno))
            case NoticeKind.READER if notice.to == self.name:
                self._far_reader(request_id, notice.reading)
            case _:
                pass  # addressed to another process

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            try:
                await asyncio.to_thread(self.relay.sweep, KEEP_RELAYED_S)
            except Exception:  # a sweep can wait for the next round
                log.exception("relay: sweep failed")
