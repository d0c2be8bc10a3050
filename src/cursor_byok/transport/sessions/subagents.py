"""Server-run subagents: a Task call's child conversation, driven here.

The child is a conversation of its own in the store, keyed
`<parent's client id>~<digest of the Task call id>` in the parent's user
namespace (`store.owners`): the same call always finds the same child,
after a restart or on a stream that took the turn over, and the key alone
says whose child it is (the parent's history holds the Task call and its
arguments). Its first input, the Task's prompt, is committed under an id
made from the call (`start_id`), so a Task asked again starts nothing new:
it finds the child where it stands and waits for its end. The runner drives
the child as any conversation (its model calls, tool runs and records are
its own, and are resumed after a restart by `Runner.recover`); its output
goes into the parent's stream (`ChildSession`).

The child's answer reaches the parent's loop once: as the Task call's one
`ToolResult`, committed under the call's operation id like every server-run
result. A child gets no AskQuestion, no Task (depth one), and in a
read-only type only the tools that look (plus web search and fetch, which
it may use unasked).

When the parent's run of the call stops (its turn canceled or failed, or a
stream taking the turn over), the child is canceled only if the parent no
longer waits for it: a take-over asks the call again and finds the child
still running.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace

from cursor_byok.llm.types import ToolCall, UserMessage
from cursor_byok.loop.commands import CallClient
from cursor_byok.loop.inputs import Cancel, Start
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState, Status, TurnSettings
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.owners import client_id_of, owner_of, scoped
from cursor_byok.transport.dialect import modes
from cursor_byok.transport.dialect.interrupted import repeatable
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool, ToolContext
from cursor_byok.transport.dialect.task_server import (
    TaskRequest,
    failed,
    last_answer,
    subagent_type,
    succeeded,
)
from cursor_byok.transport.dialect.tools import READ_ONLY, Tool, ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.child_session import APPROVED_QUERIES, ChildSession
from cursor_byok.transport.sessions.exec_tracker import Step, Unknown
from cursor_byok.transport.sessions.server_runs import ServerRuns
from cursor_byok.transport.sessions.session import Session
from cursor_byok.transport.sessions.sink import OutputSink

log = logging.getLogger(__name__)

CHILD_MARK = "~"
"""Between a parent's id and its child's digest: never in a client's id."""

NOT_FOR_CHILDREN = frozenset({"Task", "AskQuestion", "SwitchMode", "CreatePlan"})
"""No person to ask, and no grandchildren."""

REMINDER = (
    "You are a subagent: another agent gave you the task below. Work on it with the tools "
    "you have, without asking the user anything, and end with a complete answer: it is "
    "all the other agent will read."
)


def child_conversation_id(parent_id: str, tool_call_id: str) -> str:
    """The child conversation of the parent's Task call `tool_call_id`."""
    digest = hashlib.sha256(tool_call_id.encode()).hexdigest()[:20]
    parent = client_id_of(parent_id)
    return scoped(owner_of(parent_id), f"{parent}{CHILD_MARK}{digest}")


def parent_of(child_id: str) -> str | None:
    """The parent conversation of a child's key (None: not a child)."""
    client = client_id_of(child_id)
    if CHILD_MARK not in client:
        return None
    return scoped(owner_of(child_id), client.split(CHILD_MARK, 1)[0])


def start_id(child_id: str, tool_call_id: str) -> str:
    """The input id of the child's turn the Task call `tool_call_id` starts."""
    digest = hashlib.sha256(tool_call_id.encode()).hexdigest()[:20]
    return f"{child_id}:task:{digest}"


def child_tools(parent: ToolSet, readonly: bool) -> ToolSet:
    """The parent's tools a child may use."""
    kept: dict[str, Tool] = {}
    for name, tool in parent.tools.items():
        if name in NOT_FOR_CHILDREN:
            continue
        if any(query not in APPROVED_QUERIES for query in tool.queries):
            continue
        looks = name in READ_ONLY or (isinstance(tool, ServerTool) and bool(tool.queries))
        if readonly and not looks:
            continue
        kept[name] = tool
    return ToolSet(kept)


def waits_for(state: ConversationState, call_id: str) -> bool:
    """Whether the conversation waits for the result of tool call `call_id`."""
    waiting = state.waiting
    return (
        state.status is Status.WAITING_CLIENT
        and waiting is not None
        and (waiting.current.id == call_id)
    )


Spawn = Callable[[Coroutine[object, object, None]], asyncio.Task[None]]


class Subagents:
    """Every server-run child of this process, by child conversation id."""

    def __init__(self, runner: Runner, sink: OutputSink, spawn: Spawn) -> None:
        self._runner = runner
        self._sink = sink
        self._spawn = spawn
        self.running: dict[str, ChildSession] = {}

    def children_of(self, parent: Session) -> list[ChildSession]:
        return [child for child in self.running.values() if child.parent is parent]

    def reply(
        self, parent: Session, number: int, exec_id: str, message: pb.ExecClientMessage
    ) -> tuple[Session, Step]:
        """Whose exec a reply on the parent's stream answers: the parent's,
        or one of its children's (the session to step)."""
        step = parent.execs.reply(number, exec_id, message)
        if not isinstance(step, Unknown):
            return parent, step
        for child in self.children_of(parent):
            step = child.execs.reply(number, exec_id, message)
            if not isinstance(step, Unknown):
                return child, step
        return parent, Unknown()

    def thrown(self, parent: Session, number: int, error: str) -> tuple[Session, Step]:
        step = parent.execs.thrown(number, error)
        if not isinstance(step, Unknown):
            return parent, step
        for child in self.children_of(parent):
            step = child.execs.thrown(number, error)
            if not isinstance(step, Unknown):
                return child, step
        return parent, Unknown()

    # -- one Task call ---------------------------------------------------------------

    async def run_task(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        parent_id = context.conversation_id
        parent = self._sink.serving(parent_id)
        if not isinstance(parent, Session) or isinstance(parent, ChildSession):
            return failed(call, "", "no stream serves the conversation")
        request = TaskRequest.of(call)
        if request.resume:
            child_id = scoped(owner_of(parent_id), request.resume)
            if parent_of(child_id) != parent_id:
                return failed(call, "", f"no subagent {request.resume!r} of this conversation")
            if child_id in self.running:
                return failed(call, request.resume, "that subagent is still running")
        else:
            child_id = child_conversation_id(parent_id, call.id)
        agent_id = client_id_of(child_id)
        child = self._child(parent, call, child_id, request)
        began = time.monotonic()
        self.running[child_id] = child
        self._sink.serve(child_id, child)
        try:
            state = await self._drive(child, call, request, context.state)
        except asyncio.CancelledError:
            self._spawn(self._stopped(parent_id, call.id, child_id))
            raise
        finally:
            child.stop()
            if self.running.get(child_id) is child:
                del self.running[child_id]
            self._sink.release(child_id, child)
        self._keep_state(parent, child, request, agent_id)
        duration_ms = int((time.monotonic() - began) * 1000)
        if state.status is Status.FINAL:
            return succeeded(call, agent_id, last_answer(state.messages), duration_ms)
        if state.status is Status.CANCELED:
            return failed(call, agent_id, "the subagent was canceled")
        return failed(call, agent_id, state.last_error or "the subagent failed")

    def _child(
        self, parent: Session, call: ToolCall, child_id: str, request: TaskRequest
    ) -> ChildSession:
        digest = client_id_of(child_id).split(CHILD_MARK, 1)[1]
        child = ChildSession(
            f"{parent.request_id}{CHILD_MARK}{digest}",
            parent.feedback,
            parent.release,
            parent.clock,
            parent=parent,
            task_call_id=call.id,
        )
        child.conversation_id = child_id
        child.tools = child_tools(parent.tools, request.readonly)
        child.capabilities = parent.capabilities
        child.server_runs = ServerRuns(parent.server_runs.host)
        child.on_cut_off = parent.on_cut_off
        child.context.context_window = parent.context.context_window
        child.context.mode = modes.ASK if request.readonly else modes.AGENT
        user = pb.UserMessage(text=request.prompt, mode=modes.ENUM[child.context.mode])
        child.context.turn.begin(user, (), child.client_id)
        return child

    async def _drive(
        self,
        child: ChildSession,
        call: ToolCall,
        request: TaskRequest,
        parent_state: ConversationState,
    ) -> ConversationState:
        """Start (or find) the child's turn and wait for its end."""
        child_id = child.conversation_id
        assert child_id is not None
        ended = asyncio.get_running_loop().create_future()
        child.on_end = lambda _s: None if ended.done() else ended.set_result(None)
        settings = self._settings(parent_state, child)
        start = Start(UserMessage(request.prompt, int(time.time() * 1000)), settings=settings)
        outcome = await self._runner.submit(child_id, start_id(child_id, call.id), start)
        for item in self._sink.take_stash(child_id):  # output made while nobody served it
            child.deliver(child_id, item)
        state = await self._runner.state_of(child_id)
        if state is None:
            raise RuntimeError(f"the subagent {child_id} has no state")
        if state.status in IDLE_STATUSES and outcome.duplicate:
            return state  # it ended before (a restart, a take-over): its end is in the store
        if not child.finished and state.status is Status.WAITING_CLIENT:
            self._ask_again(child, state)
        await ended
        state = await self._runner.state_of(child_id)
        assert state is not None
        return state

    def _settings(self, parent: ConversationState, child: ChildSession) -> TurnSettings:
        base = parent.settings
        prompt = "\n\n".join(p for p in (base.system_prompt, REMINDER) if p)
        left = max(1, base.max_model_calls - parent.turn_calls)  # the turn's limit counts it
        return replace(
            base, system_prompt=prompt, tools=child.tools.definitions(), max_model_calls=left
        )

    def _ask_again(self, child: ChildSession, state: ConversationState) -> None:
        """A call the child waits for that nobody here asked (the server
        restarted, or the parent's stream moved): asked again when that is
        harmless, else given its result from what arrived (`tool_runs`)."""
        waiting = state.waiting
        assert waiting is not None and child.conversation_id is not None
        command = CallClient(waiting.operation_id, waiting.current)
        if child.execs.asked(command.operation_id) or child.server_runs.asked(command.operation_id):
            return
        if not repeatable(waiting.current.name):
            command = replace(command, again=True)
        child.ask(child.conversation_id, command)

    async def _stopped(self, parent_id: str, call_id: str, child_id: str) -> None:
        """The parent's run of the call stopped: cancel the child unless the
        parent still waits for this call (a take-over asks it again)."""
        state = await self._runner.state_of(parent_id)
        if state is not None and waits_for(state, call_id):
            return
        now = int(time.time() * 1000)
        await self._runner.submit(child_id, f"{child_id}:stop:{call_id}", Cancel("parent", now))

    def _keep_state(
        self, parent: Session, child: ChildSession, request: TaskRequest, agent_id: str
    ) -> None:
        """The parent's checkpoints carry the child's (`subagent_states`)."""
        kept = pb.SubagentPersistedState(subagent_type=subagent_type(request.subagent_type))
        if child.checkpoint is not None:
            kept.conversation_state.CopyFrom(child.checkpoint)
        now = int(time.time() * 1000)
        kept.created_timestamp_ms = kept.last_used_timestamp_ms = now
        parent.context.turn.subagents[agent_id] = kept
