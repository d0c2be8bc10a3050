"""Acknowledging a message typed while the turn runs (`user_message_appended`).

The client sends such a message on the live stream with its `message_id`;
unless the server acknowledges that id, the client sends the message again
as a new run once the stream ends. The loop keeps the id with the queued
message in the committed state and names it when the message enters
history (`QueuedEntered`), so the acknowledgement survives a restart: it is
the message as the client sent it when this process still has it, else one
rebuilt from its id and text.
"""

from __future__ import annotations

from cursor_byok.llm.types import TextContent, UserMessage
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def user_messages_appended(
    typed: list[pb.UserMessage], entered: tuple[tuple[str, UserMessage], ...]
) -> list[pb.AgentServerMessage]:
    """One `user_message_appended` per message now in history, in order;
    `typed` (the messages as this stream received them) loses the ones
    acknowledged."""
    appended = []
    for message_id, message in entered:
        original = next((t for t in typed if t.message_id == message_id), None)
        if original is None:
            original = pb.UserMessage(text=_text_of(message), message_id=message_id)
        else:
            typed.remove(original)
        update = pb.InteractionUpdate()
        update.user_message_appended.user_message.CopyFrom(original)
        appended.append(pb.AgentServerMessage(interaction_update=update))
    return appended


def _text_of(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(block.text for block in message.content if isinstance(block, TextContent))
