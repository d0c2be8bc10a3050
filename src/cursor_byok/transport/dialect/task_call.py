"""The Task tool's arguments: what the model sees, and one call parsed.

The model sends `{description, prompt, subagent_type, model?, readonly?,
resume?, run_in_background?}`. A call is parsed once into a `TaskCall`
with its subagent kind and model already chosen (`subagent_settings`), or
with the reason it cannot run (an unknown type, an empty prompt, a model
the configuration does not know), which becomes the call's error result.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cursor_byok.llm.types import JSONObject, ToolCall
from cursor_byok.loop.state import ConversationState
from cursor_byok.transport.dialect.subagent_settings import (
    ModelProblem,
    SubagentSettings,
    disabled,
    resolve_model,
)
from cursor_byok.transport.dialect.subagent_types import (
    BUILTIN_KINDS,
    GENERAL,
    SubagentKind,
    kind_named,
)
from cursor_byok.transport.dialect.tool_base import object_schema, str_arg
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

TASK_DESCRIPTION = """\
Start a subagent: another agent, with a context of its own, that carries out one task and \
answers with a single final message, which you get as this tool's result. Use it for work \
that would fill your context (a broad search of the workspace, a long investigation) or for \
independent parts of a job; several Task calls in one response run at the same time. The \
subagent sees nothing of this conversation: the prompt must say everything it needs. Each \
result ends with the subagent's agent ID; pass it as `resume` to continue that subagent with \
what it already knows."""


@dataclass(frozen=True, slots=True)
class TaskSetup:
    """What one run's Task tool knows: the kinds it offers, the run
    request's model overrides, the configuration and the parent's model."""

    kinds: Mapping[str, SubagentKind] = field(
        default_factory=lambda: {kind.name: kind for kind in BUILTIN_KINDS}
    )
    overrides: Sequence[pb.SubagentModelOverride] = ()
    settings: SubagentSettings = field(default_factory=SubagentSettings)
    parent_model: str = ""
    readonly_only: bool = False
    """Every subagent is read-only (the parent is in a mode that changes nothing)."""

    def offered(self) -> list[SubagentKind]:
        """The kinds the model may name: those the run request did not turn off."""
        return [kind for kind in self.kinds.values() if not disabled(self.overrides, kind.name)]

    def schema(self) -> JSONObject:
        kinds = self.offered()
        listing = "\n".join(f"- {kind.name}: {kind.description}" for kind in kinds)
        return object_schema(
            {
                "description": {
                    "type": "string",
                    "description": "A short title of the task (3 to 5 words), shown to the user.",
                },
                "prompt": {
                    "type": "string",
                    "description": "The whole task for the subagent, with every detail it needs.",
                },
                "subagent_type": {
                    "type": "string",
                    "enum": [kind.name for kind in kinds],
                    "description": f"Which kind of subagent:\n{listing}",
                },
                "model": {
                    "type": "string",
                    "description": "A model to run it on; leave it out for the usual one.",
                },
                "readonly": {
                    "type": "boolean",
                    "description": "Only read and search: the subagent changes nothing.",
                },
                "resume": {
                    "type": "string",
                    "description": "An agent ID from an earlier Task result: continue that "
                    "subagent, with what it already knows.",
                },
                "run_in_background": {
                    "type": "boolean",
                    "description": "Start it and go on without waiting for its answer.",
                },
            },
            ("description", "prompt", "subagent_type"),
        )


@dataclass(frozen=True, slots=True)
class TaskCall:
    """One Task call, parsed: its kind and model chosen, or its `problem`."""

    call_id: str
    description: str
    prompt: str
    kind: SubagentKind
    model: str
    readonly: bool
    resume: str = ""
    background: bool = False
    problem: str | None = None
    """Why it cannot run (the call's error), or None."""


def _flag(arguments: JSONObject, key: str) -> bool:
    value = arguments.get(key)
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value is True


def parse_task(call: ToolCall, setup: TaskSetup) -> TaskCall:
    """The call as the server runs it (its arguments may be partial while
    they stream: a card is drawn from what has come)."""
    arguments = call.arguments
    type_name = str_arg(arguments, "subagent_type").strip() or GENERAL
    problem = None
    kind = kind_named(type_name, setup.kinds)
    if kind is None:
        known = ", ".join(k.name for k in setup.offered())
        problem = f"unknown subagent_type {type_name!r}; use one of: {known}"
        kind = SubagentKind(type_name, "")
    prompt = str_arg(arguments, "prompt")
    if problem is None and not prompt.strip():
        problem = "the prompt is empty: say what the subagent should do"
    model = resolve_model(
        str_arg(arguments, "model"),
        kind.name,
        setup.overrides,
        kind.model,
        setup.settings,
        setup.parent_model,
    )
    if isinstance(model, ModelProblem):
        problem = problem or model.message
        model = ""
    return TaskCall(
        call.id,
        str_arg(arguments, "description").strip(),
        prompt,
        kind,
        model,
        readonly=setup.readonly_only or kind.readonly or _flag(arguments, "readonly"),
        resume=str_arg(arguments, "resume").strip(),
        background=_flag(arguments, "run_in_background"),
        problem=problem,
    )


class TaskParser(Protocol):
    """What a Task call needs of its tool (`task_tool.TaskTool`)."""

    name: str

    def parse(self, call: ToolCall) -> TaskCall: ...


def following_tasks(
    tool: TaskParser, call: ToolCall, state: ConversationState
) -> Iterator[tuple[ToolCall, TaskCall]]:
    """The Task calls right after `call` in its response, in order, while
    `call` is the one asked: up to a call of another tool (the calls after
    it wait for it, as the model asked) or one that does not parse."""
    waiting = state.waiting
    if waiting is None or waiting.current.id != call.id:
        return
    for following in waiting.tool_calls[waiting.next + 1 :]:
        if following.name != tool.name:
            return
        task = tool.parse(following)
        if task.problem is not None:
            return
        yield following, task
