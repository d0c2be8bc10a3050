"""A subagent's own run, as the client starts it for a Task call.

The client sends it as an ordinary run (its own request id and
conversation) whose request names the subagent's type
(`subagent_type_name` 11) and model, with the Task's prompt as the user's
text (ask mode when read-only). It is served as a normal turn, with three
differences: the system prompt says it is a subagent (the kind's words,
or the user's own subagent's prompt, and any `subagent_system_reminder`
the message carries); an explore or read-only subagent gets only the tools
that look; and it gets no Task and no question to the user
(`clients.Capabilities.child_run`, `subagent_settings.subagent_mode`).

Its headers name the parent (`x-parent-request-id`, `x-parent-agent-tool-call-id`);
`ParentHeaders` reads them, and the child's conversation records them so
`cursor-byok show` can put the child under its parent's Task call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cursor_byok.transport.dialect.subagent_types import child_kind
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

PARENT_REQUEST = "x-parent-request-id"
ROOT_REQUEST = "x-root-parent-request-id"
PARENT_TOOL_CALL = "x-parent-agent-tool-call-id"


def _type_name(run: pb.AgentRunRequest) -> str | None:
    return run.subagent_type_name if run.HasField("subagent_type_name") else None


def child_tools(
    run: pb.AgentRunRequest, context: pb.RequestContext | None, only: frozenset[str] | None
) -> frozenset[str] | None:
    """The built-in tools a run may use: `only` (its mode's), narrowed to
    what its subagent kind may use."""
    name = _type_name(run)
    if name is None:
        return only
    allowed = child_kind(name, context).tools
    if allowed is None:
        return only
    return allowed if only is None else only & allowed


def child_prompt(run: pb.AgentRunRequest, context: pb.RequestContext | None) -> str:
    """What a subagent's system prompt adds to the parent's ("" for others)."""
    name = _type_name(run)
    if name is None:
        return ""
    parts = [child_kind(name, context).prompt]
    action = run.action
    if action.HasField("user_message_action"):
        reminder = action.user_message_action.user_message.subagent_system_reminder
        parts.append(reminder.strip())
    return "\n\n".join(part for part in parts if part)


@dataclass(frozen=True, slots=True)
class ParentHeaders:
    """Whose subagent a run is: the parent's request id (its conversation
    once looked up) and the Task call that started it."""

    parent_request: str
    tool_call_id: str

    @classmethod
    def of(cls, headers: Mapping[str, str]) -> ParentHeaders | None:
        """From a child run's headers (lower-case names); None for other runs."""
        parent = headers.get(PARENT_REQUEST, "").strip()[:200]
        call = headers.get(PARENT_TOOL_CALL, "").strip()[:200]
        return cls(parent, call) if parent and call else None
