"""How subagents run, and which model each one gets.

Two ways to run a subagent (protocol/agent-features.md §5.2): the client
runs it (`exec subagent_args`: it starts a child run against this server and
answers with the child's last message), or the server runs the child's loop
itself. `subagent_mode` is the one place that chooses, from the client's
row of the table and the `[subagents] mode` setting; the Task tool is
offered only where it says a mode.

A subagent's model, in this order: the Task call's own `model`; the run
request's `subagent_model_overrides` for its type (disabled, a model, or
the parent's); a custom subagent's own model; `[subagents] subagent_model`;
else the parent's model. A model the configuration does not know is a clear
error in the Task's result, never a crash.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from cursor_byok.transport.dialect.clients import Capabilities
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

Mode = Literal["auto", "client", "server"]
MODES: tuple[Mode, ...] = ("auto", "client", "server")

SUBAGENT_WAIT_S = 60 * 60.0
"""How long a parent waits for a subagent the client runs: long (a child
may work many minutes), but bounded, so a client that never answers does
not hold the turn for ever."""

INHERIT = ("", "inherit")
"""A custom subagent's `model` that means "the parent's"."""


@dataclass(frozen=True, slots=True)
class SubagentSettings:
    """The `[subagents]` table, as the transport needs it."""

    mode: Mode = "auto"
    model: str | None = None
    """`subagent_model`: a configured model name; None: the parent's."""
    wait_s: float = SUBAGENT_WAIT_S
    """`wait_s`: how long a parent waits for a client-run subagent."""
    known_models: frozenset[str] = frozenset()
    """The model names (and provider model ids) the configuration knows;
    empty: not checked."""
    server_side: bool = False
    """Whether this build runs subagents on the server (mode B)."""

    def knows(self, model: str) -> bool:
        return not self.known_models or model in self.known_models


def subagent_mode(client: Capabilities, settings: SubagentSettings) -> str | None:
    """Where a Task call of this run is carried out: "client", "server", or
    None when nowhere (the Task tool is then not offered). Never inside a
    subagent's own run: subagents are one level deep."""
    if client.child_run or not client.draws("task_tool_call"):
        return None
    wanted = settings.mode
    if wanted == "auto":
        wanted = "client" if client.subagents else "server"
    if wanted == "client" and client.subagents:
        return "client"
    if wanted == "server" and settings.server_side:
        return "server"
    return None


@dataclass(frozen=True, slots=True)
class ModelProblem:
    """Why no model could be chosen (the Task call's error)."""

    message: str


def _override(
    overrides: Iterable[pb.SubagentModelOverride], type_name: str
) -> pb.SubagentModelOverride | None:
    """The run request's override for this type (by name, any case); one
    for "" or "*" applies to every type."""
    wanted = type_name.lower()
    found = None
    for override in overrides:
        name = override.subagent_type.strip().lower()
        if name == wanted:
            return override
        if name in ("", "*") and found is None:
            found = override
    return found


def resolve_model(
    requested: str,
    type_name: str,
    overrides: Iterable[pb.SubagentModelOverride],
    own_model: str,
    settings: SubagentSettings,
    parent_model: str,
) -> str | ModelProblem:
    """The model a subagent of `type_name` runs on (the order is above).
    `requested`: the Task call's `model` ("" none); `own_model`: a custom
    subagent's. Only the model's choice is checked against the
    configuration: the client's and the configuration's are routed as the
    parent's model is."""
    requested = requested.strip()
    if requested:
        if not settings.knows(requested):
            known = ", ".join(sorted(settings.known_models))
            return ModelProblem(f"unknown model {requested!r}; the configured models: {known}")
        return requested
    override = _override(overrides, type_name)
    if override is not None:
        match override.WhichOneof("selection"):
            case "disabled" if override.disabled:
                return ModelProblem(f"subagents of type {type_name!r} are turned off")
            case "model" if override.model.model_id:
                return override.model.model_id
            case "inherit":
                return parent_model
    if own_model.strip() not in INHERIT:
        return own_model.strip()
    return settings.model or parent_model


def disabled(overrides: Iterable[pb.SubagentModelOverride], type_name: str) -> bool:
    """Whether the run request turns subagents of this type off."""
    override = _override(overrides, type_name)
    return override is not None and override.WhichOneof("selection") == "disabled"
