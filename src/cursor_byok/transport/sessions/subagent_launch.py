"""One server-run subagent's run: its child session, its first input, and
the wait for its end (`Subagents` keeps them).

A launch starts (or finds) the child's turn and waits for it to end; it is
a task of its own, so the children of one model response run at the same
time although the parent's loop takes their results one by one. Until the
parent's run of its Task call attaches (`ChildSession.shown`), the child's
updates are held, so the client sees each card's updates after its
started card; its execs go out at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace

from cursor_byok.llm.types import AssistantMessage, ToolCall, ToolDefinition, UserMessage
from cursor_byok.loop.commands import CallClient, Canceled, Failed, Final
from cursor_byok.loop.inputs import Start, ToolResult
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState, Status, SubagentOf
from cursor_byok.runtime.outbound import Outbound
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.owners import client_id_of, owner_of, scoped
from cursor_byok.transport.dialect import modes
from cursor_byok.transport.dialect.dialect import tool_result_message
from cursor_byok.transport.dialect.input_ids import tool_result_id
from cursor_byok.transport.dialect.interrupted import repeatable
from cursor_byok.transport.dialect.server_tool import ServerTool
from cursor_byok.transport.dialect.subagent_types import READONLY_TOOLS
from cursor_byok.transport.dialect.task_call import TaskCall
from cursor_byok.transport.dialect.task_tool import TaskTool
from cursor_byok.transport.dialect.tools import Tool, ToolOutcome, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.child_session import APPROVED_QUERIES, ChildSession
from cursor_byok.transport.sessions.server_runs import ServerRuns
from cursor_byok.transport.sessions.session import Session
from cursor_byok.transport.sessions.sink import OutputSink

CHILD_MARK = "~"
"""Between a parent's id and its child's digest: never in a client's id."""

NOT_FOR_CHILDREN = frozenset({"Task", "AskQuestion", "SwitchMode", "CreatePlan"})
"""No person to ask, and no grandchildren."""


DIGEST_CHARS = 20
"""Hex characters of a Task call id's digest in its child's conversation id."""


def _digest(tool_call_id: str) -> str:
    return hashlib.sha256(tool_call_id.encode()).hexdigest()[:DIGEST_CHARS]


def child_conversation_id(parent_id: str, tool_call_id: str) -> str:
    """The child conversation of the parent's Task call `tool_call_id`."""
    parent = client_id_of(parent_id)
    return scoped(owner_of(parent_id), f"{parent}{CHILD_MARK}{_digest(tool_call_id)}")


def parent_of(child_id: str) -> str | None:
    """The parent conversation of a child's key (None: not a child)."""
    client = client_id_of(child_id)
    if CHILD_MARK not in client:
        return None
    return scoped(owner_of(child_id), client.split(CHILD_MARK, 1)[0])


def start_id(child_id: str, tool_call_id: str) -> str:
    """The input id of the child's turn the Task call `tool_call_id` starts."""
    return f"{child_id}:task:{_digest(tool_call_id)}"


def child_tools(parent: ToolSet, task: TaskCall) -> ToolSet:
    """The parent's tools a child may use: those its kind allows (a
    read-only one only those that look), web search and fetch (which it
    may use unasked), never one that asks a person or starts a subagent."""
    allowed = task.kind.tools
    if allowed is None and task.readonly:
        allowed = READONLY_TOOLS
    kept: dict[str, Tool] = {}
    for name, tool in parent.tools.items():
        if name in NOT_FOR_CHILDREN:
            continue
        if any(query not in APPROVED_QUERIES for query in tool.queries):
            continue
        web = isinstance(tool, ServerTool) and bool(tool.queries)
        if allowed is not None and name not in allowed and not web:
            continue
        kept[name] = tool
    return ToolSet(kept)


def waits_for(state: ConversationState, call_id: str) -> bool:
    """Whether the conversation waits for the result of tool call `call_id`."""
    waiting = state.waiting
    return (
        state.status is Status.WAITING_CLIENT
        and waiting is not None
        and waiting.current.id == call_id
    )


@dataclass(eq=False)
class Launch:
    """One child's run for one Task call, on one parent stream."""

    child: ChildSession
    call: ToolCall
    task: TaskCall
    parent_id: str
    began: float = field(default_factory=time.monotonic)
    created_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    done: asyncio.Future[ConversationState] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    driver: asyncio.Task[None] | None = None

    @property
    def child_id(self) -> str:
        assert self.child.conversation_id is not None
        return self.child.conversation_id

    @property
    def agent_id(self) -> str:
        return client_id_of(self.child_id)

    @property
    def running(self) -> bool:
        return not self.done.done()


def make_child(parent: Session, call: ToolCall, child_id: str, task: TaskCall) -> ChildSession:
    """The child's session inside `parent`'s stream, its turn's blobs begun."""
    digest = client_id_of(child_id).split(CHILD_MARK, 1)[1]
    child = ChildSession(
        f"{parent.request_id}{CHILD_MARK}{digest}",
        parent.feedback,
        parent.release,
        parent.clock,
        outer=parent,
        task_call_id=call.id,
    )
    child.conversation_id = child_id
    child.tools = child_tools(parent.tools, task)
    child.capabilities = parent.capabilities
    child.server_runs = ServerRuns(parent.server_runs.host)
    child.on_cut_off = parent.on_cut_off
    child.context.context_window = parent.context.context_window
    child.context.mode = modes.ASK if task.readonly else modes.AGENT
    user = pb.UserMessage(text=task.prompt, mode=modes.ENUM[child.context.mode])
    child.context.turn.begin(user, (), child.client_id)
    return child


def child_start(
    parent: ConversationState, task: TaskCall, tools: tuple[ToolDefinition, ...]
) -> Start:
    """The child's first input: the Task's prompt, timed as the parent's
    response that asked for it (so a Start made again after a restart is
    the same input), with the parent's prompt and what the kind of
    subagent is told, its model (the parent's unless the call chose
    another), its tools, and its share of what is left of the turn's
    model-call limit (the Task calls of one response run at once: each gets
    an equal part, and the parent's turn counts what they spent)."""
    base = parent.settings
    prompt = "\n\n".join(p for p in (base.system_prompt, task.kind.prompt) if p)
    siblings = max(1, _tasks_beside(parent, task.call_id))
    left = max(1, (base.max_model_calls - parent.turn_calls) // siblings)
    settings = replace(
        base,
        model=task.model or base.model,
        system_prompt=prompt,
        tools=tools,
        max_model_calls=left,
        parent=SubagentOf(parent.conversation_id, task.call_id),
    )
    return Start(UserMessage(task.prompt, _asked_at(parent, task.call_id)), settings=settings)


def _tasks_beside(parent: ConversationState, call_id: str) -> int:
    """The Task calls in the response that asked for `call_id` (itself too)."""
    for message in reversed(parent.messages):
        if isinstance(message, AssistantMessage) and any(
            isinstance(block, ToolCall) and block.id == call_id for block in message.content
        ):
            name = next(
                b.name for b in message.content if isinstance(b, ToolCall) and b.id == call_id
            )
            return sum(1 for b in message.content if isinstance(b, ToolCall) and b.name == name)
    return 1


def _asked_at(parent: ConversationState, call_id: str) -> int:
    for message in reversed(parent.messages):
        if isinstance(message, AssistantMessage) and any(
            isinstance(block, ToolCall) and block.id == call_id for block in message.content
        ):
            return message.timestamp
    return 0


async def drive(
    runner: Runner, sink: OutputSink, launch: Launch, parent: ConversationState
) -> ConversationState:
    """Start (or find) the child's turn and wait for its end."""
    child, child_id = launch.child, launch.child_id
    ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    child.on_end = lambda _s: None if ended.done() else ended.set_result(None)
    start = child_start(parent, launch.task, child.tools.definitions())
    outcome = await runner.submit(child_id, start_id(child_id, launch.call.id), start)
    for item in sink.take_stash(child_id):  # output made while nobody served it
        child.deliver(child_id, item)
    state = await runner.state_of(child_id)
    if state is None:
        raise RuntimeError(f"the subagent {child_id} has no state")
    if state.status in IDLE_STATUSES and outcome.duplicate:
        return state  # it ended before (a restart, a take-over): its end is in the store
    if not child.finished and state.status is Status.WAITING_CLIENT:
        ask_again(child, state)
    await ended
    state = await runner.state_of(child_id)
    assert state is not None
    return state


def ask_again(child: ChildSession, state: ConversationState) -> None:
    """A call the child waits for that nobody here asked (the server
    restarted, or the parent's stream moved): asked again when that is
    harmless, else given its result from what arrived (`tool_runs`)."""
    waiting = state.waiting
    assert waiting is not None and child.conversation_id is not None
    command = CallClient(waiting.operation_id, waiting.current)
    operation = command.operation_id
    if child.execs.asked(operation) or child.server_runs.asked(operation):
        return
    if not repeatable(waiting.current.name):
        command = replace(command, again=True)
    child.ask(child.conversation_id, command)


def background_task(parent: ConversationState, child_id: str) -> TaskCall | None:
    """The parent's Task call that left `child_id` running in the
    background, if one did and the parent does not wait for it."""
    for message in parent.messages:
        if not isinstance(message, AssistantMessage):
            continue
        for block in message.content:
            if not isinstance(block, ToolCall) or block.name != "Task":
                continue
            task = TaskTool().parse(block)
            owner = owner_of(parent.conversation_id)
            named = scoped(owner, task.resume) if task.resume else None
            if (named or child_conversation_id(parent.conversation_id, block.id)) != child_id:
                continue
            if task.background and not waits_for(parent, block.id):
                return task
    return None


@dataclass(eq=False)
class Unattended:
    """What serves a background child resumed after a restart: nobody
    watches its stream, so a tool it asks the client to run fails at once
    (no client is connected for it); `done` when its turn ends."""

    runner: Runner
    spawn: Callable[[Coroutine[object, object, None]], object]
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    ended: bool = False

    def deliver(self, conversation_id: str, item: Outbound) -> None:
        if isinstance(item, Final | Failed | Canceled):
            if not self.done.done():
                self.done.set_result(None)
        elif isinstance(item, CallClient):
            outcome = ToolOutcome(NO_CLIENT, True)
            message = tool_result_message(item.tool_call, outcome, int(time.time() * 1000))
            result = ToolResult(message)
            input_id = tool_result_id(item.operation_id)
            self.spawn(self._submit(conversation_id, input_id, result))

    async def _submit(self, conversation_id: str, input_id: str, result: ToolResult) -> None:
        await self.runner.submit(conversation_id, input_id, result)


NO_CLIENT = (
    "The tool could not be run: this subagent was left running in the background and the "
    "server restarted since; no client is connected to run it. Answer with what you have."
)
