"""How `cursor-byok show` writes subagents: each one's conversation under
the Task call that started it, indented, and, for a subagent's own
conversation, whose it is.

A Task result names its subagent by agent id (`Agent ID: <id>`, the id of
the subagent's conversation); the subagent's conversation records its
parent (`loop.state.SubagentOf`). Subagents are one level deep, so a child
is shown once, without children of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from cursor_byok.cli.history_lines import message_lines
from cursor_byok.llm.types import Message, TextContent, ToolResultMessage
from cursor_byok.loop.state import ConversationState
from cursor_byok.runtime.logsafe import printable
from cursor_byok.store.owners import client_id_of

AGENT_ID = re.compile(r"Agent ID: ([A-Za-z0-9_.:~-]{1,200})")
INDENT = "        "


def agent_of(message: Message) -> str | None:
    """The subagent a Task call's result names, if it names one."""
    if not isinstance(message, ToolResultMessage) or message.tool_name != "Task":
        return None
    content = message.content
    text = content if isinstance(content, str) else ""
    if not isinstance(content, str):
        text = " ".join(block.text for block in content if isinstance(block, TextContent))
    found = AGENT_ID.search(text)
    return found.group(1) if found else None


def subagent_lines(
    message: Message, load: Callable[[str], ConversationState | None]
) -> Iterator[str]:
    """Under a Task call's result: its subagent's conversation, indented
    (`load`: a conversation by the id the client knows it by)."""
    agent = agent_of(message)
    if agent is None:
        return
    state = load(agent)
    if state is None:
        yield f"             subagent {printable(agent)} (its conversation is not stored here)"
        return
    model = printable(state.settings.model)
    count = len(state.messages)
    status = state.status.value
    yield f"             subagent {printable(agent)} ({status}): {count} messages, model {model}"
    for child in state.messages:
        for line in message_lines(child):
            yield INDENT + line


def parent_line(state: ConversationState) -> str | None:
    """Whose subagent the conversation is, or None."""
    parent = state.settings.parent
    if parent is None:
        return None
    whose = client_id_of(parent.conversation_id) if parent.conversation_id else None
    named = printable(whose) if whose else f"request {printable(parent.request_id)}"
    return f"  subagent of {named} (Task call {printable(parent.tool_call_id)})"
