"""The conversations page: newest first, a page at a time, by user and by
model (`dashboard.timeline` shows one). Run in a worker thread."""

from __future__ import annotations

from html import escape
from urllib.parse import quote, urlencode

from cursor_byok.store.base import ConversationSummary, Store, User
from cursor_byok.store.conversation_pages import PageKey
from cursor_byok.store.owners import client_id_of, owner_of
from cursor_byok.transport.http.dashboard.layout import when

PAGE_SIZE = 50


def conversations_page(
    store: Store, viewer: User, user_name: str, model: str, before: PageKey | None
) -> str:
    """A page of conversations, newest first, from just after `before`: the
    viewer's own, or for the administrator everyone's (or `user_name`'s),
    with a call to `model` when one is given (the last call to it first)."""
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
    updated = "Last call to this model (UTC)" if model else "Updated (UTC)"
    return (
        f'<form method="get" action="/ui/conversations">{user_field}'
        f'<label>Model <input name="model" value="{escape(model)}"></label> '
        '<button type="submit">Filter</button></form>'
        f"<table><tr><th>Conversation</th>{owner_head}<th>Status</th>"
        f"<th class=n>Messages</th><th>{updated}</th></tr>{rows}</table>{empty}"
        f"<p>{' '.join(links)}</p>"
    )


def page_key(text: str) -> PageKey | None:
    """The `before` of a page link (`<updated_at_ms>:<conversation key>`)."""
    ms, _, key = text.partition(":")
    return (int(ms), key) if ms.isdigit() and key else None


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
