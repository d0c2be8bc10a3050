"""The conversations page (newest first, a page at a time, by user and
model) and one conversation's timeline: its messages, tool calls and
results, and its model calls with their tokens and cost, read from the
store the way `cursor-byok show` reads them. Run in a worker thread."""

from __future__ import annotations

import json
from html import escape
from urllib.parse import quote, urlencode

from cursor_byok.llm.types import (
    AssistantMessage,
    HistoryRepair,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.store.base import ConversationSummary, Store, User
from cursor_byok.store.conversation_pages import PageKey
from cursor_byok.store.owners import client_id_of, owner_of, scoped
from cursor_byok.transport.http.dashboard.layout import when

PAGE_SIZE = 50
SHOWN_CHARS = 4000
"""How much of one message's text the timeline shows."""


def conversations_page(
    store: Store, viewer: User, user_name: str, model: str, before: PageKey | None
) -> str:
    """A page of conversations, newest first, from just after `before`: the
    viewer's own, or for the administrator everyone's (or `user_name`'s),
    with a call to `model` when one is given."""
    names = {user.id: user.name for user in store.users()} if viewer.is_admin else {}
    owners = [viewer.id]
    if viewer.is_admin:
        owners = [i for i, n in names.items() if n == user_name] if user_name else list(names)
    found = store.conversation_page(owners, PAGE_SIZE + 1, before, model or None)
    shown, more = found[:PAGE_SIZE], len(found) > PAGE_SIZE
    rows = "".join(_row(summary, viewer, names) for summary in shown)
    user_field = (
        f'<label>User <input name="user" value="{escape(user_name)}"></label> '
        if viewer.is_admin
        else ""
    )
    links = []
    if before is not None:
        links.append(_link("Newest", user_name, model, None))
    if more:
        last = shown[-1]
        links.append(_link("Older", user_name, model, (last.updated_at_ms, last.conversation_id)))
    empty = "" if shown else '<p class="empty">No conversations here.</p>'
    owner_head = "<th>User</th>" if viewer.is_admin else ""
    return (
        f'<form method="get" action="/ui/conversations">{user_field}'
        f'<label>Model <input name="model" value="{escape(model)}"></label> '
        '<button type="submit">Filter</button></form>'
        f"<table><tr><th>Conversation</th>{owner_head}<th>Status</th>"
        f"<th class=n>Messages</th><th>Updated (UTC)</th></tr>{rows}</table>{empty}"
        f"<p>{' '.join(links)}</p>"
    )


def page_key(text: str) -> PageKey | None:
    """The `before` of a page link (`<updated_at_ms>:<conversation key>`)."""
    ms, _, key = text.partition(":")
    return (int(ms), key) if ms.isdigit() and key else None


def timeline(store: Store, viewer: User, ident: str) -> str | None:
    """One conversation, or None when the viewer has none by that id: a
    user's id is read in their own namespace (another's is simply missing),
    the administrator's is the stored key."""
    key = ident if viewer.is_admin else scoped(viewer.id, ident)
    loaded = store.load(key)
    if loaded is None:
        return None
    state = loaded.state
    owner = store.user_by_id(owner_of(key)) if viewer.is_admin else None
    whose = "" if owner is None else f"User {escape(owner.name)}. "
    parts = [
        f"<p>{whose}Status {escape(state.status.value)}, {len(state.messages)} messages, "
        f"version {loaded.version}.</p><h2>Messages</h2>"
    ]
    resets = set(state.resets)
    for index, message in enumerate(state.messages):
        if index in resets:
            parts.append("<p class=meta>--- requests start here (a summary) ---</p>")
        parts.append(_message(message))
    parts.append(
        "<h2>Model calls</h2><table><tr><th>Call</th><th>Model</th><th>Status</th>"
        "<th class=n>Messages sent</th><th class=n>Attempts</th><th>Error</th></tr>"
    )
    for call in store.llm_calls(key):
        parts.append(
            f"<tr><td>{escape(call.call_id)}</td><td>{escape(call.model)}</td>"
            f"<td>{escape(call.status.value)}</td><td class=n>{call.message_count}</td>"
            f"<td class=n>{call.attempts}</td><td class=error>{escape(call.error or '')}</td></tr>"
        )
    parts.append(
        "</table><p class=meta>Each answer's tokens and cost are shown with it above; "
        "time to first token and duration are kept per user, model and day "
        "(the overview and <code>cursor-byok usage</code>).</p>"
    )
    return "".join(parts)


def _row(summary: ConversationSummary, viewer: User, names: dict[int, str]) -> str:
    ident = summary.conversation_id if viewer.is_admin else client_id_of(summary.conversation_id)
    owner = ""
    if viewer.is_admin:
        owner = f"<td>{escape(names.get(owner_of(summary.conversation_id), '?'))}</td>"
    return (
        f'<tr><td><a href="/ui/conversations/{quote(ident, safe="")}">'
        f"{escape(client_id_of(summary.conversation_id))}</a></td>{owner}"
        f"<td>{escape(summary.status)}</td><td class=n>{summary.message_count}</td>"
        f"<td>{when(summary.updated_at_ms)}</td></tr>"
    )


def _link(label: str, user_name: str, model: str, before: PageKey | None) -> str:
    options = {"user": user_name, "model": model}
    if before is not None:
        options["before"] = f"{before[0]}:{before[1]}"
    return f'<a href="/ui/conversations?{escape(urlencode(options))}">{label}</a>'


def _message(message: Message) -> str:
    if isinstance(message, UserMessage):
        sent = when(message.timestamp)
        return f"<h3>User <span class=meta>{sent}</span></h3>{_content(message.content)}"
    if isinstance(message, ToolResultMessage):
        failed = " <span class=error>failed</span>" if message.is_error else ""
        return (
            f"<h3 class=tool>Result of {escape(message.tool_name)}{failed}</h3>"
            f"{_content(message.content)}"
        )
    if isinstance(message, HistoryRepair):
        return f"<p class=meta>History repaired: {escape(message.reason)}</p>"
    return _answer(message)


def _answer(message: AssistantMessage) -> str:
    usage = message.usage
    cost = f"${usage.cost.total:,.4f}" if usage.cost.priced else "cost unknown"
    parts = [
        f"<h3>Assistant <span class=meta>{escape(message.model)}, {when(message.timestamp)}: "
        f"input {usage.input:,}, output {usage.output:,}, cache read {usage.cache_read:,}, "
        f"cache write {usage.cache_write:,}, {cost}, stop {escape(message.stop_reason)}"
        "</span></h3>"
    ]
    if message.error_message:
        parts.append(f"<p class=error>{escape(message.error_message)}</p>")
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append(_text(block.text))
        elif isinstance(block, ThinkingContent):
            parts.append(f"<details><summary>Thinking</summary>{_text(block.thinking)}</details>")
        elif isinstance(block, ToolCall):
            arguments = json.dumps(block.arguments, ensure_ascii=False, indent=1)
            parts.append(f"<p class=tool>Tool call {escape(block.name)}</p>{_text(arguments)}")
    return "".join(parts)


def _content(content: str | tuple[TextContent | ImageContent, ...]) -> str:
    if isinstance(content, str):
        return _text(content)
    return "".join(
        _text(block.text)
        if isinstance(block, TextContent)
        else f"<p class=meta>[image {escape(block.mime_type)}]</p>"
        for block in content
    )


def _text(text: str) -> str:
    cut = text[:SHOWN_CHARS] + ("\n[...]" if len(text) > SHOWN_CHARS else "")
    return f"<pre>{escape(cut)}</pre>"
