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

The loop takes a response's tool calls one at a time, so when it asks the
first Task call of a response, the children of the other Task calls of that
response are launched too (`subagent_launch`): they all run at once, and
each Task call, when asked, finds its child running or done.

When the parent's run of a call stops (its turn canceled or failed, or a
stream taking the turn over), its children are canceled only if the parent
no longer waits for that call: a take-over asks the call again, and finds
the child where it stands.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import replace

from cursor_byok.llm.types import ToolCall, UserMessage, last_answer
from cursor_byok.loop.inputs import Cancel, UserInput
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState, Status
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.owners import client_id_of, owner_of, scoped
from cursor_byok.transport.dialect.server_tool import ExecContext, ServerOutcome, ToolContext
from cursor_byok.transport.dialect.task_call import TaskCall, TaskParser, following_tasks
from cursor_byok.transport.dialect.task_cards import child_state
from cursor_byok.transport.dialect.task_server import (
    failed,
    finished_text,
    in_background,
    succeeded,
)
from cursor_byok.transport.dialect.task_tool import TaskTool
from cursor_byok.transport.dialect.tools import Tool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.child_session import ChildSession
from cursor_byok.transport.sessions.exec_tracker import Step, Unknown
from cursor_byok.transport.sessions.memory_budget import SESSION_BYTES, MemoryBudget, budget_key
from cursor_byok.transport.sessions.session import Session
from cursor_byok.transport.sessions.sink import OutputSink
from cursor_byok.transport.sessions.subagent_launch import (
    Launch,
    Unattended,
    background_task,
    child_conversation_id,
    drive,
    make_child,
    parent_of,
    start_id,
    waits_for,
)

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[object, object, None]], asyncio.Task[None]]

__all__ = ["Subagents", "child_conversation_id", "parent_of"]


class Subagents:
    """Every server-run child of this process, by child conversation id."""

    def __init__(
        self, runner: Runner, sink: OutputSink, spawn: Spawn, budget: MemoryBudget | None = None
    ) -> None:
        """`budget`: each child running for a request is charged to it as a
        session of its own is, so a response of many Task calls cannot hold
        more than a request may."""
        self._runner = runner
        self._sink = sink
        self._spawn = spawn
        self._budget = budget if budget is not None else MemoryBudget()
        self.launches: dict[str, Launch] = {}

    def bind(self, tools: Iterable[Tool]) -> tuple[Tool, ...]:
        """The configuration's tools, a Task tool among them able to run its
        subagents here (where its mode is the server's)."""
        return tuple(t.with_children(self) if isinstance(t, TaskTool) else t for t in tools)

    async def cancel_agent(self, session: Session, agent_id: str, reason: str) -> bool:
        """The user stopped one subagent (`cancel_subagent_action`): that
        child's turn is canceled (its model call closed), and its Task call
        ends with that; the parent's turn goes on. False: no such child of
        the stream's conversation runs (a background one started by an
        earlier turn's stream is one of them)."""
        for launch in list(self.launches.values()):
            ours = launch.child.outer is session or launch.parent_id == session.conversation_id
            if launch.agent_id == agent_id and ours and launch.running:
                await self.cancel(launch, reason)
                return True
        return False

    def running(self) -> list[Launch]:
        """The children running now."""
        return [launch for launch in self.launches.values() if launch.running]

    def children_of(self, parent: Session) -> list[ChildSession]:
        return [launch.child for launch in self.launches.values() if launch.child.outer is parent]

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

    async def run_task(
        self, tool: TaskParser, task: TaskCall, call: ToolCall, context: ToolContext
    ) -> ServerOutcome:
        parent_id = context.conversation_id
        parent = self._sink.serving(parent_id)
        context.started()
        if not isinstance(parent, Session) or isinstance(parent, ChildSession):
            return failed(task, call, "", "no stream serves the conversation")
        launch = self._launch(parent, parent_id, task, call, context.state)
        if isinstance(launch, ServerOutcome):
            return launch
        launch.child.shown()
        if task.background:
            return self._in_background(launch)
        self._launch_siblings(tool, parent, parent_id, call, context)
        try:
            state = await asyncio.shield(launch.done)
        except asyncio.CancelledError:
            self._spawn(self._stopped(parent_id, call.id))
            raise
        finally:
            if launch.done.done() and self.launches.get(launch.child_id) is launch:
                del self.launches[launch.child_id]
        return self._outcome(launch, state)

    def _in_background(self, launch: Launch) -> ServerOutcome:
        """The parent goes on at once; the child's answer comes later."""
        self._spawn(self._deliver_later(launch))
        now = int(time.time() * 1000)
        kept = child_state(launch.task, None, launch.created_ms, now)
        return in_background(launch.task, launch.call, launch.agent_id, kept)

    async def _deliver_later(self, launch: Launch) -> None:
        """A background child's end reaches its parent (`deliver_end`)."""
        try:
            state: ConversationState | str = await asyncio.shield(launch.done)
        except Exception as error:  # noqa: BLE001 (the parent is told)
            state = str(error) or type(error).__name__
        finally:
            if self.launches.get(launch.child_id) is launch:
                del self.launches[launch.child_id]
        await self._deliver_end(launch.parent_id, launch.child_id, launch.task, state)

    async def _deliver_end(
        self, parent_id: str, child_id: str, task: TaskCall, state: ConversationState | str
    ) -> None:
        """A background child's end reaches its parent as a message of its
        own, queued into the parent's conversation like one the user types
        during a turn: a parent at work reads it before its next model call;
        an idle one wakes for it, as for a typed message. That is the one
        input the loop already takes at any point without a tool call
        waiting for it; a tool result could not be, since the Task call's
        result was given at once. Its input id is made from the Task call,
        so the store takes it once, whoever delivers it (after a restart
        too: `recover`)."""
        answer, problem, when = "", state if isinstance(state, str) else None, 0
        if not isinstance(state, str):
            answer = last_answer(state.messages)
            if state.status is not Status.FINAL:
                problem = state.last_error or f"the subagent ended {state.status.value}"
            when = state.messages[-1].timestamp if state.messages else 0
        text = finished_text(client_id_of(child_id), task.description, answer, problem)
        input_id = f"{child_id}:done:{start_id(child_id, task.call_id)}"
        await self._runner.submit(parent_id, input_id, UserInput(UserMessage(text, when)))

    async def recover(self, active: Iterable[str]) -> None:
        """After a restart, for the conversations the runner resumed: a
        background child has nobody waiting for its end (its Task call was
        answered at once), so it is watched here and its end given to its
        parent, once. (A foreground child's Task call is asked again when
        its parent's turn is resumed, and finds it.)"""
        for child_id in active:
            parent_id = parent_of(child_id)
            if parent_id is None or child_id in self.launches:
                continue
            parent = await self._runner.state_of(parent_id)
            task = None if parent is None else background_task(parent, child_id)
            if task is not None:
                self._spawn(self._watch(parent_id, child_id, task))

    async def _watch(self, parent_id: str, child_id: str, task: TaskCall) -> None:
        watch = Unattended(self._runner, self._spawn)
        self._sink.serve(child_id, watch)
        try:
            for item in self._sink.take_stash(child_id):
                watch.deliver(child_id, item)
            state = await self._runner.state_of(child_id)
            if state is not None and state.status not in IDLE_STATUSES:
                await watch.done
                state = await self._runner.state_of(child_id)
        finally:
            self._sink.release(child_id, watch)
        if state is not None:
            await self._deliver_end(parent_id, child_id, task, state)

    def _launch(
        self,
        parent: Session,
        parent_id: str,
        task: TaskCall,
        call: ToolCall,
        state: ConversationState,
    ) -> Launch | ServerOutcome:
        """The call's launch: the one running on this stream, else a new one."""
        if task.resume:
            child_id = scoped(owner_of(parent_id), task.resume)
            if parent_of(child_id) != parent_id:
                error = f"no subagent {task.resume!r} of this conversation"
                return failed(task, call, "", error)
        else:
            child_id = child_conversation_id(parent_id, call.id)
        found = self.launches.get(child_id)
        if found is not None and found.call.id == call.id and found.child.outer is parent:
            return found
        if found is not None and found.running and found.call.id != call.id:
            return failed(task, call, task.resume, "that subagent is still running")
        if found is not None:  # left by a stream the turn moved from
            self._retire(found)
        refused = self._budget.charge(budget_key(parent.request_id), SESSION_BYTES)
        if refused is not None:
            return failed(task, call, "", f"no room for another subagent: {refused}")
        child = make_child(parent, call, child_id, task)
        launch = Launch(child, call, task, parent_id)
        self.launches[child_id] = launch
        self._sink.serve(child_id, child)
        launch.driver = self._spawn(self._drive(launch, state))
        return launch

    def _launch_siblings(
        self,
        tool: TaskParser,
        parent: Session,
        parent_id: str,
        call: ToolCall,
        context: ToolContext,
    ) -> None:
        """The Task calls right after `call` in the same response start now
        too (their cards shown at once where the context can, else when
        their own call is asked)."""
        state = context.state
        for sibling, task in following_tasks(tool, call, state):
            if task.background:
                break
            launched = self._launch(parent, parent_id, task, sibling, state)
            if not isinstance(launched, Launch):
                break
            if isinstance(context, ExecContext):
                context.started_too(sibling)
            elif launched.child.held is None:
                launched.child.held = []  # shown when its own call is asked

    async def _drive(self, launch: Launch, parent: ConversationState) -> None:
        child = launch.child
        try:
            state = await drive(self._runner, self._sink, launch, parent)
        except asyncio.CancelledError:
            launch.done.cancel()
            raise
        except Exception as error:  # noqa: BLE001 (the Task call gets it as its error)
            launch.done.set_exception(error)
        else:
            launch.done.set_result(state)
        finally:
            child.stop()
            self._sink.release(launch.child_id, child)
            assert child.outer is not None
            self._budget.refund(budget_key(child.outer.request_id), SESSION_BYTES)

    def _retire(self, launch: Launch) -> None:
        launch.child.stop()
        if launch.driver is not None:
            launch.driver.cancel()
        if self.launches.get(launch.child_id) is launch:
            del self.launches[launch.child_id]

    def _outcome(self, launch: Launch, state: ConversationState) -> ServerOutcome:
        task, call, agent_id = launch.task, launch.call, launch.agent_id
        now = int(time.time() * 1000)
        kept = child_state(task, launch.child.checkpoint, launch.created_ms, now)
        duration_ms = int((time.monotonic() - launch.began) * 1000)
        if state.status is Status.FINAL:
            answer = last_answer(state.messages)
            outcome = succeeded(task, call, agent_id, answer, duration_ms, kept)
        elif state.status is Status.CANCELED:
            outcome = failed(task, call, agent_id, "the subagent was canceled", kept)
        else:
            outcome = failed(task, call, agent_id, state.last_error or "the subagent failed", kept)
        return replace(outcome, model_calls=state.turn_calls)  # the parent's limit counts them

    async def _stopped(self, parent_id: str, call_id: str) -> None:
        """The parent's run of a call stopped: its children are canceled
        unless the parent still waits for that call (a take-over asks it
        again)."""
        state = await self._runner.state_of(parent_id)
        if state is not None and waits_for(state, call_id):
            return
        for launch in [v for v in self.launches.values() if v.parent_id == parent_id]:
            await self.cancel(launch, "the parent's turn ended")

    async def cancel(self, launch: Launch, reason: str) -> None:
        """Stop a child: its turn is canceled (its model call stopped) and
        its Task call ends with that."""
        child_id, now = launch.child_id, int(time.time() * 1000)
        await self._runner.submit(
            child_id, f"{child_id}:stop:{launch.call.id}", Cancel(reason, now)
        )
