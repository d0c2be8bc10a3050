"""One agent session: a RunSSE request id, joining its appends and its stream.

The session owns the one ordered send queue of its stream: the runner's
output for the session's conversation reaches it through the `OutputSink`,
is encoded here and queued, and only the RunSSE writer takes from the
queue. Its exec tracker follows the tool calls the client runs; its server
runs (`server_runs`), those the server runs itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from cursor_byok.loop.commands import CallClient, Canceled, Emit, Failed, Final
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.store.owners import client_id_of
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.dialect import dialect, modes
from cursor_byok.transport.dialect.clients import (
    CAUTIOUS,
    UNKNOWN_CLIENT,
    Capabilities,
    ClientHeaders,
)
from cursor_byok.transport.dialect.interrupted import repeatable
from cursor_byok.transport.dialect.subagent_child import ParentHeaders
from cursor_byok.transport.dialect.tools import NativeTool, ServerTool, ToolOutcome, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.append_inbox import AppendInbox
from cursor_byok.transport.sessions.exec_tracker import ExecTracker
from cursor_byok.transport.sessions.kv_answers import KvAnswers
from cursor_byok.transport.sessions.outbox import EndOfStream, Outbox, QueueItem
from cursor_byok.transport.sessions.request_context import BlobRequests, ContextRequests
from cursor_byok.transport.sessions.server_runs import ServerRuns

log = logging.getLogger(__name__)

ToolFeedback = Callable[[str, CallClient, ToolOutcome], None]
"""Submit an outcome for a tool call the client was never asked to run."""
CutOff = Callable[["Session", str, CallClient], None]
"""Give a tool call that may have run already its result without a second run."""


__all__ = ["EndOfStream", "QueueItem", "Session", "ToolFeedback"]


@dataclass(eq=False)
class Session:
    request_id: str
    feedback: ToolFeedback
    release: Callable[[Session, str], None]
    clock: Callable[[], float] = time.time
    inbox: AppendInbox = field(default_factory=AppendInbox)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    outbox: Outbox = field(default_factory=Outbox)
    conversation_id: str | None = None
    context: dialect.StreamContext = field(default_factory=dialect.StreamContext)
    tools: ToolSet = field(default_factory=ToolSet.for_run)
    client_headers: ClientHeaders = UNKNOWN_CLIENT
    """Who the request's headers say the client is."""
    parent: ParentHeaders | None = None
    """The run and Task call whose subagent this run is, as its headers say."""
    capabilities: Capabilities = CAUTIOUS
    """What the run's client can show and answer (set when its run starts)."""
    execs: ExecTracker = field(init=False)
    server_runs: ServerRuns = field(default_factory=ServerRuns)
    """The calls of tools the server runs itself (`server_runs`)."""
    context_requests: ContextRequests = field(default_factory=ContextRequests)
    blob_requests: BlobRequests = field(default_factory=BlobRequests)
    kv: KvAnswers = field(default_factory=KvAnswers)
    """The KV requests sent on this stream still unanswered: its end waits for them."""
    readers: int = 0
    ended: bool = False
    touched: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    grace: asyncio.Task[None] | None = None
    failed: str | None = None
    """Why the session lost input it needed (its turn was ended); later appends are ignored."""
    refused: str | None = None
    """Why an append of this request id was refused: the client sends no
    more, so a tool call asked here could never be answered."""
    on_end: Callable[[Session], None] = lambda _session: None
    on_drop: Callable[[Session, str], None] = lambda _session, _reason: None
    on_cut_off: CutOff = lambda _session, _conversation_id, _command: None
    sent_state: bool = False
    """The run's client sent a `conversation_state` (the official ones do)."""
    on_turn_end: Callable[[Session, str], None] = lambda _session, _conversation_id: None
    """Told as a turn this stream plays ends, after its last checkpoint (rewinds)."""

    def __post_init__(self) -> None:
        self.context.stream_id = self.client_id
        self.execs = ExecTracker(self.context.exec_number)

    @property
    def client_id(self) -> str:
        """The request id as the client knows it; `request_id` is the
        server's key, in the owner's namespace (`store.owners`)."""
        return client_id_of(self.request_id)

    def put(self, item: QueueItem) -> None:
        if self.ended:
            return
        if isinstance(item, pb.AgentServerMessage) and item.HasField("kv_server_message"):
            self.kv.asked(item.kv_server_message.id)
        self.outbox.put_nowait(item)
        if isinstance(item, EndOfStream):
            self.ended = True
            self.ended_at = time.monotonic()
            self.context.turn.release()
            self.on_end(self)

    def idle(self) -> bool:
        """Nothing uses the session now: no stream reads it, no append is applied."""
        return self.readers == 0 and not self.lock.locked()

    def drop(self, reason: str) -> None:
        self.on_drop(self, reason)

    def input_id(self, what: str) -> str:
        """An input the server makes for the request id itself (a cancel when
        the client is gone); client messages are named by `input_ids`."""
        run = (self.inbox.first_digest or b"").hex()[:16]
        return f"{self.request_id}:{run}:{what}"

    def reset(self) -> None:
        """The request id was reused for a new run (seqno restarted at 0).
        The outbox is emptied in place: a writer parked on it stays the
        stream's writer."""
        self.outbox.clear()
        self.context = dialect.StreamContext(stream_id=self.client_id)
        self.execs = ExecTracker(self.context.exec_number)
        self.context_requests = ContextRequests()
        self.blob_requests = BlobRequests()
        self.kv.clear()
        self.server_runs.cancel_all()
        self.server_runs = ServerRuns(self.server_runs.host)
        self.ended = False
        self.ended_at = None

    def fail_start(self, error: Exception) -> None:
        """The run could not start (a failed store, a bug): no turn will end
        the stream, so it ends here, with why, rather than hang."""
        if not self.ended:
            what = f"{type(error).__name__}: {error}"
            text = f"request {self.client_id}: the run could not start: {what}"
            self.put(EndOfStream(WireError(Code.INTERNAL, text)))

    async def starting(self, start: Awaitable[None]) -> None:
        """`start`, a run's opening awaited apart from its append (after the
        client's answers came): if it fails, as `fail_start`."""
        try:
            await start
        except Exception as error:
            self.fail_start(error)
            raise

    def end(self, conversation_id: str, error: WireError | None = None) -> None:
        self.put(EndOfStream(error))
        self.release(self, conversation_id)

    # -- output: what the sink delivers -------------------------------------------------

    def deliver(self, conversation_id: str, item: Outbound) -> None:
        match item:
            case CallClient():
                try:
                    self.ask(conversation_id, item)
                except Exception as error:  # e.g. arguments the exec message cannot hold
                    log.exception("could not send tool call %s", item.tool_call.id)
                    outcome = ToolOutcome(f"The tool call could not be sent: {error}", True)
                    self.feedback(conversation_id, item, outcome)
            case Final():
                for message in dialect.encode_final(item, self.context):
                    self.put(message)
                self.on_turn_end(self, conversation_id)
                self.end(conversation_id)
            case Failed() | Canceled():
                self.server_runs.cancel_all()
                self.on_turn_end(self, conversation_id)
                self.end(conversation_id, dialect.error_for(item))
            case _:
                self.show(item)  # typed: a new kind of output fails the type check here

    def show(self, event: Emit) -> None:
        """An event's updates (never the end of the stream), then the token
        counter's step when one is due (`dialect.token_step`), which joins
        one still queued."""
        context = self.context
        now = self.clock()
        messages = dialect.encode_event(event, context, self.tools, now)
        if self.ended:
            context.unsent_tokens = 0
            return
        tokens = dialect.token_step(context, event, now)
        outbox = self.outbox
        if not tokens and len(messages) == 1:
            outbox.send_one(messages[0])
            return
        for message in messages:
            outbox.put_nowait(message, wake=False)
        if tokens:
            outbox.add_tokens(tokens, wake=False)
        outbox.flush()

    def ask(self, conversation_id: str, command: CallClient) -> None:
        """tool_call_started -> checkpoint -> exec request, once per stream;
        a tool the server runs itself is run instead (`server_runs`), again
        too when asked again: nothing it did is committed before its result."""
        call = command.tool_call
        tool = self.tools.get(call.name)
        if tool is None:
            text = f"Unknown tool {call.name!r}; use one of the tools offered."
            self.feedback(conversation_id, command, ToolOutcome(text, True))
            return
        if isinstance(tool, ServerTool):
            if not self.server_runs.asked(command.operation_id):
                self.server_runs.start(
                    conversation_id, command, tool, self.context, self.put, self.capabilities
                )
            return
        assert isinstance(tool, NativeTool)  # every other tool runs on the client
        mode = self.context.mode
        if mode in modes.LOOKING and call.name not in modes.READ_ONLY:
            text = f"{call.name} is not available in {mode} mode: {modes.RULES[mode]}"
            self.feedback(conversation_id, command, ToolOutcome(text, True))
            return
        if self.execs.asked(command.operation_id):
            return
        if command.again and not repeatable(call.name):
            self.on_cut_off(self, conversation_id, command)  # it may have run: never twice
            return
        if self.refused is not None:
            text = f"The tool call could not be run: {self.refused}"
            self.feedback(conversation_id, command, ToolOutcome(text, True))
            return
        request = self.execs.start(call, tool, command.operation_id)
        for message in dialect.encode_call_client(command, tool, self.context, request):
            self.put(message)
