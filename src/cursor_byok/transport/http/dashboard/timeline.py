"""One conversation's timeline, in the order things happened: its messages,
the tool calls in its answers and their results, each model call (every
attempt, with its time to first token, duration, tokens and cost) just
before the answer it brought, and the steps the loop recorded: a history
repair (a `HistoryRepair` message) and a compaction (a reset: requests
start from its summary on). Read from the store the way `cursor-byok show`
reads it, in a worker thread, a page of `PAGE_MESSAGES` at a time (read
alone: `store.timeline_reads`), so a long conversation's page costs what a
short one's does.

Forks (branches a rewind made of a conversation) are entries at the
history index where they branched off; subagents (child conversations)
join through the same hook, `forks_and_subagents`."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import quote

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
from cursor_byok.store.base import Store, User
from cursor_byok.store.call_rows import ModelCallRow, UnrecordedCall
from cursor_byok.store.forks import ForkRow, root_of
from cursor_byok.store.owners import client_id_of, owner_of, scoped
from cursor_byok.transport.http.dashboard.layout import when
from cursor_byok.transport.http.dashboard.subagent_entries import subagent_entries

SHOWN_CHARS = 4000
"""How much of one message's text the timeline shows."""
PAGE_MESSAGES = 200
"""Messages on one page of a timeline (and the model calls, resets and
related conversations among them)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """Something the timeline shows before the message at history index
    `at` (after the last message when `at` is the history's length), as
    HTML; at one index, entries come in the order given."""

    at: int
    html: str


def forks_and_subagents(
    store: Store, viewer: User, key: str, start: int, stop: int, messages: Sequence[Message] = ()
) -> Sequence[Entry]:
    """The hook for forks and subagents: entries, at history indexes from
    `start` up to `stop` (the page shown), that name the conversations
    branched from `key` (at the message they branch after) and, for a
    branch, where it came from (at its start), with links the viewer may
    follow (a branch is in its conversation's owner's namespace, so theirs);
    and the subagents the Task calls among `messages` (the page's, from
    `start`) started, or a child's parent (`subagent_entries`).
    Runs in the page's worker thread."""
    entries = []
    for fork in store.forks(root_of(key)):
        if fork.parent == key and start <= fork.point <= stop:
            html = _fork(viewer, fork, "Rewound here: branch", fork.branch)
            entries.append(Entry(fork.point, html))
        elif fork.branch == key and start == 0:
            entries.append(Entry(0, _fork(viewer, fork, "A branch of", fork.parent)))
    entries.extend(
        Entry(at, html) for at, html in subagent_entries(store, viewer, key, messages, start)
    )
    return entries


def _fork(viewer: User, fork: ForkRow, words: str, other: str) -> str:
    """One fork as the timeline shows it: a link to the other conversation."""
    ident = other if viewer.is_admin else client_id_of(other)
    link = f'<a href="/ui/conversations/{quote(ident, safe="")}">{escape(ident)}</a>'
    return (
        f"<p class=meta>{words} {link}, keeping the first {fork.point} "
        f"message{'' if fork.point == 1 else 's'} ({when(fork.created_at_ms)} UTC).</p>"
    )


def timeline(store: Store, viewer: User, ident: str, start: int = 0) -> str | None:
    """One conversation's messages from index `start` on (`PAGE_MESSAGES`
    of them), or None when the viewer has none by that id: a user's id is
    read in their own namespace (another's is simply missing), the
    administrator's is the stored key."""
    key = ident if viewer.is_admin else scoped(viewer.id, ident)
    window = store.timeline_window(key, start, PAGE_MESSAGES)
    if window is None:
        return None
    start = window.start
    stop = start + len(window.messages)
    owner = store.user_by_id(owner_of(key)) if viewer.is_admin else None
    whose = "" if owner is None else f"User {escape(owner.name)}. "
    attempts = window.call_count
    entries = [
        *(Entry(call.step, _call(call)) for call in window.calls),
        *(Entry(index, _reset()) for index in window.resets if start <= index < stop),
        *forks_and_subagents(store, viewer, key, start, stop, window.messages),
    ]
    entries.sort(key=lambda entry: entry.at)  # stable: the order given at one index
    pager = _pager(ident, start, window.message_count)
    parts = [
        f"<p>{whose}Status {escape(window.status)}, {window.message_count} messages, "
        f"{attempts} model call attempt{'' if attempts == 1 else 's'}, "
        f"version {window.version}.</p><h2>Timeline</h2>{pager}"
    ]
    waiting = iter(entries)
    pending = next(waiting, None)
    for index, message in enumerate(window.messages, start):
        while pending is not None and pending.at <= index:
            if pending.at >= start:
                parts.append(pending.html)
            pending = next(waiting, None)
        parts.append(_message(message))
    last_page = stop == window.message_count
    while pending is not None and (last_page or pending.at < stop):
        if pending.at >= start:
            parts.append(pending.html)
        pending = next(waiting, None)
    if last_page:
        parts.append(_unrecorded(store.unrecorded_calls(key)))
    parts.append(pager)
    return "".join(parts)


def _pager(ident: str, start: int, count: int) -> str:
    """Links to the other pages of a timeline longer than one."""
    if count <= PAGE_MESSAGES:
        return ""
    path = f"/ui/conversations/{quote(ident, safe='')}"
    shown = f"messages {start + 1} to {min(start + PAGE_MESSAGES, count)} of {count}"
    links = [f"<span class=meta>{shown}</span>"]
    if start > 0:
        links.append(f'<a href="{path}">First</a>')
        links.append(f'<a href="{path}?from={max(0, start - PAGE_MESSAGES)}">Earlier</a>')
    if start + PAGE_MESSAGES < count:
        links.append(f'<a href="{path}?from={start + PAGE_MESSAGES}">Later</a>')
        last = (count - 1) // PAGE_MESSAGES * PAGE_MESSAGES
        links.append(f'<a href="{path}?from={last}">Latest</a>')
    return f"<p>{' '.join(links)}</p>"


def _unrecorded(calls: Sequence[UnrecordedCall]) -> str:
    """Calls without figures: in flight now, or ended before they were kept."""
    if not calls:
        return ""
    rows = "".join(
        f"<tr><td>{escape(c.call_id)}</td><td>{escape(c.model)}</td><td>{escape(c.status)}</td>"
        f"<td class=n>{c.attempts}</td><td class=error>{escape(c.error or '')}</td></tr>"
        for c in calls
    )
    return (
        "<h2>Model calls without figures</h2><p class=meta>In flight, or ended before "
        "each call's figures were recorded.</p><table><tr><th>Call</th><th>Model</th>"
        f"<th>Status</th><th class=n>Attempts</th><th>Error</th></tr>{rows}</table>"
    )


def _call(call: ModelCallRow) -> str:
    """A model call's attempt, each figure in a cell of its own (`data-*`
    names it for a reader that checks the numbers)."""
    cost = "unknown" if call.cost_usd is None else f"${call.cost_usd:,.6f}"
    ttft = "-" if call.ttft_ms is None else f"{call.ttft_ms:,} ms"
    failed = f" <span class=error>{escape(call.error)}</span>" if call.error else ""
    cells = (
        ("outcome", escape(call.outcome)),
        ("ttft", ttft),
        ("duration", f"{call.duration_ms:,} ms"),
        ("input", f"{call.input:,}"),
        ("output", f"{call.output:,}"),
        ("cache-read", f"{call.cache_read:,}"),
        ("cache-write", f"{call.cache_write:,}"),
        ("reasoning", f"{call.reasoning:,}"),
        ("cost", cost),
    )
    body = "".join(
        f'<td{"" if name == "outcome" else " class=n"} data-figure="{name}">{value}</td>'
        for name, value in cells
    )
    return (
        f'<table class=call id="call-{escape(call.call_id)}-{call.attempt}">'
        f"<tr><th colspan=9>Model call {escape(call.call_id)}, attempt {call.attempt}: "
        f"{escape(call.model)}, started {_second(call.started_at_ms)} UTC{failed}</th></tr>"
        "<tr><th>Outcome</th><th class=n>First token</th><th class=n>Duration</th>"
        "<th class=n>Input</th><th class=n>Output</th><th class=n>Cache read</th>"
        "<th class=n>Cache write</th><th class=n>Reasoning</th><th class=n>Cost</th></tr>"
        f"<tr>{body}</tr></table>"
    )


def _second(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms / 1000))


def _reset() -> str:
    return (
        "<p class=meta>Compaction: requests start here, from the summary below "
        "(the messages above are kept, no longer sent).</p>"
    )


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
        return (
            "<p class=meta>History repaired: the provider refused the history before "
            f"this point, which is sent in plain text from here on: {escape(message.reason)}</p>"
        )
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
