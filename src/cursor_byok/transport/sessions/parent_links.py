"""Whose subagent a run is, as its conversation records it.

A client runs a subagent as a run of its own whose headers name the parent's
request and Task call (`subagent_child.ParentHeaders`); the body says
nothing of the parent. The parent's conversation is that request's
session's, in the same user's namespace, when this process serves it (it
does while it waits for the subagent). The link is kept in the child's
settings (`loop.state.SubagentOf`), which are stored with its state and
never reach a model request.
"""

from __future__ import annotations

from collections.abc import Callable

from cursor_byok.loop.state import SubagentOf
from cursor_byok.store.owners import owner_of, scoped
from cursor_byok.transport.sessions.child_links import ChildLinks
from cursor_byok.transport.sessions.session import Session


def parent_of(session: Session, find: Callable[[str], Session | None]) -> SubagentOf | None:
    """The link of `session`'s run to its parent, or None for other runs.
    `find`: a live session by its key."""
    headers = session.parent
    if headers is None:
        return None
    parent = find(scoped(owner_of(session.request_id), headers.parent_request))
    conversation = parent.conversation_id if parent is not None else None
    return SubagentOf(conversation or "", headers.tool_call_id, headers.parent_request)


async def linked_parent(
    session: Session, find: Callable[[str], Session | None], links: ChildLinks, child_id: str
) -> SubagentOf | None:
    """`parent_of`, with the parent's Task call linked to the child's
    conversation `child_id` (`child_links`: the first child stays)."""
    parent = parent_of(session, find)
    if parent is not None:
        await links.link(parent, child_id)
    return parent
