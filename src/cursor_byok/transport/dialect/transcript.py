"""A transcript a client sends to open a conversation with
(`UserMessageAction.conversation_history`, the path of SDK and third-party
clients): its user, assistant and tool messages as the loop's own.

Nothing in it is refused for its content, and nothing is lost silently:
- an image is typed by its bytes and fitted as an attached one is
  (`llm.image_fit`); base64 that does not decode, or bytes that are no
  image, become a one-line note in its place;
- a tool message whose call id names no earlier tool call is written out as
  text, in the form a repaired history takes (`llm.transform.plain_form`),
  since a provider refuses a tool result without its call;
- reasoning keeps its signature and redacted reasoning its opaque data, so
  the provider that made them can replay them. The assistant messages are
  stamped with a placeholder identity here and with the serving model's
  (`stamped`) before the turn starts: the transcript does not say which model
  wrote it, and the adapters replay signatures only to the model named.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import replace

from cursor_byok.llm.image_fit import attached_image, tool_image
from cursor_byok.llm.partial_json import complete_arguments
from cursor_byok.llm.transform import plain_form
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

UNSTAMPED = "client-transcript"
"""The api and provider of a transcript's assistant message until `stamped`."""

NOT_BASE64 = "[an image in the conversation history was left out: its data is not valid base64]"
EMPTY_RESULT = "(no output)"

Identity = tuple[str, str, str]
"""(api, provider, model) as the serving adapter stamps its own answers."""


def transcript_messages(history: pb.ConversationHistory, now_ms: int) -> tuple[Message, ...]:
    """The transcript as history, in its order; empty messages are left out."""
    out: list[Message] = []
    called: set[str] = set()
    for entry in history.messages:
        match entry.WhichOneof("message"):
            case "user":
                blocks = [_user_block(c, attached_image) for c in entry.user.content]
                content = tuple(b for b in blocks if b is not None)
                match content:
                    case ():
                        pass
                    case (TextContent(text=text),):
                        out.append(UserMessage(text, now_ms))
                    case _:
                        out.append(UserMessage(content, now_ms))
            case "assistant":
                message = _assistant(entry.assistant, now_ms)
                if message is not None:
                    called.update(call.id for call in message.tool_calls)
                    out.append(message)
            case "tool":
                result = _tool_result(entry.tool, now_ms)
                if result.tool_call_id in called:
                    out.append(result)
                elif (plain := plain_form(result)) is not None:
                    out.append(plain)  # a result without its call: as text
    return tuple(out)


def stamped(messages: tuple[Message, ...], identity: Identity | None) -> tuple[Message, ...]:
    """The transcript with its assistant messages named as the serving
    model's (None: no model serves it; they stay unstamped, and their
    reasoning is sent as text, as another model's would be)."""
    if identity is None:
        return messages
    api, provider, model = identity
    return tuple(
        replace(m, api=api, provider=provider, model=model)
        if isinstance(m, AssistantMessage) and m.api == UNSTAMPED
        else m
        for m in messages
    )


def action_transcript(action: pb.ConversationAction, now_ms: int) -> tuple[Message, ...]:
    """The transcript a client opens the conversation with, if it sent one."""
    if not action.HasField("user_message_action"):
        return ()
    return transcript_messages(action.user_message_action.conversation_history, now_ms)


def has_images(action: pb.ConversationAction) -> bool:
    """Whether decoding the action's transcript fits images (work for a worker thread)."""
    for entry in action.user_message_action.conversation_history.messages:
        if entry.HasField("user") and any(c.HasField("image") for c in entry.user.content):
            return True
        if entry.HasField("tool") and any(c.HasField("image") for c in entry.tool.content):
            return True
    return False


def _image_bytes(image: pb.ConversationHistoryImageContent) -> bytes | None:
    """The image's bytes; a data URL's prefix is allowed. None: not base64."""
    data = image.data
    if data.startswith("data:") and "," in data:
        data = data.split(",", 1)[1]
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def _user_block(
    content: pb.ConversationHistoryUserContent | pb.ConversationHistoryToolResultContent,
    image: Callable[[bytes, str], TextContent | ImageContent],
) -> TextContent | ImageContent | None:
    match content.WhichOneof("content"):
        case "text":
            return TextContent(content.text.text) if content.text.text else None
        case "image":
            data = _image_bytes(content.image)
            if data is None:
                return TextContent(NOT_BASE64)
            return image(data, content.image.mime_type)
        case _:
            return None


def _tool_image(data: bytes, _claimed: str) -> TextContent | ImageContent:
    return tool_image(data)


def _tool_result(tool: pb.ConversationHistoryToolMessage, now_ms: int) -> ToolResultMessage:
    blocks = [_user_block(c, _tool_image) for c in tool.content]
    content = tuple(b for b in blocks if b is not None) or (TextContent(EMPTY_RESULT),)
    return ToolResultMessage(tool.tool_call_id, tool.tool_name, content, tool.is_error, now_ms)


def _assistant(
    message: pb.ConversationHistoryAssistantMessage, now_ms: int
) -> AssistantMessage | None:
    blocks: list[AssistantContent] = []
    for content in message.content:
        match content.WhichOneof("content"):
            case "text" if content.text.text:
                blocks.append(TextContent(content.text.text))
            case "reasoning":
                reasoning = content.reasoning
                signature = reasoning.signature if reasoning.HasField("signature") else None
                if reasoning.text or signature:
                    blocks.append(ThinkingContent(reasoning.text, signature or None))
            case "redacted_reasoning" if content.redacted_reasoning.data:
                blocks.append(ThinkingContent("", content.redacted_reasoning.data, redacted=True))
            case "tool_call":
                call = content.tool_call
                arguments = complete_arguments(call.args_json)
                raw = call.args_json if arguments is not None and call.args_json.strip() else None
                blocks.append(ToolCall(call.tool_call_id, call.tool_name, arguments or {}, raw))
    if not blocks:
        return None
    calls = any(isinstance(b, ToolCall) for b in blocks)
    return AssistantMessage(
        tuple(blocks),
        UNSTAMPED,
        UNSTAMPED,
        "",
        stop_reason="toolUse" if calls else "stop",
        timestamp=now_ms,
    )
