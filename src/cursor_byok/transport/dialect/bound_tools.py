"""The configuration's tools as one run offers them.

Most of them are the same for every run; a few are made for each run from
its request (the Task tool lists the subagents the request context
defines and the models the run's overrides allow) or left out of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from cursor_byok.transport.dialect.clients import Capabilities
from cursor_byok.transport.dialect.tools import Tool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def bound_tools(
    extra: Sequence[Tool],
    run: pb.AgentRunRequest,
    context: pb.RequestContext | None,
    client: Capabilities,
    looking: bool,
) -> list[Tool]:
    """`extra` for this run: a tool with `for_run` is made by it, or left
    out (None); the others are taken as they are."""
    tools = []
    for tool in extra:
        for_run = getattr(tool, "for_run", None)
        bound = for_run(run, context, client, looking) if for_run is not None else tool
        if bound is not None:
            tools.append(bound)
    return tools
