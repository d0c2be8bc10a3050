"""JSON form of the loop's committed state and commands, for storage.

Messages are not part of the state document: the store keeps them
append-only, one row each, so a commit never rewrites history. Everything
else a restarted process needs to continue (settings, the waiting tool calls,
queued user messages, call and turn counters) is here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from cursor_byok.llm.serialize import (
    DecodeError,
    content_from_json,
    content_to_json,
    message_from_json,
    message_to_json,
    tool_definition_from_json,
    tool_definition_to_json,
)
from cursor_byok.llm.types import JSONValue, Message, ToolCall, UserMessage
from cursor_byok.loop.commands import (
    CallClient,
    CallLLM,
    Canceled,
    Command,
    Failed,
    Final,
    Ignored,
    StopCall,
    WaitInput,
)
from cursor_byok.loop.state import (
    DEFAULT_MAX_MODEL_CALLS,
    Compaction,
    ConversationState,
    Status,
    SubagentOf,
    TurnSettings,
    WaitingClient,
)
from cursor_byok.loop.todos import todo_from_json, todo_to_json


def _tool_call_from_json(doc: Any) -> ToolCall:
    block = content_from_json(doc)
    if not isinstance(block, ToolCall):
        raise DecodeError("expected a tool call")
    return block


def _user_message_from_json(doc: Any) -> UserMessage:
    message = message_from_json(doc)
    if not isinstance(message, UserMessage):
        raise DecodeError("expected a user message")
    return message


def settings_to_json(settings: TurnSettings) -> dict[str, JSONValue]:
    return {
        **settings_fields(settings),
        "tools": [tool_definition_to_json(t) for t in settings.tools],
    }


def settings_fields(settings: TurnSettings) -> dict[str, JSONValue]:
    """The settings document but its tools."""
    return {
        "model": settings.model,
        "systemPrompt": settings.system_prompt,
        "maxModelCalls": settings.max_model_calls,
        "contextWindow": settings.context_window,
        "compactShare": settings.compact_share,
        **({"parent": _parent_to_json(settings.parent)} if settings.parent else {}),
    }


def _parent_to_json(parent: SubagentOf) -> dict[str, JSONValue]:
    return {
        "conversationId": parent.conversation_id,
        "toolCallId": parent.tool_call_id,
        "requestId": parent.request_id,
    }


def _parent_from_json(doc: Mapping[str, Any] | None) -> SubagentOf | None:
    if doc is None:
        return None
    return SubagentOf(doc["conversationId"], doc["toolCallId"], doc.get("requestId", ""))


def _waiting_to_json(waiting: WaitingClient) -> dict[str, JSONValue]:
    doc: dict[str, JSONValue] = {
        "toolCalls": [content_to_json(c) for c in waiting.tool_calls],
        "next": waiting.next,
        "operationId": waiting.operation_id,
    }
    if waiting.output:  # absent when empty: documents stay as they were
        doc["output"] = waiting.output
    return doc


def state_fields(state: ConversationState) -> dict[str, JSONValue]:
    """The state document but its settings."""
    waiting = state.waiting
    fields: dict[str, JSONValue] = {
        "conversationId": state.conversation_id,
        "turnSeq": state.turn_seq,
        "messageCount": len(state.messages),
        "messagesHash": state.messages_hash,
        "status": state.status.value,
        "callSeq": state.call_seq,
        "turnCalls": state.turn_calls,
        "callId": state.call_id,
        "waiting": None if waiting is None else _waiting_to_json(waiting),
        "queued": [message_to_json(m) for m in state.queued],
        "lastError": state.last_error,
        "resets": list(state.resets),
        "interruptedCall": state.interrupted_call,
        "compaction": None
        if state.compaction is None
        else {"requested": state.compaction.requested},
        # Only when there is a list: states without one store what they always did.
        **({"todos": [todo_to_json(t) for t in state.todos]} if state.todos else {}),
    }
    if state.queued_refs:  # absent when empty, as in documents stored before
        fields["queuedRefs"] = [[ref, index] for ref, index in state.queued_refs]
    return fields


def state_to_json(state: ConversationState) -> dict[str, JSONValue]:
    """The state without its messages (they are stored one row each)."""
    return {**state_fields(state), "settings": settings_to_json(state.settings)}


def state_from_json(doc: Mapping[str, Any], messages: Sequence[Message]) -> ConversationState:
    try:
        settings = doc["settings"]
        waiting = doc["waiting"]
        state = ConversationState(
            conversation_id=doc["conversationId"],
            turn_seq=int(doc["turnSeq"]),
            messages=messages,
            messages_hash=doc["messagesHash"],
            status=Status(doc["status"]),
            settings=TurnSettings(
                model=settings["model"],
                system_prompt=settings["systemPrompt"],
                tools=tuple(tool_definition_from_json(t) for t in settings["tools"]),
                # Absent in states stored before the limit was the loop's.
                max_model_calls=int(settings.get("maxModelCalls", DEFAULT_MAX_MODEL_CALLS)),
                context_window=settings.get("contextWindow"),
                compact_share=float(settings.get("compactShare", 0.9)),
                parent=_parent_from_json(settings.get("parent")),
            ),
            call_seq=int(doc["callSeq"]),
            turn_calls=int(doc.get("turnCalls", 0)),
            call_id=doc["callId"],
            waiting=None
            if waiting is None
            else WaitingClient(
                tool_calls=tuple(_tool_call_from_json(c) for c in waiting["toolCalls"]),
                next=int(waiting["next"]),
                operation_id=waiting["operationId"],
                output=str(waiting.get("output", "")),
            ),
            queued=tuple(_user_message_from_json(m) for m in doc["queued"]),
            queued_refs=tuple((str(r), int(i)) for r, i in doc.get("queuedRefs", ())),
            last_error=doc["lastError"],
            resets=tuple(int(i) for i in doc.get("resets", ())),
            interrupted_call=doc.get("interruptedCall"),
            compaction=None
            if doc.get("compaction") is None
            else Compaction(requested=bool(doc["compaction"]["requested"])),
            # Absent in states stored before conversations had a to-do list.
            todos=tuple(todo_from_json(t) for t in doc.get("todos", ())),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise DecodeError(f"invalid stored conversation state: {error}") from error
    if int(doc["messageCount"]) != len(messages):
        raise DecodeError(
            f"stored state expects {doc['messageCount']} messages, found {len(messages)}"
        )
    return state


def command_to_json(command: Command) -> dict[str, JSONValue]:
    """A record of what a committed input led to (returned for duplicates)."""
    match command:
        case CallLLM(call_id=call_id, model=model, request=request, messages_hash=mh):
            return {
                "command": "CallLLM",
                "callId": call_id,
                "model": model,
                "messagesHash": mh,
                "messageCount": len(request.messages),
            }
        case CallClient(operation_id=operation_id, tool_call=tool_call):
            return {
                "command": "CallClient",
                "operationId": operation_id,
                "toolCall": content_to_json(tool_call),
            }
        case Final(message=message):
            return {"command": "Final", "message": message_to_json(message)}
        case Failed(message=message):
            return {"command": "Failed", "message": message_to_json(message)}
        case Canceled(reason=reason):
            return {"command": "Canceled", "reason": reason}
        case StopCall(call_id=call_id):
            return {"command": "StopCall", "callId": call_id}
        case WaitInput():
            return {"command": "WaitInput"}
        case Ignored(reason=reason):
            return {"command": "Ignored", "reason": reason}
        case _:
            assert_never(command)
