"""A client's tool call while it runs: the output that arrives before its
result, and the result it gets when its run was cut off.

A shell command streams its output. Each piece is committed with the call
(`WaitingClient.output`), so that when the run is cut off (the connection
to the client was lost, the server restarted) and the call is not run again,
its result still says what arrived. The loop words that result; the
transport says what the call was (`ToolInterrupted.note`).
"""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop.commands import Transition, WaitInput
from cursor_byok.loop.inputs import ToolInterrupted, ToolProgress
from cursor_byok.loop.state import RuntimeState, Status, WaitingClient
from cursor_byok.loop.steps import ignore

NO_OUTPUT = "No output arrived."
OUTPUT_ARRIVED = "The output that arrived:"


def current_call(state: RuntimeState, tool_call_id: str) -> WaitingClient | None:
    """What the conversation waits for, if it waits for this tool call."""
    conv = state.committed
    waiting = conv.waiting
    if conv.status is not Status.WAITING_CLIENT or waiting is None:
        return None
    return waiting if waiting.current.id == tool_call_id else None


def on_progress(state: RuntimeState, input_: ToolProgress) -> Transition:
    """Keep a piece of the running call's output with the call."""
    waiting = current_call(state, input_.tool_call_id)
    if waiting is None:
        return ignore(state, "tool output nobody waits for")
    if not input_.text:
        return ignore(state, "empty tool output")
    waiting = replace(waiting, output=waiting.output + input_.text)
    conv = replace(state.committed, waiting=waiting)
    return Transition(RuntimeState(conv, state.pending), (), WaitInput())


def with_output(text: str, output: str) -> str:
    """`text`, then the output that had arrived (or that none had)."""
    if not output:
        return f"{text}\n{NO_OUTPUT}"
    return f"{text}\n{OUTPUT_ARRIVED}\n{output}"


def interrupted_result(waiting: WaitingClient, input_: ToolInterrupted) -> ToolResultMessage:
    """The result of a call whose run was cut off: what it was, what arrived."""
    call = waiting.current
    text = with_output(input_.note, waiting.output)
    return ToolResultMessage(
        call.id, call.name, (TextContent(text),), is_error=True, timestamp=input_.timestamp
    )
