"""A Task call the server carries out itself (protocol/agent-features.md §5.2 B).

To the parent's loop a Task call is a server-run tool call like any other
(`server_tool`): one call, one `ToolResult`. In server mode its `run` hands
the work to a `ChildRunner` (the sessions layer's `Subagents`), which runs
the child as a conversation of its own and comes back with how it ended.
This module holds what is Cursor-shaped about that and needs no I/O: the
outcomes (card, the text the model reads, the child's state for the
parent's checkpoints) of a child that finished, failed, or runs on in the
background.
"""

from __future__ import annotations

from typing import Protocol

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ToolContext
from cursor_byok.transport.dialect.task_call import TaskCall, TaskParser
from cursor_byok.transport.dialect.task_cards import (
    background_text,
    error_text,
    output_text,
    task_card,
    task_failure,
    task_success,
)
from cursor_byok.transport.dialect.tool_base import ToolOutcome, cap
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


class ChildRunner(Protocol):
    """Runs a Task call's subagent on the server (sessions layer)."""

    async def run_task(
        self, tool: TaskParser, task: TaskCall, call: ToolCall, context: ToolContext
    ) -> ServerOutcome: ...


def _card(task: TaskCall, call: ToolCall, result: pb.TaskResult, agent_id: str) -> pb.ToolCall:
    card = task_card(task, result, agent_id)
    card.tool_call_id = call.id
    return card


def succeeded(
    task: TaskCall,
    call: ToolCall,
    agent_id: str,
    answer: str,
    duration_ms: int,
    state: pb.SubagentPersistedState,
) -> ServerOutcome:
    card = _card(task, call, task_success(answer, agent_id, duration_ms), agent_id)
    text = cap(output_text(answer, agent_id))
    return ServerOutcome(card, ToolOutcome(text, False), subagent=(agent_id, state))


def in_background(
    task: TaskCall, call: ToolCall, agent_id: str, state: pb.SubagentPersistedState
) -> ServerOutcome:
    reason = pb.SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST
    card = _card(task, call, task_success("", agent_id, 0, reason), agent_id)
    text = (
        f"{background_text(agent_id)} When it finishes, its answer comes to you as a "
        "message of its own."
    )
    return ServerOutcome(card, ToolOutcome(text, False), subagent=(agent_id, state))


def failed(
    task: TaskCall,
    call: ToolCall,
    agent_id: str,
    error: str,
    state: pb.SubagentPersistedState | None = None,
) -> ServerOutcome:
    card = _card(task, call, task_failure(error), agent_id)
    subagent = (agent_id, state) if agent_id and state is not None else None
    return ServerOutcome(card, ToolOutcome(error_text(error), True), subagent=subagent)


def finished_text(agent_id: str, description: str, answer: str, error: str | None) -> str:
    """The message a background child's end gives the parent model."""
    what = f"The background subagent {agent_id}" + (f" ({description})" if description else "")
    if error is not None:
        return f"{what} failed. {error_text(error)}"
    return f"{what} has finished.\n{output_text(answer, agent_id)}"
