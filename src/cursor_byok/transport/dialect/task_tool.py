"""The Task tool: the model starts a subagent.

One tool, two ways to carry a call out (`subagent_settings.subagent_mode`):
the client runs the subagent (`task_client`, for clients that answer
`exec subagent_args`), or the server runs its loop itself. `TaskTool` is
made once from the configuration (`[subagents]`) and bound to each run
(`for_run`): the run's client, its custom subagents, its model overrides
and its model decide whether it is offered and what its schema lists.
It is never offered inside a subagent's own run: subagents are one level
deep (a child run gets no Task, and no question to the user either).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from google.protobuf.message import Message

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.clients import Capabilities
from cursor_byok.transport.dialect.server_tool import (
    ExecContext,
    ServerOutcome,
    ServerTool,
    ToolContext,
)
from cursor_byok.transport.dialect.subagent_settings import SubagentSettings, subagent_mode
from cursor_byok.transport.dialect.subagent_types import kinds_for
from cursor_byok.transport.dialect.task_call import (
    TASK_DESCRIPTION,
    TaskCall,
    TaskSetup,
    parse_task,
)
from cursor_byok.transport.dialect.task_cards import error_text, task_card, task_failure
from cursor_byok.transport.dialect.task_client import run_on_client
from cursor_byok.transport.dialect.task_server import ChildRunner
from cursor_byok.transport.dialect.tool_base import ToolOutcome
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

MAX_BOUND = 64
"""Bound tools kept per configured one (a few kinds of client and mode in use)."""


def _keyed(messages: Iterable[Message]) -> tuple[bytes, ...]:
    """Messages as bytes that compare equal when they say the same."""
    return tuple(message.SerializeToString(deterministic=True) for message in messages)


class TaskTool(ServerTool):
    name = "Task"
    description = TASK_DESCRIPTION
    started_first = False  # started with its exec (several calls may start at once)

    def __init__(
        self,
        settings: SubagentSettings | None = None,
        setup: TaskSetup | None = None,
        mode: str = "client",
        children: ChildRunner | None = None,
    ) -> None:
        self.settings = settings or SubagentSettings()
        self.setup = setup or TaskSetup(settings=self.settings)
        self.mode = mode
        self.parameters = self.setup.schema()
        self.children = children
        """Who runs the subagents in server mode (`task_server`); None: nobody."""
        self._bound: dict[tuple[object, ...], TaskTool | None] = {}
        """`for_run`'s answers by what they depend on: runs alike share one
        tool, so the tool set and its definitions made from it are reused
        (each new one cost a schema, a tool set and their encoding per turn)."""

    def with_children(self, children: ChildRunner) -> TaskTool:
        """This tool, able to run subagents on the server with `children`."""
        settings = replace(self.settings, server_side=True)
        return TaskTool(settings, replace(self.setup, settings=settings), self.mode, children)

    def for_run(
        self,
        run: pb.AgentRunRequest,
        context: pb.RequestContext | None,
        client: Capabilities,
        looking: bool,
    ) -> TaskTool | None:
        """This run's Task tool, or None where it is not offered."""
        mode = subagent_mode(client, self.settings)
        if mode is None:
            return None
        model = run.requested_model.model_id or run.model_details.model_id
        custom = context.custom_subagents if context is not None else ()
        overrides = run.subagent_model_overrides
        key = (mode, model, looking, _keyed(custom), _keyed(overrides))
        if key in self._bound:
            return self._bound[key]
        setup = TaskSetup(
            kinds_for(custom), tuple(overrides), self.settings, model, readonly_only=looking
        )
        bound = TaskTool(self.settings, setup, mode, self.children) if setup.offered() else None
        if len(self._bound) >= MAX_BOUND:
            self._bound.clear()
        self._bound[key] = bound
        return bound

    def parse(self, call: ToolCall) -> TaskCall:
        return parse_task(call, self.setup)

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        card = task_card(self.parse(call), result)
        card.tool_call_id = call.id
        return card

    def partial_card(self, call: ToolCall) -> pb.ToolCall | None:
        return self.card(call) if call.arguments else None

    def refused(self, call: ToolCall, error: str) -> ServerOutcome:
        """The call's error: on its card and for the model."""
        card = self.card(call, task_failure(error))
        return ServerOutcome(card, ToolOutcome(error_text(error), True))

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        return self.refused(call, f"the subagent could not run: {error}")

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        task = self.parse(call)
        if task.problem is not None:
            context.started()
            return self.refused(call, task.problem)
        if self.mode == "client" and isinstance(context, ExecContext):
            return await run_on_client(self, task, call, context)
        if self.mode == "server" and self.children is not None:
            return await self.children.run_task(self, task, call, context)
        context.started()
        return self.refused(call, "this server cannot run subagents for this client")
