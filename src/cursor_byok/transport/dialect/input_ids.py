"""Input ids from what a client message is, not from where it arrived.

A request id's seqno starts over at 0 when the client reconnects to a
restarted server with the same request id, so request id + seqno can name
a different message than the one committed under it before: a new tool
result would be taken for a duplicate and dropped, and the turn would wait
forever. So each input is named by its content: a tool result by its
operation (one result per tool call, whichever stream carried it), a user
message by its `message_id`, a run request by the request id and a digest
of its action. The store's duplicate check then means "this very message
was taken before", which is what it is for.
"""

from __future__ import annotations

import hashlib

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

DIGEST_CHARS = 16


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


def tool_result_id(operation_id: str) -> str:
    """One result per tool call: a second one (an exec asked again on a new
    stream, or replayed after a restart) is the duplicate it is."""
    return f"tool:{operation_id}"


def progress_id(operation_id: str, request_id: str, piece: int) -> str:
    """A piece of a running tool call's output: the `piece`-th that this
    request id carried for the operation (each is taken once)."""
    return f"{tool_result_id(operation_id)}:out:{request_id}:{piece}"


def user_message_id(message: pb.UserMessage) -> str | None:
    """The client's own id of a typed message, the same on every resend
    (with a digest of the message: some clients reuse one id for all)."""
    if not message.message_id:
        return None
    return f"message:{message.message_id}:{digest(message.SerializeToString(deterministic=True))}"


def run_id(request_id: str, run: pb.AgentRunRequest) -> str:
    """A run request by the message that opens it, or else by its action
    (not the checkpoint it carries, which changes from one send to the next)."""
    action = run.action
    branch = action.WhichOneof("action")
    if branch in ("user_message_action", "start_plan_action"):
        named = user_message_id(getattr(action, branch).user_message)
        if named is not None:
            return named
    return f"run:{request_id}:{digest(action.SerializeToString(deterministic=True))}"


def message_id_of(request_id: str, payload: bytes) -> str:
    """Any other input (a cancel): the request id and the message's bytes."""
    return f"{request_id}:{digest(payload)}"
