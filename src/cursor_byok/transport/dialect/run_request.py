"""A run request, decoded: which action starts (or resumes) a turn, with what
model, tools, environment and rules.

Three actions start a turn: a user message, `start_plan_action` (plan mode:
the model plans with read-only tools and edits nothing) and
`execute_plan_action` (carry out the plan already in the conversation).
An answer the user gave later to a question the model asked
(`async_ask_question_completion_action`) starts one too, as the user's
message. `resume_action` picks up the turn in flight. Any other action is refused
with a clear error rather than treated as a resume, which would drop what
the user asked for.

The client's `RequestContext` (environment, rules, MCP tools) rides on the
action. The plan actions and the CLI's print mode send none; the session
then asks for it (`request_context_args`) and decodes again with the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cursor_byok.llm.image_fit import attached_image
from cursor_byok.llm.types import ImageContent, TextContent, UserMessage
from cursor_byok.loop.inputs import Compact, Start
from cursor_byok.loop.state import TurnSettings
from cursor_byok.transport.connect.errors import Code, ErrorDetail, WireError
from cursor_byok.transport.dialect.bound_tools import bound_tools
from cursor_byok.transport.dialect.carried import carried_state
from cursor_byok.transport.dialect.clients import (
    CAUTIOUS,
    UNKNOWN_CLIENT,
    Capabilities,
    ClientHeaders,
    capabilities,
)
from cursor_byok.transport.dialect.ids import invalid_id, is_valid_id
from cursor_byok.transport.dialect.meter import tool_characters
from cursor_byok.transport.dialect.modes import (
    ASK,
    ASK_PROMPT,
    LOOKING,
    PLAN,
    PLAN_ONLY,
    READ_ONLY,
    run_mode,
)
from cursor_byok.transport.dialect.question_tool import answered_later
from cursor_byok.transport.dialect.subagent_child import child_prompt, child_tools
from cursor_byok.transport.dialect.tools import McpTool, Tool, ToolSet
from cursor_byok.transport.dialect.transcript import action_transcript, has_images
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb

SYSTEM_PROMPT = """\
You are a coding agent working inside the user's editor. Use the tools to read, search and \
change the user's workspace and to run commands; do not guess file contents you can read. \
Make focused changes, explain briefly what you did, and ask when a request is ambiguous."""

PLAN_PROMPT = """\
You are in plan mode. Study the workspace with the read-only tools and write a concrete, \
step-by-step plan for the user's request: the files to change, what changes in each, and how \
to check the result (with CreatePlan when it is offered). Do not edit files or run commands; \
the plan is carried out later."""

EXECUTE_PLAN_TEXT = "Carry out the plan above, step by step."

STARTING_ACTIONS = (
    "user_message_action",
    "start_plan_action",
    "execute_plan_action",
    "async_ask_question_completion_action",
)
RESUMING_ACTIONS = ("resume_action", None)


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A run request: a new turn (`start`), a summary asked for (`Compact`,
    the CLI's /compress) or a resume of the current turn (None).
    `needs_context`: the turn should wait for the client's request context,
    asked with `request_context_args`, before it starts."""

    conversation_id: str
    start: Start | Compact | None
    tools: ToolSet
    model: str
    characters: Mapping[str, int] = field(default_factory=dict)
    """Characters of the prompt parts the server builds, by meter category."""
    needs_context: bool = False
    run: pb.AgentRunRequest | None = None
    user_message: pb.UserMessage | None = None
    """The message that opens the turn, for the client's checkpoints."""
    prior_turns: tuple[bytes, ...] = ()
    """The turns of the checkpoint the client sent back."""
    needs_blobs: tuple[bytes, ...] = ()
    """Blob ids of attached images the client sent without their bytes: the
    turn should wait for them (KV `get_blob`), then decode `run` again with
    them and `context`."""
    context: pb.RequestContext | None = None
    capabilities: Capabilities = CAUTIOUS
    """What the client can show and answer (its tools are already chosen by it)."""
    prior_todos: tuple[bytes, ...] = ()
    """The to-do blob ids of the checkpoint the client sent back (it has them)."""
    prior_plan: bytes = b""
    """The plan's blob id in that checkpoint (`checkpoints.TurnBlobs.carry_state`)."""
    prior_answered: tuple[str, ...] = ()
    """The questions it lists as answered, and one this run answers later."""
    project_folder: str = ""
    """The client's folder for this project (`RequestContextEnv.project_folder`,
    outside the workspace): where a server tool may write a file for it."""
    mode: str = "agent"
    """The conversation's mode for this run (`modes`)."""
    prior_subagents: Mapping[str, pb.SubagentPersistedState] = field(default_factory=dict)
    """The subagents of the checkpoint the client sent back, by agent id."""
    client_turns: tuple[bytes, ...] | None = None
    """The turns of the `conversation_state` the client sent (None: it sent
    none, as the built-in clients do): where in history it stands (`loop.forks`)."""


@dataclass(frozen=True, slots=True)
class Refused:
    """A run request the server will not take; the stream ends with `error`."""

    error: WireError


def error_banner(
    kind: errors_pb.ErrorDetails.Error, title: str, detail: str, retryable: bool
) -> ErrorDetail:
    """The `ErrorDetails` Cursor draws its banner from; without one the
    client drops the error silently."""
    details = errors_pb.ErrorDetails(
        error=kind,
        details=errors_pb.CustomErrorDetails(
            title=title, detail=detail, is_retryable=retryable, show_request_id=True
        ),
        is_expected=True,
    )
    return ErrorDetail.of(details)


def retry_banner(title: str, detail: str) -> ErrorDetail:
    """A banner whose error the client retries (reconnecting, resuming the turn)."""
    return error_banner(errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE, title, detail, True)


def refused_error(action: str) -> WireError:
    """A run request asking for something this server does not do: said
    plainly, never mistaken for a resume that would drop the request."""
    text = f"cursor-byok does not support the {action.replace('_', ' ')} yet"
    banner = error_banner(errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE, "Not supported", text, False)
    return WireError(Code.UNIMPLEMENTED, text, (banner,))


def _requested_model(run: pb.AgentRunRequest) -> str:
    if run.HasField("requested_model") and run.requested_model.model_id:
        return run.requested_model.model_id
    return run.model_details.model_id


def action_context(action: pb.ConversationAction) -> pb.RequestContext | None:
    """The request context the action carries, or None when it has none."""
    branch = action.WhichOneof("action")
    if branch is None:
        return None
    chosen = getattr(action, branch)
    if "request_context" in chosen.DESCRIPTOR.fields_by_name and chosen.HasField("request_context"):
        context: pb.RequestContext = chosen.request_context
        return context
    return None


def decode_run_request(
    run: pb.AgentRunRequest,
    request_id: str,
    now_ms: int,
    context: pb.RequestContext | None = None,
    asked: bool = False,
    blobs: Mapping[bytes, bytes | None] | None = None,
    client: ClientHeaders = UNKNOWN_CLIENT,
    extra: Sequence[Tool] = (),
) -> RunStarted | Refused:
    """Decode a run request. `context` replaces the action's own (the answer
    to `request_context_args`); `asked` says that question was already put,
    so a turn is never held twice. `blobs`: the images asked from the
    client's KV store (None: not asked yet; a missing one maps to None).
    `client`: who the request's headers say it comes from; `extra`: the
    tools the server's configuration adds (`ToolSet.for_run`)."""
    conversation_id = run.conversation_id or request_id
    if not is_valid_id(conversation_id):
        text = invalid_id("conversation_id")
        banner = error_banner(errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE, "Refused", text, False)
        return Refused(WireError(Code.INVALID_ARGUMENT, text, (banner,)))
    action = run.action
    branch = action.WhichOneof("action")
    todos = tuple(run.conversation_state.todos)
    plan, answered = carried_state(run)
    prior = tuple(run.conversation_state.turns)
    held = prior if run.HasField("conversation_state") else None
    if branch == "summarize_action":
        caps = capabilities(client, run)
        tools = ToolSet.for_run(client=caps, extra=bound_tools(extra, run, None, caps, False))
        summarize = Compact()
        model = _requested_model(run)
        return RunStarted(
            conversation_id, summarize, tools, model, capabilities=caps, client_turns=held
        )
    if branch not in STARTING_ACTIONS and branch not in RESUMING_ACTIONS:
        return Refused(refused_error(str(branch)))
    if context is None:
        context = action_context(action)
    caps = capabilities(client, run, context)
    definitions: Iterable[pb.McpToolDefinition] = run.mcp_tools.mcp_tools
    if context is not None:
        definitions = [*definitions, *context.tools]
    model = _requested_model(run)
    mode = run_mode(run)
    looking = mode in LOOKING  # nothing that changes the workspace
    only = child_tools(run, context, READ_ONLY if looking else None)
    extra = bound_tools(extra, run, context, caps, looking)
    left_out = frozenset() if mode == PLAN else PLAN_ONLY
    tools = ToolSet.for_run(definitions, only=only, client=caps, extra=extra, left_out=left_out)
    subagents = dict(run.conversation_state.subagent_states)
    if branch in RESUMING_ACTIONS:
        return RunStarted(
            conversation_id,
            None,
            tools,
            model,
            prior_turns=prior,
            capabilities=caps,
            prior_todos=todos,
            mode=mode,
            prior_subagents=subagents,
            prior_plan=plan,
            prior_answered=answered,
            client_turns=held,
        )
    if context is None and not asked:
        return RunStarted(conversation_id, None, tools, model, needs_context=True, run=run)
    user = _action_user(action)
    needed = () if user is None or blobs is not None else _blobs_needed(user)
    if needed:
        return RunStarted(
            conversation_id, None, tools, model, run=run, needs_blobs=needed, context=context
        )
    context = context or pb.RequestContext()
    # A subagent reads its own words instead (read-only ones, as ask mode).
    modal = "" if caps.child_run else {PLAN: PLAN_PROMPT, ASK: ASK_PROMPT}.get(mode, "")
    parts = [SYSTEM_PROMPT, modal, _environment(context.env)]
    rules = _rules(context)
    parts += [rules, "" if looking else _mcp_instructions(context)]
    parts += [run.custom_system_prompt, child_prompt(run, context)]
    prompt = "\n\n".join(part for part in parts if part)
    settings = TurnSettings(model=model, system_prompt=prompt, tools=tools.definitions())
    content = _action_text(action, blobs or {})
    history = action_transcript(action, now_ms)
    start = Start(UserMessage(content, now_ms), settings=settings, history=history)
    mcp = [t.definition() for t in tools.tools.values() if isinstance(t, McpTool)]
    mcp_characters = tool_characters(mcp)
    characters = {
        "system_prompt": len(prompt) - len(rules),
        "rules": len(rules),
        "tools": tool_characters(settings.tools) - mcp_characters,
        "mcp": mcp_characters,
    }
    opening = _opening_message(action, content)
    return RunStarted(
        conversation_id,
        start,
        tools,
        model,
        characters,
        user_message=opening,
        prior_turns=prior,
        capabilities=caps,
        prior_todos=todos,
        mode=mode,
        prior_subagents=subagents,
        prior_plan=plan,
        prior_answered=answered,
        project_folder=context.env.project_folder,
        client_turns=held,
    )


def _opening_message(
    action: pb.ConversationAction, content: str | tuple[TextContent | ImageContent, ...]
) -> pb.UserMessage:
    """The client's own message, or one made for an action that has none."""
    own = _action_user(action)
    if own is not None:
        return own
    return pb.UserMessage(text=content if isinstance(content, str) else EXECUTE_PLAN_TEXT)


def carries_images(message: pb.AgentClientMessage) -> bool:
    """Whether decoding `message` fits attached images (`llm.image_fit`: up
    to a few hundred ms of CPU each), work for a worker thread rather than
    the event loop."""
    match message.WhichOneof("message"):
        case "run_request":
            user = _action_user(message.run_request.action)
        case "conversation_action":
            user = _action_user(message.conversation_action)
        case _:
            return False
    images = user is not None and len(user.selected_context.selected_images) > 0
    return images or has_images(message.run_request.action)


def _action_user(action: pb.ConversationAction) -> pb.UserMessage | None:
    """The user's own message in an action that opens a turn, if it has one."""
    match action.WhichOneof("action"):
        case "user_message_action":
            return action.user_message_action.user_message
        case "start_plan_action":
            return action.start_plan_action.user_message
        case _:
            return None


def _action_text(
    action: pb.ConversationAction, blobs: Mapping[bytes, bytes | None]
) -> str | tuple[TextContent | ImageContent, ...]:
    """What the user asked for, as the message that opens the turn."""
    user = _action_user(action)
    match user:
        case pb.UserMessage():
            return user_content(user, blobs)
        case _ if action.HasField("async_ask_question_completion_action"):
            return answered_later(action.async_ask_question_completion_action)
        case _:
            execute = action.execute_plan_action
            if execute.plan_file_content.strip():
                plan = execute.plan_file_content.strip()
                return f"{EXECUTE_PLAN_TEXT}\n\n<plan>\n{plan}\n</plan>"
            return EXECUTE_PLAN_TEXT


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


def _mcp_instructions(context: pb.RequestContext) -> str:
    """What the user's MCP servers say about using their tools."""
    blocks = [
        f'<mcp_server name="{i.server_name}">\n{i.instructions.strip()}\n</mcp_server>'
        for i in context.mcp_instructions
        if i.instructions.strip()
    ]
    return "How to use the MCP tools:\n" + "\n".join(blocks) if blocks else ""


def user_content(
    user: pb.UserMessage, blobs: Mapping[bytes, bytes | None]
) -> str | tuple[TextContent | ImageContent, ...]:
    """The user's text, preceded by what they attached (files, selections,
    images): one new message, so nothing earlier in history changes.
    `blobs`: the bytes of images sent by blob id, fetched from the client."""
    if not user.HasField("selected_context"):  # most messages: nothing attached
        return user.text
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
        block = _attached_image(image, blobs)
        if block is not None:
            blocks.append(block)
    if not blocks:
        return user.text
    return (*blocks, TextContent(user.text))


NOT_FETCHED = "[an attached image was left out: the client did not send its bytes]"


def _blob_of(image: pb.SelectedImage) -> bytes | None:
    """The blob id of an image whose bytes are only in the client's KV store."""
    match image.WhichOneof("data_or_blob_id"):
        case "blob_id":
            return image.blob_id
        case "blob_id_with_data" if not image.blob_id_with_data.data:
            return image.blob_id_with_data.blob_id
        case _:
            return None


def _blobs_needed(user: pb.UserMessage) -> tuple[bytes, ...]:
    """The blob ids to ask the client for, each once, in order."""
    found = (_blob_of(image) for image in user.selected_context.selected_images)
    return tuple(dict.fromkeys(blob for blob in found if blob))


def _attached_image(
    image: pb.SelectedImage, blobs: Mapping[bytes, bytes | None]
) -> TextContent | ImageContent | None:
    """One attached image for the model, in whichever form it came; a note
    when its bytes are missing; None for an entry with nothing in it."""
    match image.WhichOneof("data_or_blob_id"):
        case "data":
            data: bytes | None = image.data
        case "blob_id_with_data" if image.blob_id_with_data.data:
            data = image.blob_id_with_data.data
        case None:
            return None
        case _:
            blob = _blob_of(image)
            data = blobs.get(blob) if blob else None
    if not data:
        return TextContent(NOT_FETCHED)
    # Typed by its bytes, fitted to the providers' limits (`image_fit`).
    return attached_image(data, image.mime_type)
