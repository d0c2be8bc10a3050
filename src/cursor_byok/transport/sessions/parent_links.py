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
