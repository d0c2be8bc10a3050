"""A stream that takes a conversation over from another one.

The official CLI resumes a turn on a new request id when it could not
write an exec's output to the old stream: it cancels that exec on the old
request id (no result or `stream_close` ever comes there) and sends the
latest checkpoint with an empty `resume_action`. The new stream then plays
the rest of the turn: the old stream's protocol state (the current model
call's id, the turn's blobs and usage, messages typed during the turn not
yet acknowledged) moves over, so cards keep the model call id the client
groups them by; what the old stream had queued but nobody read is sent on
the new one, except its exec requests (the exec still waited for is asked
again, with the new stream's numbering); and the old stream stops waiting
for its execs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cursor_byok.loop.commands import CallClient
from cursor_byok.loop.state import IDLE_STATUSES, Status
from cursor_byok.runtime.runner import Runner
from cursor_byok.transport.dialect.meter import history_characters, turn_ended
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.exec_tracker import ExecTracker

if TYPE_CHECKING:
    from cursor_byok.transport.sessions.session import Session


def take_over(session: Session, previous: Session) -> None:
    """`session` (a resume) continues the turn `previous` was playing."""
    context = previous.context
    context.stream_id = session.client_id
    session.context = context
    session.execs = ExecTracker(context.exec_number)
    previous.execs.clear()  # the client canceled them; nothing will come
    previous.kv.clear()  # its unsent KV requests go out on the new stream
    for item in previous.outbox.clear():
        if isinstance(item, pb.AgentServerMessage) and not item.HasField("exec_server_message"):
            session.put(item)


def name_model_call(session: Session) -> None:
    """A resumed stream that knows no model call (the server restarted
    since) names the current one, so its cards are not dropped."""
    context = session.context
    if not context.model_call_id:
        context.model_calls += 1
        context.model_call_id = f"{context.stream_id}:model:{context.model_calls}"


async def resume_turn(
    runner: Runner, session: Session, conversation_id: str, new_turn: bool
) -> None:
    """Pick up the turn in flight: a tool request the old stream carried is
    asked again. A resume with nothing in flight ends at once, so the client
    is never left waiting."""
    state = await runner.state_of(conversation_id)
    if state is not None:
        session.context.characters.update(history_characters(state))
    idle = state is None or state.status in IDLE_STATUSES
    if idle and new_turn:
        return
    if state is None or idle:
        session.put(turn_ended(session.context.usage))
        session.end(conversation_id)
        return
    name_model_call(session)
    if state.status is Status.WAITING_CLIENT and state.waiting is not None:
        # The client lost the exec request with its old stream: ask again
        # (same operation id; asked once per stream).
        waiting = state.waiting
        session.ask(conversation_id, CallClient(waiting.operation_id, waiting.current))
