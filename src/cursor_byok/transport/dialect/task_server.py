"""The Task tool when the server runs the subagent itself (server mode).

To the parent's loop a Task call is a server-run tool call like any other
(`server_tool`): one call, one `ToolResult`. Its `run` hands the work to a
`ChildRunner` (the sessions layer's `Subagents`), which runs the child as a
conversation of its own and comes back with the completed card and the
text the model reads. This module holds what is Cursor-shaped about it and
needs no I/O: the card, and the outcome of a child that ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cursor_byok.llm.types import AssistantMessage, Message, TextContent, ToolCall
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool, ToolContext
from cursor_byok.transport.dialect.tool_base import ToolOutcome, object_schema
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

READ_ONLY_TYPES = frozenset({"explore"})
"""Subagent types that only look (and get only the read-only tools)."""


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """A Task call's arguments, as the server-side run reads them."""

    description: str
    prompt: str
    subagent_type: str
    model: str | None
    resume: str | None
    readonly: bool
    run_in_background: bool

    @classmethod
    def of(cls, call: ToolCall) -> TaskRequest:
        args = call.arguments
        kind = str(args.get("subagent_type") or "generalPurpose")
        return cls(
            description=str(args.get("description") or ""),
            prompt=str(args.get("prompt") or ""),
            subagent_type=kind,
            model=str(args["model"]) if args.get("model") else None,
            resume=str(args["resume"]) if args.get("resume") else None,
            readonly=bool(args.get("readonly")) or kind in READ_ONLY_TYPES,
            run_in_background=bool(args.get("run_in_background")),
        )


class ChildRunner(Protocol):
    """Runs a Task call's subagent and says how it ended (sessions layer)."""

    async def run_task(self, call: ToolCall, context: ToolContext) -> ServerOutcome: ...


def subagent_type(kind: str) -> pb.SubagentType:
    found = pb.SubagentType()
    if kind == "explore":
        found.explore.SetInParent()
    elif kind == "shell":
        found.shell.SetInParent()
    elif kind in ("generalPurpose", ""):
        found.unspecified.SetInParent()
    else:
        found.custom.name = kind
    return found


def task_card(
    call: ToolCall, agent_id: str = "", result: pb.TaskResult | None = None
) -> pb.ToolCall:
    request = TaskRequest.of(call)
    args = pb.TaskArgs(
        description=request.description,
        prompt=request.prompt,
        subagent_type=subagent_type(request.subagent_type),
        mode=pb.TASK_MODE_PLAN if request.readonly else pb.TASK_MODE_AGENT,
    )
    if request.model:
        args.model = request.model
    if request.resume:
        args.resume = request.resume
    if agent_id:
        args.agent_id = agent_id
    card = pb.ToolCall(task_tool_call=pb.TaskToolCall(args=args))
    if result is not None:
        card.task_tool_call.result.CopyFrom(result)
    return card


def last_answer(messages: Sequence[Message]) -> str:
    """The text of the child's last answer (what the parent model reads)."""
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            texts = [c.text for c in message.content if isinstance(c, TextContent)]
            if texts:
                return "".join(texts)
    return ""


def result_text(answer: str, agent_id: str) -> str:
    """What the parent model reads of a child that answered (§5.2)."""
    return (
        "This is the output of the subagent:\n"
        f"response:\n<response>\n{answer}\n</response>\n\n"
        f"Agent ID: {agent_id} (pass it as `resume` to continue this subagent)"
    )


def succeeded(call: ToolCall, agent_id: str, answer: str, duration_ms: int) -> ServerOutcome:
    step = pb.ConversationStep(assistant_message=pb.AssistantMessage(text=answer))
    success = pb.TaskSuccess(conversation_steps=[step], agent_id=agent_id, duration_ms=duration_ms)
    card = task_card(call, agent_id, pb.TaskResult(success=success))
    return ServerOutcome(card, ToolOutcome(result_text(answer, agent_id), False))


def in_background(call: ToolCall, agent_id: str) -> ServerOutcome:
    success = pb.TaskSuccess(agent_id=agent_id, is_background=True)
    card = task_card(call, agent_id, pb.TaskResult(success=success))
    text = (
        f"The subagent is running in the background (Agent ID: {agent_id}). Its result "
        "will be delivered to you as a message when it is done; go on meanwhile."
    )
    return ServerOutcome(card, ToolOutcome(text, False))


def failed(call: ToolCall, agent_id: str, error: str) -> ServerOutcome:
    card = task_card(call, agent_id, pb.TaskResult(error=pb.TaskError(error=error)))
    return ServerOutcome(card, ToolOutcome(f"Error: {error}", is_error=True))


TASK_SCHEMA = object_schema(
    {
        "description": {"type": "string", "description": "A short (3-5 word) title."},
        "prompt": {"type": "string", "description": "The task for the subagent, in full."},
        "subagent_type": {
            "type": "string",
            "description": "generalPurpose (default), explore (read-only) or a custom type.",
        },
        "model": {"type": "string"},
        "resume": {"type": "string", "description": "An agent id to continue."},
        "readonly": {"type": "boolean"},
        "run_in_background": {"type": "boolean"},
    },
    ("description", "prompt"),
)


class ServerTask(ServerTool):
    """Task, run on the server: a child conversation with its own loop."""

    name = "Task"
    description = (
        "Launch a subagent to carry out a task on its own (search, research, a "
        "self-contained change) and report back. Several Task calls in one response "
        "run at the same time."
    )
    parameters = TASK_SCHEMA

    def __init__(self, children: ChildRunner) -> None:
        self.children = children

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        del result
        return task_card(call)

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        return await self.children.run_task(call, context)

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        return failed(call, "", error)
