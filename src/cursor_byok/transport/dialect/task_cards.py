"""The Task card (`ToolCall.task_tool_call` 19) and what the model reads.

The card's args carry the resolved model and the subagent's type as a
`SubagentType`; its result is `TaskSuccess {conversation_steps =
[assistant_message(final message)], agent_id, is_background, duration_ms,
background_reason}` or `TaskError`. The model reads the subagent's last
message as the official harness gives it (protocol/agent-features.md §5.2):
"This is the output of the subagent:", the message in
`<response>...</response>`, then `Agent ID: <id>`, with a word on `resume`.
A subagent left running in the background and a failed one are said in a
line of their own; an error starts with "Error: ".
"""

from __future__ import annotations

from cursor_byok.transport.dialect.task_call import TaskCall
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

OUTPUT_HEAD = "This is the output of the subagent:"


def task_args(task: TaskCall, agent_id: str = "") -> pb.TaskArgs:
    """The card's args: as the model asked, with what the server chose."""
    args = pb.TaskArgs(
        description=task.description,
        prompt=task.prompt,
        subagent_type=task.kind.type_pb(),
        mode=pb.TASK_MODE_PLAN if task.readonly else pb.TASK_MODE_AGENT,
        environment=pb.SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL,
    )
    if task.model:
        args.model = task.model
    if task.resume:
        args.resume = task.resume
    if agent_id or task.resume:
        args.agent_id = agent_id or task.resume
    return args


def task_card(
    task: TaskCall, result: pb.TaskResult | None = None, agent_id: str = ""
) -> pb.ToolCall:
    card = pb.TaskToolCall(args=task_args(task, agent_id))
    if result is not None:
        card.result.CopyFrom(result)
    return pb.ToolCall(task_tool_call=card)


def task_success(
    final_message: str,
    agent_id: str,
    duration_ms: int,
    background_reason: int = pb.SUBAGENT_BACKGROUND_REASON_UNSPECIFIED,
) -> pb.TaskResult:
    """A finished (or backgrounded) subagent's result for the card."""
    success = pb.TaskSuccess(
        agent_id=agent_id,
        is_background=background_reason != pb.SUBAGENT_BACKGROUND_REASON_UNSPECIFIED,
        duration_ms=max(0, duration_ms),
        background_reason=background_reason,  # type: ignore[arg-type]
    )
    if final_message:
        step = pb.ConversationStep(assistant_message=pb.AssistantMessage(text=final_message))
        success.conversation_steps.append(step)
    return pb.TaskResult(success=success)


def task_failure(error: str) -> pb.TaskResult:
    return pb.TaskResult(error=pb.TaskError(error=error))


def output_text(final_message: str, agent_id: str) -> str:
    """What the model reads of a subagent that finished."""
    said = final_message.strip() or "(the subagent ended without a final message)"
    lines = [OUTPUT_HEAD, "response:", f"<response>\n{said}\n</response>"]
    if agent_id:
        lines.append(
            f"\nAgent ID: {agent_id} (to continue this subagent with what it knows, "
            "give this ID as `resume` in another Task call)"
        )
    return "\n".join(lines)


def background_text(agent_id: str) -> str:
    """What the model reads of a subagent that goes on in the background."""
    return (
        f"The subagent is running in the background (Agent ID: {agent_id}). Go on with your "
        "work; its answer is not part of this result. Give the ID as `resume` in a later Task "
        "call to continue it."
    )


STILL_RUNNING = (
    "the subagent is still running in the background with earlier work queued, so this task "
    "was not started; try again later, or resume it by its agent ID"
)
"""A `QUEUED_FOLLOW_UP` answer: the task did not start."""


def error_text(message: str) -> str:
    return f"Error: {message}"


def child_state(
    task: TaskCall,
    checkpoint: pb.ConversationStateStructure | None,
    created_ms: int,
    now_ms: int,
) -> pb.SubagentPersistedState:
    """The child as the parent's checkpoints name it, with its own state."""
    state = pb.SubagentPersistedState(
        created_timestamp_ms=created_ms,
        last_used_timestamp_ms=now_ms,
        subagent_type=task.kind.type_pb(),
        model_id=task.model,
        environment=pb.SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL,
    )
    if checkpoint is not None:
        state.conversation_state.CopyFrom(checkpoint)
    return state
