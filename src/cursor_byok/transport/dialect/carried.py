"""What a run carries on from the checkpoint the client sends back.

The official server's checkpoints name the conversation's plan (a
`ConversationPlan` blob) and the question tool calls that have their answer
(`completed_ask_question_tool_call_ids`); a client reads them back from the
checkpoint it holds, so each new turn starts from what the last one named.
"""

from __future__ import annotations

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def carried_state(run: pb.AgentRunRequest) -> tuple[bytes, tuple[str, ...]]:
    """The plan and answered questions the client's checkpoint names, with
    the question whose answer this run brings (a later answer)."""
    state = run.conversation_state
    answered = list(state.completed_ask_question_tool_call_ids)
    if run.action.HasField("async_ask_question_completion_action"):
        answered.append(run.action.async_ask_question_completion_action.original_tool_call_id)
    return state.plan, tuple(answered)
