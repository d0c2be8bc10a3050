"""The mode a conversation is in, and what each mode allows.

Cursor's clients pick a mode for each message (`UserMessage.mode` 4: agent,
ask, plan, ...) and send the last one back in the checkpoint
(`ConversationStateStructure.mode` 10); `start_plan_action` is plan mode.
The model can ask to change it (`SwitchMode`), which the user approves or
rejects; only an approval changes it (reference.md §3.4: the IDE's picker
follows the approved query). Agent mode offers every tool; ask and plan
offer only what looks (reads, searches, lints) and what asks the user:
nothing that changes the workspace. Plan mode also tells the model to write
a plan. Modes the server has no rules of its own for (debug, ...) are taken
as agent mode.
"""

from __future__ import annotations

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

AGENT, ASK, PLAN = "agent", "ask", "plan"
MODES = (AGENT, ASK, PLAN)
"""The modes the model may switch to (`SwitchModeArgs.target_mode_id`)."""

LOOKING = frozenset({ASK, PLAN})
"""The modes that change nothing in the workspace."""

READ_ONLY = frozenset(
    {"read_file", "list_dir", "grep", "glob", "read_lints", "AskQuestion", "SwitchMode"}
    | {"CreatePlan"}
)
"""The tools a looking mode offers: those that only look, and those that ask
the user (a question, a way back to agent mode, a plan to review)."""

PLAN_ONLY = frozenset({"CreatePlan"})
"""The tools only plan mode offers."""

_BY_ENUM: dict[int, str] = {pb.AGENT_MODE_ASK: ASK, pb.AGENT_MODE_PLAN: PLAN}
ENUM = {AGENT: pb.AGENT_MODE_AGENT, ASK: pb.AGENT_MODE_ASK, PLAN: pb.AGENT_MODE_PLAN}

ASK_PROMPT = """\
You are in ask mode. Answer the user's questions about the workspace using the read-only \
tools; do not edit files or run commands. If the user wants changes made, say so, or ask to \
switch to agent mode (SwitchMode)."""

RULES = {
    AGENT: "Every tool is available: read, edit, and run commands.",
    ASK: "Only the read-only tools are available: answer, do not edit files or run commands.",
    PLAN: (
        "Only the read-only tools are available: study the workspace and write a plan; do "
        "not edit files or run commands."
    ),
}


def mode_of(enum: int) -> str:
    return _BY_ENUM.get(enum, AGENT)


def run_mode(run: pb.AgentRunRequest) -> str:
    """The mode a run request asks for: plan for `start_plan_action`, else
    its message's own, else the checkpoint's, else agent."""
    action = run.action
    branch = action.WhichOneof("action")
    if branch == "start_plan_action":
        return PLAN
    if branch == "execute_plan_action":
        return AGENT  # the plan is carried out
    if branch == "user_message_action" and action.user_message_action.user_message.mode:
        return mode_of(action.user_message_action.user_message.mode)
    if run.conversation_state.HasField("mode"):
        return mode_of(run.conversation_state.mode)
    return AGENT
