"""What the client's messages about a tool call lead to, and what a tool
call whose run was cut off gets instead of a second run.

An exec's messages go through the stream's `ExecTracker`: a request for the
next exec, a piece of a command's output (committed with the call at once,
`ToolProgress`, before its append is answered), or the final result. A call
whose run was cut off (its stream was lost, or the server restarted, while
the client ran it) is not asked again unless it only reads
(`dialect.interrupted.REPEATABLE`): its result is the interruption note and
the output that had arrived (`ToolInterrupted`), committed once, under the
same input id as a real result, so whichever comes first is the one result
and the other is a duplicate. Output that comes for it later, on the old
request id, is taken while the call is still waited for, and counted
otherwise (the loop ignores it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import assert_never

from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.commands import CallClient
from cursor_byok.loop.inputs import Input, ToolInterrupted, ToolProgress, ToolResult
from cursor_byok.runtime.outcome import Outcome
from cursor_byok.runtime.runner import Runner
from cursor_byok.transport.dialect import dialect, input_ids
from cursor_byok.transport.dialect.interrupted import interrupted_card_result, interrupted_note
from cursor_byok.transport.dialect.tools import NativeTool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.counters import Counters
from cursor_byok.transport.sessions.exec_tracker import (
    Finished,
    MoreToCome,
    SendNext,
    Step,
    Unknown,
)
from cursor_byok.transport.sessions.session import Session

Spawn = Callable[[Coroutine[object, object, None]], object]


class ToolRuns:
    def __init__(
        self, runner: Runner, counters: Counters, now_ms: Callable[[], int], spawn: Spawn
    ) -> None:
        self._runner = runner
        self._counters = counters
        self._now_ms = now_ms
        self._spawn = spawn

    async def submit(self, session: Session, input_id: str, input_: Input) -> Outcome | None:
        if session.conversation_id is None:
            self._counters.late_appends += 1
            return None
        return await self._runner.submit(session.conversation_id, input_id, input_)

    async def step(self, session: Session, step: Step) -> None:
        match step:
            case Unknown():
                self._counters.unknown_exec_results += 1
            case MoreToCome(pending=pending, output=output):
                if pending is not None and output:
                    pending.pieces += 1
                    input_id = input_ids.progress_id(
                        pending.operation_id, session.request_id, pending.pieces
                    )
                    await self.submit(session, input_id, ToolProgress(pending.call.id, output))
            case SendNext(request=request):
                session.put(pb.AgentServerMessage(exec_server_message=request))
            case Finished(pending=pending, result=result, outcome=outcome):
                for update in dialect.encode_tool_completed(
                    pending.call, pending.tool, result, session.context
                ):
                    session.put(update)
                result_of = (pending.call, outcome, self._now_ms())
                if outcome.images:  # fitting images: off the event loop
                    message = await asyncio.to_thread(dialect.tool_result_message, *result_of)
                else:
                    message = dialect.tool_result_message(*result_of)
                input_id = input_ids.tool_result_id(pending.operation_id)
                await self.submit(session, input_id, ToolResult(message))
            case _:
                assert_never(step)

    def cut_off(self, session: Session, conversation_id: str, command: CallClient) -> None:
        """The session's hook for a call it must not ask (it may have run)."""
        session.execs.interrupted.add(command.operation_id)
        found = session.tools.get(command.tool_call.name)
        tool = found if isinstance(found, NativeTool) else None  # a server tool is not cut off
        call = command.tool_call
        self._spawn(self.interrupt(session, conversation_id, call, tool, command.operation_id))

    async def interrupt(
        self,
        session: Session,
        conversation_id: str,
        call: ToolCall,
        tool: NativeTool | None,
        operation_id: str,
    ) -> None:
        """Give the cut-off call its result: the note and what arrived. Its
        card closes on the stream with the output the server kept."""
        session.execs.interrupted.add(operation_id)
        state = await self._runner.state_of(conversation_id)
        waiting = state.waiting if state is not None else None
        if waiting is None or waiting.current.id != call.id:
            return  # its result came after all
        output = waiting.output
        if tool is not None:
            shown = interrupted_card_result(tool, call, output)
            for update in dialect.encode_tool_completed(call, tool, shown, session.context):
                session.put(update)
        interrupted = ToolInterrupted(call.id, interrupted_note(call), self._now_ms())
        input_id = input_ids.tool_result_id(operation_id)
        await self._runner.submit(conversation_id, input_id, interrupted)
