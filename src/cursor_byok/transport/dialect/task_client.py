"""A Task call the client carries out (protocol/agent-features.md §5.2 A).

The parent's stream gets the started Task card, then `exec subagent_args`
(28): the client starts a child run against this server (a request of its
own, with `x-parent-*` headers and `subagent_type_name`), plays it to its
end, and answers `subagent_result` (28) with the child's last message. The
parent's stream stays open meanwhile (its writer sends heartbeats), for at
most `[subagents] wait_s`; then the exec is aborted and the model told.

The loop hands a response's tool calls over one at a time. A subagent may
take minutes, so when the model starts several in one response, the first
one's run starts the Task calls right after it too (each its own exec,
under its own call id), and each later call, when its turn comes, waits for
the answer already on its way: they run at the same time.

A Task call asked again (a stream that took the turn over, a restart)
starts nothing new when the client already started its child: the child's
conversation, linked to the call when its run arrived, gives the answer
once it has ended, and is waited for (its committed state watched, within
`wait_s`) while its client runs it on; only a call whose child never
started sends `subagent_args` again.

A subagent left in the background (`run_in_background`, or the user's
choice) is answered at once with a background reason: the model is told
it runs on; `QUEUED_FOLLOW_UP` means it did not start, which is an error.
"""

from __future__ import annotations

from typing import Protocol

from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.state import Status
from cursor_byok.store.owners import client_id_of
from cursor_byok.transport.dialect.server_tool import ExecContext, ServerOutcome
from cursor_byok.transport.dialect.subagent_settings import SubagentSettings
from cursor_byok.transport.dialect.task_call import TaskCall, following_tasks
from cursor_byok.transport.dialect.task_cards import (
    STILL_RUNNING,
    background_text,
    child_state,
    output_text,
    task_card,
    task_success,
)
from cursor_byok.transport.dialect.tool_base import ToolOutcome, cap
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

EXEC_FIELD = "subagent_args"
BACKGROUND = pb.SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST
"""A background child found again: it runs on, as the model asked."""


class TaskTool(Protocol):
    """What a client-run Task call needs of its tool (`task_tool.TaskTool`)."""

    name: str
    settings: SubagentSettings

    def parse(self, call: ToolCall) -> TaskCall: ...

    def refused(self, call: ToolCall, error: str) -> ServerOutcome: ...


COUNT_WAIT_S = 2.0
"""How long a parent waits, after its child's answer, to read what the
child's run spent (the child's run commits its end before the client
answers, so this is at most a moment)."""


def exec_key(call_id: str) -> str:
    """The exec's id on the stream (one per Task call)."""
    return f"subagent:{call_id}"


def subagent_args(task: TaskCall, context: ExecContext) -> pb.SubagentArgs:
    args = pb.SubagentArgs(
        tool_call_id=task.call_id,
        subagent_type=task.kind.name,
        model_id=task.model,
        prompt=task.prompt,
        readonly=task.readonly,
        run_in_background=task.background,
        parent_conversation_id=context.conversation_id,
        root_parent_conversation_id=context.conversation_id,
        mode=pb.TASK_MODE_PLAN if task.readonly else pb.TASK_MODE_AGENT,
        environment=pb.SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL,
    )
    if task.resume:
        args.resume_agent_id = task.resume
    return args


def _launch(tool: TaskTool, task: TaskCall, call: ToolCall, context: ExecContext) -> int:
    """Show the call's card and send its exec, once; when it was sent (ms)."""
    context.started_too(call)
    return context.exec(exec_key(call.id), EXEC_FIELD, subagent_args(task, context))


async def _launch_following(tool: TaskTool, call: ToolCall, context: ExecContext) -> None:
    """Start the Task calls right after `call` in the same response now
    (those whose child the client has not started already)."""
    for following, task in following_tasks(tool, call, context.state):
        if await context.child_of(following.id) is None:
            _launch(tool, task, following, context)


async def _started_before(
    tool: TaskTool, task: TaskCall, call: ToolCall, context: ExecContext
) -> ServerOutcome | None:
    """The call's outcome from the child the client started for it already
    (waited for while it runs); None when it never started one."""
    child = await context.child_of(call.id)
    if child is None:
        return None
    agent_id = client_id_of(child.conversation_id)
    context.started()
    if task.background:
        return _answered(task, call, context, agent_id, "", context.now_ms(), BACKGROUND)
    since = context.now_ms()
    state = await context.child_rested(child, tool.settings.wait_s)
    if state is None:
        return tool.refused(call, f"the subagent gave no answer within {tool.settings.wait_s:g} s")
    if state.message_count == 0:
        return None  # linked, nothing of this call's committed: it did not start
    if state.status in (Status.FAILED, Status.CANCELED):
        return tool.refused(call, f"the subagent {state.status}")
    return _answered(task, call, context, agent_id, state.answer, since, calls=state.model_calls)


async def run_on_client(
    tool: TaskTool, task: TaskCall, call: ToolCall, context: ExecContext
) -> ServerOutcome:
    before = await _started_before(tool, task, call, context)
    if before is not None:
        return before
    sent_ms = _launch(tool, task, call, context)
    await _launch_following(tool, call, context)
    wait_s = tool.settings.wait_s
    answer = await context.exec_result(exec_key(call.id), wait_s)
    if answer is None:
        return tool.refused(call, f"the subagent gave no answer within {wait_s:g} s")
    if isinstance(answer, str):
        return tool.refused(call, f"the client could not run the subagent: {answer}")
    if answer.WhichOneof("message") != "subagent_result":
        return tool.refused(call, "the client answered something other than a subagent result")
    result = answer.subagent_result
    if result.WhichOneof("result") == "error":
        return tool.refused(call, result.error.error or "the subagent failed")
    if not result.HasField("success"):
        return tool.refused(call, "the client sent an empty subagent result")
    success = result.success
    agent_id = success.agent_id or task.resume
    reason = success.background_reason
    if reason == pb.SUBAGENT_BACKGROUND_REASON_QUEUED_FOLLOW_UP:
        return tool.refused(call, STILL_RUNNING)
    calls = await _child_calls(call, context) if not reason else 0
    final = success.final_message
    return _answered(task, call, context, agent_id, final, sent_ms, reason, calls)


async def _child_calls(call: ToolCall, context: ExecContext) -> int:
    """The model calls the child's run made (0 when it is not known here
    within `COUNT_WAIT_S`): the parent's turn counts them in its limit."""
    child = await context.child_of(call.id)
    if child is None:
        return 0
    rested = await context.child_rested(child, COUNT_WAIT_S)
    return rested.model_calls if rested is not None else 0


def _answered(
    task: TaskCall,
    call: ToolCall,
    context: ExecContext,
    agent_id: str,
    final_message: str,
    sent_ms: int,
    reason: pb.SubagentBackgroundReason = pb.SUBAGENT_BACKGROUND_REASON_UNSPECIFIED,
    calls: int = 0,
) -> ServerOutcome:
    """The call's outcome from its subagent's answer (or its going on in
    the background, `reason`)."""
    duration = context.now_ms() - sent_ms
    card_result = task_success(final_message, agent_id, duration, reason)
    card = task_card(task, card_result, agent_id)
    card.tool_call_id = call.id
    if reason != pb.SUBAGENT_BACKGROUND_REASON_UNSPECIFIED:
        text = background_text(agent_id)
    else:
        text = cap(output_text(final_message, agent_id))
    now = context.now_ms()
    state = child_state(task, None, sent_ms, now)
    subagent = (agent_id, state) if agent_id else None
    return ServerOutcome(card, ToolOutcome(text, False), subagent=subagent, model_calls=calls)
