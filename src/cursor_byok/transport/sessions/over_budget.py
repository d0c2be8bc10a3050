"""A tool's result that could not be held: that tool call fails, not the turn.

Appends arrive out of order and wait in the inbox for the ones before them;
what waits is charged to the memory budget. When a tool's result (an
`exec_client_message`) is too big to wait, the turn need not end: in its
place the inbox keeps a small `throw` for the same exec, applied in the
result's turn, so the model gets an error result for that one call (saying
the result was over the memory budget) and the turn goes on. Any other
append that cannot wait (a user message, bytes that do not decode) has no
tool call to fail; the hub ends the turn as before.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from cursor_byok.transport.connect.codec import Codec, CodecError, decode_message
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

if TYPE_CHECKING:
    from cursor_byok.transport.sessions.session import Session

log = logging.getLogger(__name__)


def fail_the_tool(session: Session, seqno: int, payload: bytes, refused: str) -> bool:
    """A tool's result too big to wait in the inbox: a small error stands
    in its place, so that tool call fails and the turn goes on. False
    when the append is no tool's result."""
    stand_in = failed_in_place(seqno, payload, refused)
    if stand_in is None or seqno not in session.inbox.pending:
        return False
    session.inbox.replace(seqno, stand_in)
    log.warning(
        "request %s: append %d, a tool's result, was over the memory budget (%s); "
        "that tool call fails",
        session.request_id,
        seqno,
        refused,
    )
    return True


def failed_in_place(seqno: int, payload: bytes, refused: str) -> bytes | None:
    """The small message that stands in the inbox for the tool result
    `payload`, which there was no room for; None when it is no tool result."""
    try:
        message = decode_message(payload, pb.AgentClientMessage, Codec.PROTO)
    except CodecError:
        return None
    if not message.HasField("exec_client_message"):
        return None
    number = message.exec_client_message.id
    error = (
        f"The tool's result ({len(payload)} bytes, append {seqno}) was over the server's "
        f"memory budget and was not kept: {refused}. Ask for less (a range, a filter)."
    )
    throw = pb.ExecClientThrow(id=number, error=error)
    control = pb.ExecClientControlMessage(throw=throw)
    return pb.AgentClientMessage(exec_client_control_message=control).SerializeToString()
