"""The kinds of subagent a Task call may start.

Two are built in: `generalPurpose` (every tool the parent has but Task and
the questions to the user) and `explore` (read-only: read, grep, glob, ls).
The user's own subagents (`.cursor/agents`) come with each run request in
`RequestContext.custom_subagents` (22): each has a name, a description, a
prompt (what the subagent is told on top of the parent's system prompt), a
model and a permission mode (read-only or not).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

GENERAL = "generalPurpose"
EXPLORE = "explore"

EXPLORE_TOOLS = frozenset({"read_file", "grep", "glob", "list_dir"})
"""What an explore subagent may use."""

READONLY_TOOLS = frozenset({"read_file", "grep", "glob", "list_dir", "read_lints"})
"""What a read-only subagent may use."""

SUBAGENT_PROMPT = """\
You are a subagent: another agent gave you the task below and reads only your final message. \
Work on your own with the tools you have (you cannot ask the user anything), then end with one \
message that holds everything the other agent needs: what you found or did, with file paths."""

EXPLORE_PROMPT = """\
You explore the workspace for the agent that started you: search and read, change nothing. \
Be quick and thorough; report what you found with file paths and line numbers."""


@dataclass(frozen=True, slots=True)
class SubagentKind:
    """One kind of subagent: what the model is told of it and how it runs."""

    name: str
    description: str
    readonly: bool = False
    prompt: str = ""
    """What the subagent is told on top of the parent's system prompt."""
    model: str = ""
    """A custom subagent's own model ("" or "inherit": none of its own)."""
    custom: bool = False

    @property
    def tools(self) -> frozenset[str] | None:
        """The only built-in tools it may use; None: the parent's."""
        if self.name == EXPLORE and not self.custom:
            return EXPLORE_TOOLS
        return READONLY_TOOLS if self.readonly else None

    def type_pb(self) -> pb.SubagentType:
        """The card's `SubagentType` (generalPurpose is the unspecified one)."""
        if self.custom:
            return pb.SubagentType(custom=pb.SubagentTypeCustom(name=self.name))
        if self.name == EXPLORE:
            return pb.SubagentType(explore=pb.SubagentTypeExplore())
        return pb.SubagentType(unspecified=pb.SubagentTypeUnspecified())


BUILTIN_KINDS = (
    SubagentKind(
        GENERAL,
        "A general agent for research and multi-step work: it can read, search, edit and run "
        "commands.",
        prompt=SUBAGENT_PROMPT,
    ),
    SubagentKind(
        EXPLORE,
        "A fast read-only agent that searches and reads the workspace (read, grep, glob, ls) "
        "and reports what it found.",
        readonly=True,
        prompt=f"{SUBAGENT_PROMPT}\n\n{EXPLORE_PROMPT}",
    ),
)


def _custom(agent: pb.CustomSubagent) -> SubagentKind:
    readonly = agent.permission_mode == pb.CUSTOM_SUBAGENT_PERMISSION_MODE_READONLY
    prompt = f"{SUBAGENT_PROMPT}\n\n{agent.prompt.strip()}" if agent.prompt.strip() else ""
    return SubagentKind(
        agent.name.strip(),
        agent.description.strip() or f"The user's subagent {agent.name.strip()}.",
        readonly=readonly,
        prompt=prompt or SUBAGENT_PROMPT,
        model="" if agent.force_default_model else agent.model.strip(),
        custom=True,
    )


def kinds_for(custom: Iterable[pb.CustomSubagent] = ()) -> dict[str, SubagentKind]:
    """The built-in kinds and the user's, by name (a user's subagent never
    replaces a built-in one: the names the client knows keep their meaning)."""
    kinds = {kind.name: kind for kind in BUILTIN_KINDS}
    for agent in custom:
        name = agent.name.strip()
        if name and name.lower() not in {n.lower() for n in kinds}:
            kinds[name] = _custom(agent)
    return kinds


def kind_named(name: str, kinds: Mapping[str, SubagentKind]) -> SubagentKind | None:
    """The kind `name` names (any case; "general-purpose" too); None: unknown."""
    wanted = name.strip().lower().replace("-", "").replace("_", "")
    for kind in kinds.values():
        if kind.name.lower().replace("-", "").replace("_", "") == wanted:
            return kind
    return None


def child_kind(type_name: str, context: pb.RequestContext | None) -> SubagentKind:
    """The kind of a subagent's own run (its request names it): a known one,
    else a general one under that name."""
    kinds = kinds_for(context.custom_subagents if context is not None else ())
    found = kind_named(type_name, kinds) if type_name else None
    return found or SubagentKind(type_name or GENERAL, "", prompt=SUBAGENT_PROMPT)
