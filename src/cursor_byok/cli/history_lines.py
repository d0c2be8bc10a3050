"""How `cursor-byok show` writes a conversation's history: one line per
message, and one more per image it carries (attached by the user or
returned by a tool), named by its id, the SHA-256 of its bytes (the name the
store keeps it under and the client's blob id), with its type and size;
what came of a question to the user, a mode switch or a plan (the answers,
as the model read them); and the conversation's to-do list, one line an
item. A web search names its term and a fetch its URL, and each result says
what came of it."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator

from cursor_byok.llm.provider_search import ProviderSearch, searches
from cursor_byok.llm.types import (
    AssistantMessage,
    HistoryRepair,
    ImageContent,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.loop.compaction import summary_of
from cursor_byok.loop.todos import FINISHED, TodoItem
from cursor_byok.runtime.logsafe import printable
from cursor_byok.transport.dialect.question_tool import ANSWERED_LATER, SKIPPED_LATER

ASKED_THE_USER = frozenset({"AskQuestion", "SwitchMode", "CreatePlan"})
"""Tools whose result is the user's word: shown whole under the result's line."""


def message_lines(message: Message) -> Iterator[str]:
    """The message's line, then a line for each image it carries (and what
    the user answered, for a tool that asked them)."""
    yield _one_line(message)
    if isinstance(message, UserMessage | ToolResultMessage) and _users_word(message):
        for line in _text(message.content).splitlines()[:40]:
            if line.strip():
                indent = " " * min(
                    8, len(line) - len(line.lstrip())
                )  # an answer under its question
                yield f"             {indent}{_short(line, 90)}"
    content = message.content if isinstance(message, UserMessage | ToolResultMessage) else ""
    for block in content if not isinstance(content, str) else ():
        if isinstance(block, ImageContent):
            yield f"             {image_line(block)}"


def _users_word(message: UserMessage | ToolResultMessage) -> bool:
    """Whether the message is the user's answer to the model (a question, a
    mode switch, a plan; or answers given later, which come as a message)."""
    if isinstance(message, ToolResultMessage):
        return message.tool_name in ASKED_THE_USER
    text = _text(message.content)
    return text.startswith((ANSWERED_LATER, SKIPPED_LATER)) and "\n" in text


def todo_lines(todos: tuple[TodoItem, ...]) -> Iterator[str]:
    """The to-do list as the model keeps it, in its order (nothing without one)."""
    if not todos:
        return
    finished = sum(item.status in FINISHED for item in todos)
    yield f"to-dos: {len(todos)} ({finished} finished)"
    for item in todos:
        tag = f"[{item.status.value}]"
        yield f"  {tag:<14} {_short(item.content)}  (id: {printable(item.id)})"


def image_line(image: ImageContent) -> str:
    data = base64.b64decode(image.data)
    digest = hashlib.sha256(data).hexdigest()
    return f"image {digest}  {printable(image.mime_type)}  {_size(len(data))}"


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _one_line(message: Message) -> str:
    match message:
        case UserMessage(content=content):
            summary = summary_of(message)
            if summary is not None:
                return f"  summary    {_short(summary)}"
            return f"  user       {_short(_text(content))}"
        case AssistantMessage():
            searched = [
                f'web search "{_short(s.query, 60)}" by the provider: {_found(s)}'
                for s in searches(message.content)
            ]
            calls = ", ".join([*searched, *(_call(call) for call in message.tool_calls)])
            suffix = f"  -> {calls}" if calls else ""
            mark = ", interrupted" if message.interrupted else ""
            return f"  assistant  {_short(message.text)}{suffix}  [{message.stop_reason}{mark}]"
        case ToolResultMessage():
            flag = " (error)" if message.is_error else ""
            said = _web_result(message)
            return f"  tool       {message.tool_name}{flag}{said}"
        case HistoryRepair(reason=reason):
            return f"  repair     earlier history resent as plain text: {_short(reason)}"


def _found(search: ProviderSearch) -> str:
    """What a provider's search came to, in a few words."""
    if search.error is not None:
        return f"failed ({_short(search.error, 40)})"
    found = len(search.references)
    return f"{found} result{'s' if found != 1 else ''}"


WEB_ARGUMENTS = {"WebSearch": ("search_term", "query", "searchTerm"), "WebFetch": ("url",)}
"""What a web call is shown by: the term searched, the URL fetched."""


def _call(call: ToolCall) -> str:
    for key in WEB_ARGUMENTS.get(call.name, ()):
        value = call.arguments.get(key)
        if isinstance(value, str) and value.strip():
            return f'{call.name} "{_short(value, 60)}"'
    return call.name


def _web_result(message: ToolResultMessage) -> str:
    """What a web search or fetch came to, in a few words (else nothing)."""
    if message.tool_name not in WEB_ARGUMENTS:
        return ""
    text = _text(message.content)
    if message.is_error:
        return f": {_short(text, 60)}"
    if message.tool_name == "WebSearch":
        found = 0 if text.startswith("The search found nothing") else text.count("\n---\n") + 1
        return f": {found} result{'s' if found != 1 else ''}"
    first, _, rest = text.partition("\n")
    url = _short(first.removeprefix("# Content from "), 60)
    return f": {url} ({len(rest.strip()):,} characters)"


def _text(content: str | tuple[TextContent | ImageContent, ...]) -> str:
    if isinstance(content, str):
        return content
    return " ".join(block.text for block in content if isinstance(block, TextContent))


def _short(text: str, width: int = 70) -> str:
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= width else flat[: width - 1] + "…"
