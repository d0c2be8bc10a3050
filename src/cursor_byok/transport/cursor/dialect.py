"""The Cursor dialect: protobuf <-> the loop's inputs and the model's events.

Decode and encode only (seed §9). The dialect adds the protocol's
correlation ids (exec numbers, tool call ids, model call ids) but never
edits history, guesses tool calls from text, decides retries, runs tools or
keeps loop state. Order of a turn on the wire (protocol reference §3):
deltas -> tool_call_started -> checkpoint -> exec request -> (client result)
-> tool_call_completed -> ... -> checkpoint with token details ->
turn_ended with usage -> end of stream.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias, assert_never

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from cursor_byok.llm.types import (
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from cursor_byok.loop.commands import (
    CallClient,
    Canceled,
    Emit,
    Failed,
    Final,
    SummaryDone,
    SummaryStarted,
)
from cursor_byok.loop.inputs import Compact, Start
from cursor_byok.loop.state import TurnSettings
from cursor_byok.transport.cursor import meter
from cursor_byok.transport.cursor.ids import invalid_id, is_valid_id
from cursor_byok.transport.cursor.meter import add_usage, tool_characters, turn_ended
from cursor_byok.transport.cursor.tools import McpTool, NativeTool, ToolOutcome, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb
from cursor_byok.transport.wire.errors import Code, ErrorDetail, WireError

SYSTEM_PROMPT = """\
You are a coding agent working inside the user's editor. Use the tools to read, search and \
change the user's workspace and to run commands; do not guess file contents you can read. \
Make focused changes, explain briefly what you did, and ask when a request is ambiguous."""


# -- decoding: what the client sent ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A run request: a new turn (`start`), a summary asked for (`Compact`,
    the CLI's /compress) or a resume of the current turn (None)."""

    conversation_id: str
    start: Start | Compact | None
    tools: ToolSet
    model: str
    characters: Mapping[str, int] = field(default_factory=dict)
    """Characters of the prompt parts the server builds, by meter category."""


@dataclass(frozen=True, slots=True)
class ExecReply:
    """One exec message from the client (a result, or a piece of a shell stream)."""

    number: int
    exec_id: str
    message: pb.ExecClientMessage


@dataclass(frozen=True, slots=True)
class ExecThrown:
    """The client declined or failed an exec (`exec_client_control_message.throw`)."""

    number: int
    error: str


@dataclass(frozen=True, slots=True)
class CancelRequested:
    reason: str


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A user message typed while the turn is running."""

    message: UserMessage


@dataclass(frozen=True, slots=True)
class Refused:
    """A run request the server will not take; the stream ends with `error`."""

    error: WireError


@dataclass(frozen=True, slots=True)
class Ignored:
    """Understood, and needs nothing (heartbeats, KV acks, stream closes)."""

    what: str


ClientEvent: TypeAlias = (
    RunStarted | ExecReply | ExecThrown | CancelRequested | FollowUp | Refused | Ignored
)


def _requested_model(run: pb.AgentRunRequest) -> str:
    if run.HasField("requested_model") and run.requested_model.model_id:
        return run.requested_model.model_id
    return run.model_details.model_id


def decode_run_request(
    run: pb.AgentRunRequest, request_id: str, now_ms: int
) -> RunStarted | Refused:
    conversation_id = run.conversation_id or request_id
    if not is_valid_id(conversation_id):
        return Refused(WireError(Code.INVALID_ARGUMENT, invalid_id("conversation_id")))
    tools = ToolSet.for_run(run.mcp_tools.mcp_tools)
    model = _requested_model(run)
    action = run.action
    branch = action.WhichOneof("action")
    if branch == "summarize_action":
        return RunStarted(conversation_id, Compact(), tools, model)
    if branch != "user_message_action":
        return RunStarted(conversation_id, None, tools, model)
    user = action.user_message_action.user_message
    context = action.user_message_action.request_context
    rules = _rules(context)
    parts = [SYSTEM_PROMPT, _environment(context.env), rules]
    if run.custom_system_prompt:
        parts.append(run.custom_system_prompt)
    prompt = "\n\n".join(part for part in parts if part)
    settings = TurnSettings(model=model, system_prompt=prompt, tools=tools.definitions())
    start = Start(UserMessage(_user_content(user), now_ms), settings=settings)
    mcp = [t.definition() for t in tools.tools.values() if isinstance(t, McpTool)]
    characters = {
        "system_prompt": len(prompt) - len(rules),
        "rules": len(rules),
        "tools": tool_characters(settings.tools) - tool_characters(mcp),
        "mcp": tool_characters(mcp),
    }
    return RunStarted(conversation_id, start, tools, model, characters)


def _environment(env: pb.RequestContextEnv) -> str:
    """Where the agent works, as the client describes it (paths, OS, shell)."""
    lines = []
    if env.workspace_paths:
        lines.append("Workspace: " + ", ".join(env.workspace_paths))
    if env.process_working_directory:
        lines.append(f"Working directory: {env.process_working_directory}")
    if env.os_version:
        lines.append(f"Operating system: {env.os_version}")
    if env.shell:
        lines.append(f"Shell: {env.shell}")
    if env.time_zone:
        lines.append(f"Time zone: {env.time_zone}")
    return "\n".join(["<environment>", *lines, "</environment>"]) if lines else ""


def _rules(context: pb.RequestContext) -> str:
    """The user's and the project's rules, which the model must follow."""
    rules = [r for r in (*context.rules, *context.non_file_rules) if r.content.strip()]
    if not rules:
        return ""
    blocks = [f'<rule path="{r.full_path}">\n{r.content.strip()}\n</rule>' for r in rules]
    return "Rules to follow:\n" + "\n".join(blocks)


def _user_content(user: pb.UserMessage) -> str | tuple[TextContent | ImageContent, ...]:
    """The user's text, preceded by what they attached (files, selections,
    images): one new message, so nothing earlier in history changes."""
    selected = user.selected_context
    blocks: list[TextContent | ImageContent] = []
    for file in selected.files:
        path = file.relative_path or file.path
        blocks.append(
            TextContent(f'<attached_file path="{path}">\n{file.content}\n</attached_file>')
        )
    for code in selected.code_selections:
        path = code.relative_path or code.path
        blocks.append(TextContent(f'<selection path="{path}">\n{code.content}\n</selection>'))
    blocks.extend(TextContent(extra) for extra in selected.extra_context if extra.strip())
    for image in selected.selected_images:
        if image.WhichOneof("data_or_blob_id") == "data" and image.data:
            data = base64.b64encode(image.data).decode("ascii")
            blocks.append(ImageContent(data, image.mime_type or "image/png"))
    if not blocks:
        return user.text
    return (*blocks, TextContent(user.text))


def decode_client_message(
    message: pb.AgentClientMessage, request_id: str, now_ms: int
) -> ClientEvent:
    kind = message.WhichOneof("message")
    match kind:
        case "run_request":
            return decode_run_request(message.run_request, request_id, now_ms)
        case "exec_client_message":
            reply = message.exec_client_message
            return ExecReply(reply.id, reply.exec_id, reply)
        case "exec_client_control_message":
            control = message.exec_client_control_message
            if control.WhichOneof("message") == "throw":
                error = control.throw.error or "the client declined the tool call"
                return ExecThrown(control.throw.id, error)
            return Ignored(f"exec control {control.WhichOneof('message')}")
        case "conversation_action":
            action = message.conversation_action
            branch = action.WhichOneof("action")
            if branch == "cancel_action":
                return CancelRequested(action.cancel_action.reason or "canceled by the user")
            if branch == "user_message_action":
                text = action.user_message_action.user_message.text
                return FollowUp(UserMessage(text, now_ms))
            return Ignored(f"conversation action {branch}")
        case None:
            return Ignored("empty client message")
        case _:
            return Ignored(kind)


def tool_result_message(call: ToolCall, outcome: ToolOutcome, now_ms: int) -> ToolResultMessage:
    return ToolResultMessage(
        call.id, call.name, (TextContent(outcome.text),), outcome.is_error, now_ms
    )


# -- encoding: what the client is sent -----------------------------------------------


@dataclass(slots=True)
class StreamContext:
    """Per-stream protocol state: exec numbering, the turn's usage, timings."""

    stream_id: str = ""
    model_call_id: str = ""
    model_calls: int = 0
    context_window: int = 200_000
    next_exec: int = 1
    usage: Usage = field(default_factory=Usage)
    last_prompt_tokens: int = 0
    thinking_started: float | None = None
    tool_names: dict[str, str] = field(default_factory=dict)
    characters: dict[str, int] = field(default_factory=dict)
    """Characters of the prompt by meter category, as far as known."""

    def exec_number(self) -> int:
        number = self.next_exec
        self.next_exec += 1
        return number


def _update(**branch: object) -> pb.AgentServerMessage:
    return pb.AgentServerMessage(interaction_update=pb.InteractionUpdate(**branch))  # type: ignore[arg-type]


def heartbeat() -> pb.AgentServerMessage:
    return _update(heartbeat=pb.HeartbeatUpdate())


def checkpoint(context: StreamContext) -> pb.AgentServerMessage:
    return meter.checkpoint(context.last_prompt_tokens, context.context_window, context.characters)


def encode_event(
    event: Emit, context: StreamContext, tools: ToolSet, now: float
) -> list[pb.AgentServerMessage]:
    """A model or loop event as the messages Cursor renders; most events map
    to one update, bookkeeping events (start, text start/end) to none."""
    match event:
        case SummaryStarted():
            return [_update(summary_started=pb.SummaryStartedUpdate())]
        case SummaryDone(summary=summary):
            # Requests now start from the summary: the meter drops to it.
            characters = context.characters
            characters.update({meter.SUMMARY: len(summary), meter.CONVERSATION: 0})
            context.last_prompt_tokens = meter.estimated_tokens(characters)
            return [
                _update(summary=pb.SummaryUpdate(summary=summary)),
                _update(summary_completed=pb.SummaryCompletedUpdate()),
            ]
        case StartEvent():
            context.model_calls += 1
            context.model_call_id = f"{context.stream_id}:model:{context.model_calls}"
            return []
        case TextDelta(delta=delta) if delta:
            return [_update(text_delta=pb.TextDeltaUpdate(text=delta))]
        case ThinkingStart():
            context.thinking_started = now
            return []
        case ThinkingDelta(delta=delta) if delta:
            update = pb.ThinkingDeltaUpdate(text=delta, thinking_style=pb.THINKING_STYLE_DEFAULT)
            return [_update(thinking_delta=update)]
        case ThinkingEnd():
            started = context.thinking_started if context.thinking_started is not None else now
            context.thinking_started = None
            duration = int((now - started) * 1000)
            return [
                _update(
                    thinking_completed=pb.ThinkingCompletedUpdate(thinking_duration_ms=duration)
                )
            ]
        case ToolCallStart(id=call_id, name=name):
            context.tool_names[call_id] = name
            tool = tools.get(name)
            if tool is None:
                return []
            card = tool.card(ToolCall(call_id, name, {}), None)
            partial = pb.PartialToolCallUpdate(
                call_id=call_id, tool_call=card, model_call_id=context.model_call_id
            )
            return [_update(partial_tool_call=partial)]
        case DoneEvent(message=message):
            usage = message.usage
            context.usage = add_usage(context.usage, usage)
            context.last_prompt_tokens = usage.input + usage.cache_read + usage.cache_write
            return []
        case (
            TextStart()
            | TextDelta()
            | TextEnd()
            | ThinkingDelta()
            | ToolCallDelta()
            | ToolCallEnd()
            | ErrorEvent()
        ):
            return []  # bookkeeping, or shown otherwise (an error ends the stream)
        case _:
            assert_never(event)


def encode_call_client(
    command: CallClient, tool: NativeTool, context: StreamContext, request: pb.ExecServerMessage
) -> list[pb.AgentServerMessage]:
    """tool_call_started -> checkpoint -> the exec request (built by the exec tracker)."""
    call = command.tool_call
    started = pb.ToolCallStartedUpdate(
        call_id=call.id, tool_call=tool.card(call, None), model_call_id=context.model_call_id
    )
    return [
        _update(tool_call_started=started),
        checkpoint(context),
        pb.AgentServerMessage(exec_server_message=request),
    ]


def encode_tool_completed(
    call: ToolCall, tool: NativeTool, result: pb.ExecClientMessage | None, context: StreamContext
) -> pb.AgentServerMessage:
    completed = pb.ToolCallCompletedUpdate(
        call_id=call.id, tool_call=tool.card(call, result), model_call_id=context.model_call_id
    )
    return _update(tool_call_completed=completed)


def encode_final(command: Final, context: StreamContext) -> list[pb.AgentServerMessage]:
    """The closing sequence: checkpoint with token details, then turn_ended."""
    del command
    return [checkpoint(context), turn_ended(context.usage)]


def error_for(outbound: Failed | Canceled) -> WireError:
    """What ends a failed or canceled stream: a Connect error whose details
    give Cursor's banner a title, a detail and a retry button."""
    if isinstance(outbound, Canceled):
        return WireError(Code.CANCELED, f"[canceled] {outbound.reason}")
    text = outbound.message.error_message or "the model call failed"
    details = errors_pb.ErrorDetails(
        error=errors_pb.ErrorDetails.ERROR_PROVIDER_ERROR,
        details=errors_pb.CustomErrorDetails(
            title="The model provider returned an error",
            detail=text,
            is_retryable=True,
            show_request_id=True,
        ),
        is_expected=True,
    )
    return WireError(Code.UNAVAILABLE, text, (ErrorDetail.of(details),))
