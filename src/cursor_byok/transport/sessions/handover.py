"""A stream that takes a conversation over from another one.

The official CLI resumes a turn on a new request id when it could not
write an exec's output to the old stream: it cancels that exec on the old
request id (no result or `stream_close` ever comes there) and sends the
latest checkpoint with an empty `resume_action`. The new stream then plays
the rest of the turn: the old stream's protocol state (the current model
call's id, the turn's blobs and usage, messages typed during the turn not
yet acknowledged) moves over, so cards keep the model call id the client
groups them by; what the old stream had queued but nobody read is sent on
the new one, except its exec requests.

The old stream's tool calls (`settle_execs`, also when a new run replaces
a stream): one whose request never left the old stream, or that only reads,
is asked again on the new one; any other may have run, or be running, and
is never asked twice: it gets its result from what arrived (`tool_runs`),
while the old stream still takes the output that comes late for it. A tool
the server runs itself stops on the old stream and runs again on the new
one (nothing it did is committed before its result is).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from cursor_byok.loop.commands import CallClient
from cursor_byok.loop.state import IDLE_STATUSES, Status
from cursor_byok.runtime.runner import Runner
from cursor_byok.transport.dialect.interrupted import repeatable
from cursor_byok.transport.dialect.meter import history_characters, turn_ended
from cursor_byok.transport.dialect.run_request import RunStarted
from cursor_byok.transport.dialect.todo_tool import item_to_pb
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.exec_tracker import ExecTracker, PendingExec

if TYPE_CHECKING:
    from cursor_byok.transport.sessions.session import Session


def take_over(session: Session, previous: Session) -> set[str]:
    """`session` (a resume) continues the turn `previous` was playing.
    Returns the exec ids of the requests the old stream never sent."""
    context = previous.context
    context.stream_id = session.client_id
    session.context = context
    session.execs = ExecTracker(context.exec_number)
    previous.kv.clear()  # its unsent KV requests go out on the new stream
    previous.server_runs.cancel_all()  # asked again here, where the client listens
    unsent: set[str] = set()
    for item in previous.outbox.clear():
        if not isinstance(item, pb.AgentServerMessage):
            continue
        if item.HasField("exec_server_message"):
            unsent.add(item.exec_server_message.exec_id)
        elif item.HasField("exec_server_control_message"):
            continue  # an abort of the old stream's exec: a child it ran goes on
        elif not item.HasField("interaction_query"):  # its run asks again here
            session.put(item)
    return unsent


def settle_execs(
    session: Session, previous: Session, unsent: set[str] | None = None
) -> list[PendingExec]:
    """What becomes of the tool calls `previous` asked: the ones to ask again
    leave it (and may be asked on `session`); the ones returned may have run,
    and stay with `previous`, which takes their late output."""
    execs = session.execs
    execs.interrupted |= previous.execs.interrupted
    cut_off = []
    for pending in previous.execs.pending():
        if pending.exec_id in (unsent or ()) or repeatable(pending.tool.name):
            previous.execs.forget(pending)
            execs.safe.add(pending.operation_id)
        else:
            execs.interrupted.add(pending.operation_id)
            cut_off.append(pending)
    return cut_off


def begin_turn(session: Session, event: RunStarted, window: int) -> None:
    """`session` plays a turn from its start (or resumes one no stream
    plays here): its blobs begin with the checkpoint the client sent, whose
    to-do list it names until `resume_turn` reads the committed one."""
    context = session.context
    context.turn.begin(event.user_message, event.prior_turns, session.client_id)
    context.turn.carry_todos(event.prior_todos)
    context.turn.subagents.update(event.prior_subagents)
    context.turn.carry_state(event.prior_plan, event.prior_answered)
    context.context_window = window
    context.characters.update(event.characters)
    context.mode = event.mode
    if event.project_folder:
        context.project_folder = event.project_folder


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
    asked again only when that is harmless (see above); one nobody in this
    process asked (a restart, another process) may have run. A resume with
    nothing in flight ends at once, so the client is never left waiting."""
    named = session.context.turn.todo_lists
    state = await runner.state_of(conversation_id)
    if state is not None:
        session.context.characters.update(history_characters(state))
        if session.context.turn.todo_lists == named:  # no newer list came meanwhile
            # The committed list is the one checkpoints name (the client's may be older).
            session.context.turn.set_todos(map(item_to_pb, state.todos))
    idle = state is None or state.status in IDLE_STATUSES
    if idle and new_turn:
        return
    if state is None or idle:
        session.put(turn_ended(session.context.usage))
        session.end(conversation_id)
        return
    name_model_call(session)
    if state.status is Status.WAITING_CLIENT and state.waiting is not None:
        waiting = state.waiting
        command = CallClient(waiting.operation_id, waiting.current)
        if session.execs.asked(command.operation_id):
            return
        known = waiting.operation_id in session.execs.safe
        if not known and not repeatable(waiting.current.name):
            command = replace(command, again=True)  # asked elsewhere: it may have run
        session.ask(conversation_id, command)
