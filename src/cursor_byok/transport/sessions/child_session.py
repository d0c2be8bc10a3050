"""A subagent's stream inside its parent's: the session a child conversation
is served by when the server runs the subagent itself.

The child is a conversation of its own (its own history, records and loop
state in the store), driven by the same runner; only its output is routed
differently. A `ChildSession` is a `Session` whose messages do not go to a
stream of their own but into the parent's, in order with the parent's own:

- every `InteractionUpdate` (text, thinking, tool cards...) goes out wrapped
  as `tool_call_delta{call_id = the Task call's id,
  task_tool_call_delta{interaction_update}}` (agent-features.md §5.2 B);
- exec requests go out as they are, on the parent's exec channel: their
  numbers come from the parent's counter and their ids are the child's
  operation ids, so they never collide with the parent's; the hub routes
  the client's replies back here (`Subagents.reply`);
- the child's KV writes (the blobs of its checkpoints) go out renumbered by
  the parent's KV counter, and its checkpoint is kept for the parent's
  (`subagent_states[agent_id].conversation_state`) instead of being sent;
- an interaction query is answered here: a web search or fetch is
  approved, anything else fails (a subagent has no person to ask);
- the end of its turn resolves `ended` rather than closing a stream.
"""

from __future__ import annotations

from dataclasses import dataclass

from cursor_byok.loop.commands import Emit
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.exec_tracker import ExecTracker
from cursor_byok.transport.sessions.outbox import EndOfStream, QueueItem
from cursor_byok.transport.sessions.session import Session

APPROVED_QUERIES = {
    "web_search_request_query": "web_search_request_response",
    "web_fetch_request_query": "web_fetch_request_response",
}
"""The queries a subagent's tools may send, approved at once (§5.2 B)."""


@dataclass(eq=False)
class ChildSession(Session):
    """The session of one server-run subagent, inside `parent`'s stream."""

    outer: Session | None = None
    task_call_id: str = ""
    """The parent's Task tool call this child answers."""
    checkpoint: pb.ConversationStateStructure | None = None
    """The child's latest checkpoint, for the parent's `subagent_states`."""
    finished: bool = False
    """Its turn came to an end (its answer, or an error, is in its history)."""
    held: list[pb.AgentServerMessage] | None = None
    """Its updates while its Task card is not shown yet (None: shown)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.outer is not None:  # the parent's exec numbers: no two execs share one
            self.execs = ExecTracker(self.outer.context.exec_number)

    @property
    def host(self) -> Session:
        assert self.outer is not None
        return self.outer

    def put(self, item: QueueItem) -> None:
        if isinstance(item, EndOfStream):
            self._finish()
            return
        if self.ended:
            return
        parent = self.host
        kind = item.WhichOneof("message")
        if kind == "interaction_update":
            if item.interaction_update.HasField("heartbeat"):  # the parent's own go out
                return
            if self.held is not None:
                self.held.append(self.wrapped(item.interaction_update))
            else:
                parent.put(self.wrapped(item.interaction_update))
        elif kind == "conversation_checkpoint_update":
            self.checkpoint = item.conversation_checkpoint_update
        elif kind == "kv_server_message":
            item.kv_server_message.id = parent.context.turn.kv_number()
            parent.put(item)
        elif kind == "interaction_query":
            self._answer(item.interaction_query)
        else:
            parent.put(item)

    def show(self, event: Emit) -> None:
        """As `Session.show`, into the parent's stream (no token counter: the
        parent's counts its own model calls)."""
        context = self.context
        messages = dialect.encode_event(event, context, self.tools, self.clock())
        context.unsent_tokens = 0
        for message in messages:
            self.put(message)

    def wrapped(self, update: pb.InteractionUpdate) -> pb.AgentServerMessage:
        """`update` as a delta of the Task call's card."""
        message = pb.AgentServerMessage()
        delta = message.interaction_update.tool_call_delta
        delta.call_id = self.task_call_id
        delta.model_call_id = self.host.context.current_model_call()
        delta.tool_call_delta.task_tool_call_delta.interaction_update.CopyFrom(update)
        return message

    def shown(self) -> None:
        """The Task call's card is out: what was held follows it, the rest
        goes out as it comes."""
        held, self.held = self.held or [], None
        for message in held:
            self.host.put(message)

    def _answer(self, query: pb.InteractionQuery) -> None:
        kind = query.WhichOneof("query") or ""
        branch = APPROVED_QUERIES.get(kind)
        if branch is None:
            self.server_runs.queries.answer(query.id, None)  # fails: nobody to ask
            return
        response = pb.InteractionResponse(id=query.id)
        getattr(response, branch).approved.SetInParent()
        self.server_runs.queries.answer(query.id, response)

    def _finish(self) -> None:
        if self.finished:
            return
        self.finished, self.ended = True, True
        self.server_runs.cancel_all()
        self.on_end(self)

    def stop(self) -> None:
        """The parent's run of the Task call stopped (its turn ended, or it
        moved to another stream): nothing more goes out on this stream."""
        self.ended = True
        self.server_runs.cancel_all()
