"""Which conversation a client-run subagent is: the link from a parent's
Task call to the child conversation the client started for it.

A client starts a subagent as a run of its own, in a conversation whose id
it chooses; the server cannot derive that id from the parent's call (as it
does for the children it runs itself). The link is kept as a row of
`client_operations`, keyed by the parent's conversation and the Task call
id, whose result names the child: an exact primary-key lookup, no schema of
its own, and the first child recorded for a call stays (a completed
operation keeps its first result). A second row, keyed by the child, names
its parent (for the child's timeline).
"""

from __future__ import annotations

from dataclasses import dataclass

from cursor_byok.store.base import ClientOperationRecord, OperationStatus, Store

PREFIX = "subagent-child:"
PARENT_PREFIX = "subagent-parent:"


@dataclass(frozen=True, slots=True)
class LinkedChild:
    """The child conversation linked to a Task call, and how many messages
    it held when the link was made: a resumed subagent (`resume`) goes on in
    a conversation that already rests with an answer, which is not this
    call's until its history grows past that."""

    conversation_id: str
    base: int = 0


def link_key(parent_id: str, tool_call_id: str) -> str:
    """The row naming the child of `parent_id`'s Task call `tool_call_id`."""
    return f"{PREFIX}{parent_id}:{tool_call_id}"


def _row(
    key: str, child_id: str, parent_id: str, call_id: str, named: str, base: int = 0
) -> ClientOperationRecord:
    return ClientOperationRecord(
        operation_id=key,
        conversation_id=child_id,
        turn_id=parent_id,
        tool_call_id=call_id,
        tool_index=0,
        request=str(base).encode(),
        status=OperationStatus.COMPLETED,
        result=named.encode(),
    )


def link_child(store: Store, parent_id: str, tool_call_id: str, child_id: str) -> None:
    """Record `child_id` as the subagent of the Task call (the first stays),
    and, for the child's own timeline, whose it is."""
    key = link_key(parent_id, tool_call_id)
    head = store.timeline_window(child_id, 0, 0)
    base = head.message_count if head is not None else 0  # a resumed child's history so far
    store.save_client_operation(_row(key, child_id, parent_id, tool_call_id, child_id, base))
    back = PARENT_PREFIX + child_id
    store.save_client_operation(_row(back, child_id, parent_id, tool_call_id, parent_id))


def linked_parent(store: Store, child_id: str) -> tuple[str, str] | None:
    """The parent conversation and Task call a client-run child was linked to."""
    record = store.get_client_operation(PARENT_PREFIX + child_id)
    if record is None:
        return None
    return record.turn_id, record.tool_call_id


def linked_child(store: Store, parent_id: str, tool_call_id: str) -> str | None:
    """The child conversation recorded for the Task call, or None."""
    found = linked(store, parent_id, tool_call_id)
    return found.conversation_id if found is not None else None


def linked(store: Store, parent_id: str, tool_call_id: str) -> LinkedChild | None:
    """The child recorded for the Task call, with its history's length then."""
    record = store.get_client_operation(link_key(parent_id, tool_call_id))
    if record is None or not record.result:
        return None
    base = record.request.decode()
    return LinkedChild(record.result.decode(), int(base) if base.isdigit() else 0)
