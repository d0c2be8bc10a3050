"""What a client sends on a run's stream, decoded into the events the
session acts on: the run request, exec results, KV and query answers, a
cancel, a message typed during the turn. Decode only; `dialect` encodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from cursor_byok.llm.types import UserMessage
from cursor_byok.transport.dialect.clients import UNKNOWN_CLIENT, ClientHeaders
from cursor_byok.transport.dialect.input_ids import answered_later_id
from cursor_byok.transport.dialect.question_tool import answered_later
from cursor_byok.transport.dialect.run_request import (
    Refused,
    RunStarted,
    decode_run_request,
    user_content,
)
from cursor_byok.transport.dialect.tool_base import Tool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


@dataclass(frozen=True, slots=True)
class ExecReply:
    """One exec message from the client (a result, or a piece of a shell stream)."""

    number: int
    exec_id: str
    message: pb.ExecClientMessage


@dataclass(frozen=True, slots=True)
class ExecThrown:
    """The client declined or failed an exec (`exec_client_control_message.throw`)."""

    number: int
    error: str


@dataclass(frozen=True, slots=True)
class CancelRequested:
    reason: str
    subagent_id: str = ""
    """Set: only that subagent is to stop (`cancel_subagent_action`), not the turn."""


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A user message typed while the turn is running; `original` is what
    the client sent (its `message_id` is acknowledged when the message
    enters history)."""

    message: UserMessage
    original: pb.UserMessage
    input_id: str = ""
    """Its input id when the server names it (an answer given later: taken
    once, on the live stream or as a run of its own)."""
    answers: str = ""
    """The question tool call whose answers it brings (one given later)."""


@dataclass(frozen=True, slots=True)
class ContextArrived:
    """The client's answer to `request_context_args` (None: it had none to give)."""

    number: int
    context: pb.RequestContext | None


@dataclass(frozen=True, slots=True)
class BlobArrived:
    """The client's answer to `get_blob_args` (None: it does not have the
    blob); a KV answer too, which the stream's end waits for."""

    number: int
    data: bytes | None


@dataclass(frozen=True, slots=True)
class KvAnswered:
    """The client's answer to a KV request (`kv_client_message`): it stored
    the blob, or sent one back; the stream's end waits for these."""

    number: int


@dataclass(frozen=True, slots=True)
class QueryAnswered:
    """The client's answer to an interaction query (`interaction_response`)."""

    number: int
    response: pb.InteractionResponse


@dataclass(frozen=True, slots=True)
class Ignored:
    """Understood, and needs nothing (heartbeats, stream closes)."""

    what: str


ClientEvent: TypeAlias = (
    RunStarted
    | Refused
    | ExecReply
    | ContextArrived
    | BlobArrived
    | ExecThrown
    | CancelRequested
    | FollowUp
    | KvAnswered
    | QueryAnswered
    | Ignored
)


def decode_client_message(
    message: pb.AgentClientMessage,
    request_id: str,
    now_ms: int,
    client: ClientHeaders = UNKNOWN_CLIENT,
    extra: Sequence[Tool] = (),
) -> ClientEvent:
    """`client`: who the request's headers say sent it (for a run request);
    `extra`: the tools the server's configuration adds."""
    kind = message.WhichOneof("message")
    match kind:
        case "run_request":
            return decode_run_request(
                message.run_request, request_id, now_ms, client=client, extra=extra
            )
        case "interaction_response":
            response = message.interaction_response
            return QueryAnswered(response.id, response)
        case "exec_client_message":
            reply = message.exec_client_message
            if reply.WhichOneof("message") == "request_context_result":
                result = reply.request_context_result
                context = result.success.request_context if result.HasField("success") else None
                return ContextArrived(reply.id, context)
            return ExecReply(reply.id, reply.exec_id, reply)
        case "exec_client_control_message":
            control = message.exec_client_control_message
            if control.WhichOneof("message") == "throw":
                error = control.throw.error or "the client declined the tool call"
                return ExecThrown(control.throw.id, error)
            return Ignored(f"exec control {control.WhichOneof('message')}")
        case "kv_client_message":
            kv = message.kv_client_message
            if kv.WhichOneof("message") != "get_blob_result":
                return KvAnswered(kv.id)
            found = kv.get_blob_result
            return BlobArrived(kv.id, found.blob_data if found.HasField("blob_data") else None)
        case "conversation_action":
            action = message.conversation_action
            branch = action.WhichOneof("action")
            if branch == "cancel_action":
                return CancelRequested(action.cancel_action.reason or "canceled by the user")
            if branch == "cancel_subagent_action":
                agent = action.cancel_subagent_action.subagent_id
                return CancelRequested("the user stopped the subagent", agent or "?")
            if branch == "async_ask_question_completion_action":
                done = action.async_ask_question_completion_action
                text = answered_later(done)
                named = answered_later_id(done.original_tool_call_id)
                user = UserMessage(text, now_ms)
                return FollowUp(user, pb.UserMessage(text=text), named, done.original_tool_call_id)
            if branch == "user_message_action":
                typed = action.user_message_action.user_message
                # Images by blob id alone are not fetched mid-turn: a note stands in.
                return FollowUp(UserMessage(user_content(typed, {}), now_ms), typed)
            return Ignored(f"conversation action {branch}")
        case None:
            return Ignored("empty client message")
        case _:
            return Ignored(kind)
