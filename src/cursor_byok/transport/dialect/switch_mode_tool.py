"""`SwitchMode`: the model asks the user to change the conversation's mode.

The server runs it (a `ServerTool`): the started card
(`switch_mode_tool_call` 25), the approval query (`switch_mode_request_query`
4 with `SwitchModeArgs {target_mode_id, explanation, tool_call_id}`), then
the completed card: `success {from_mode_id, to_mode_id}` when the user
approved, `rejected {reason}` when they did not or no answer came within
`QueryWaits.approval_s`. Only an approval changes the mode (`modes`): the
rest of the turn follows it (a looking mode refuses a tool that changes the
workspace) and every checkpoint names it, so the client's next message
comes in it. What the model reads says which mode it is in and what it may
do there.
"""

from __future__ import annotations

from typing import Any

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.modes import LOOKING, MODES, RULES
from cursor_byok.transport.dialect.server_tool import (
    ServerOutcome,
    ServerTool,
    ToolContext,
    query_id,
)
from cursor_byok.transport.dialect.tool_base import ToolOutcome, object_schema
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

MORE_TOOLS = "The tools of {mode} mode are offered from the user's next message on."


def _args(call: ToolCall) -> pb.SwitchModeArgs:
    target = call.arguments.get("target_mode_id")
    explanation = call.arguments.get("explanation")
    args = pb.SwitchModeArgs(
        target_mode_id=target.strip().lower() if isinstance(target, str) else "",
        tool_call_id=call.id,
    )
    if isinstance(explanation, str) and explanation.strip():
        args.explanation = explanation.strip()
    return args


class SwitchMode(ServerTool):
    name = "SwitchMode"
    queries = ("switch_mode_request_query",)
    description = (
        "Ask the user to switch the conversation to another mode: agent (read, edit and run "
        "commands), ask (answer questions, read-only) or plan (study and write a plan, "
        "read-only). Use it when the request needs what the current mode does not allow, "
        "say why in explanation. The user approves or rejects; only an approval changes it."
    )
    parameters = object_schema(
        {
            "target_mode_id": {"type": "string", "enum": list(MODES)},
            "explanation": {"type": "string", "description": "Why the switch helps."},
        },
        ["target_mode_id"],
    )

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        card = pb.SwitchModeToolCall(args=_args(call))
        if isinstance(result, pb.SwitchModeResult):
            card.result.CopyFrom(result)
        return pb.ToolCall(switch_mode_tool_call=card, tool_call_id=call.id)

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        args = _args(call)
        now = context.mode
        target = args.target_mode_id
        if target not in MODES:
            return self.failed(call, f"no mode {target!r}: use one of {', '.join(MODES)}")
        if target == now:
            said = f"The conversation is already in {now} mode. {RULES[now]}"
            result = pb.SwitchModeResult(
                success=pb.SwitchModeSuccess(from_mode_id=now, to_mode_id=now)
            )
            return ServerOutcome(self.card(call, result), ToolOutcome(said, False))
        query = pb.InteractionQuery(
            id=query_id(call.id), switch_mode_request_query=pb.SwitchModeRequestQuery(args=args)
        )
        wait_s = context.waits.approval_s
        response = await context.ask(query, timeout_s=wait_s)
        answer = response.switch_mode_request_response if response is not None else None
        if answer is not None and answer.HasField("approved"):
            result = pb.SwitchModeResult(
                success=pb.SwitchModeSuccess(from_mode_id=now, to_mode_id=target)
            )
            said = f"The user approved: the conversation is now in {target} mode. {RULES[target]}"
            if now in LOOKING and target not in LOOKING:
                said += " " + MORE_TOOLS.format(mode=target)
            outcome = ToolOutcome(said, False)
            return ServerOutcome(self.card(call, result), outcome, mode=target)
        if answer is not None and answer.HasField("rejected"):
            reason = answer.rejected.reason.strip() or "the user rejected the switch"
        else:
            reason = f"no answer within {max(1, round(wait_s / 60))} minutes"
        result = pb.SwitchModeResult(rejected=pb.SwitchModeRejected(reason=reason))
        said = f"The switch to {target} mode was not made ({reason}): you are still in {now} mode."
        return ServerOutcome(self.card(call, result), ToolOutcome(f"{said} {RULES[now]}", False))

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        card = self.card(call)
        card.switch_mode_tool_call.result.error.error = error
        return ServerOutcome(card, ToolOutcome(f"The mode was not switched: {error}", True))
