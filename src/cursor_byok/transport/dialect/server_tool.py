"""Tools the server runs itself instead of asking the client.

To-dos are written on the server (no exec exists for them); web search and
fetch, and a question or a mode switch that waits on the user through an
interaction query, are too. To the loop such a call is a tool call like any
other: it emits `CallClient`, and the call's result comes back as one
`ToolResult`, recorded, de-duplicated and resumed after a restart exactly
as an exec's result is. Only the session (sessions/server_runs.py) tells
the two apart: for a `ServerTool` it sends the started card, runs the tool,
sends the completed card and submits the outcome.

Adding one:

    class WebFetch(ServerTool):
        name, description, parameters = "WebFetch", "...", object_schema(...)
        queries = ("web_fetch_request_query",)    # clients that cannot answer: not offered

        def card(self, call, result=None) -> pb.ToolCall:
            ...                                   # the card as started (result None)

        async def run(self, call, context) -> ServerOutcome:
            response = await context.ask(query, timeout_s=60)   # None: no answer in time
            ...                                   # I/O of its own is fine: it is awaited
            return ServerOutcome(card_with_result, ToolOutcome(text, is_error=False))

and add it to `tools.BUILTIN`; `ToolSet.for_run` offers it to clients that
draw its card and answer its queries (`clients.Capabilities`; a tool that
needs more, say a switch of the request context, is gated there too). `run` is a
task of the session's: it is canceled with the turn (a cancel, a failure, a
new stream taking the turn over, which asks it again) and when the server
shuts down, so it must hold nothing that outlives a cancel. An exception
from `run` becomes an error result (`failed`). A tool that must ask before
it shows its card (web search sends its approval query first) sets
`started_first = False` and calls `context.started()` itself. A tool
that asks the client to run an exec of its own (the Task tool's
`subagent_args`) is given an `ExecContext`: `exec` sends it once per key,
`exec_result` waits for the answer, and the end of the turn aborts it. A
tool made for each run from its request (Task) has `for_run`
(`run_request` binds it).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from cursor_byok.llm.types import ToolCall
from cursor_byok.loop.state import ConversationState
from cursor_byok.loop.todos import TodoItem
from cursor_byok.runtime.child_status import ChildNow
from cursor_byok.store.subagent_links import LinkedChild
from cursor_byok.transport.dialect.tool_base import Tool, ToolOutcome
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


@dataclass(frozen=True, slots=True)
class QueryWaits:
    """How long a server tool waits for a person's answer to a query before
    it takes the silence as a rejection (`server.question_wait_s`,
    `server.approval_wait_s`): bounded, so a turn never hangs."""

    question_s: float = 30 * 60.0
    """A question to the user (AskQuestion): they may be away a while."""
    approval_s: float = 5 * 60.0
    """An approval (a mode switch, a plan, a search)."""


@dataclass(frozen=True, slots=True)
class ServerOutcome:
    """What a server-run call comes to: the completed card, what the model
    reads, and the conversation's to-do list when the call changed it."""

    card: pb.ToolCall
    outcome: ToolOutcome
    todos: tuple[TodoItem, ...] | None = None
    mode: str | None = None
    """The conversation's mode when the call changed it (an approved switch)."""
    subagent: tuple[str, pb.SubagentPersistedState] | None = None
    """A subagent the call started or continued, by agent id: every
    checkpoint from now on names it (`subagent_states`)."""
    model_calls: int = 0
    """Model calls the run made for the turn (a server-run subagent's):
    the parent turn's limit counts them."""


class ToolContext(Protocol):
    """What a running server tool may use (the session provides it)."""

    @property
    def conversation_id(self) -> str: ...

    @property
    def state(self) -> ConversationState:
        """The committed state as it was when the call was asked."""
        ...

    def now_ms(self) -> int: ...

    def answers(self, query: str) -> bool:
        """Whether the client answers the `InteractionQuery` member `query`
        (a tool offered to clients that do not may still show its card)."""
        ...

    @property
    def mode(self) -> str:
        """The conversation's mode now (`modes`)."""
        ...

    @property
    def waits(self) -> QueryWaits:
        """How long `ask` may wait for a person."""
        ...

    def send(self, message: pb.AgentServerMessage) -> None:
        """Put a message on the client's stream (in order with the rest)."""
        ...

    def started(self) -> None:
        """Send the call's started card now (for `started_first = False`)."""
        ...

    async def ask(
        self, query: pb.InteractionQuery, timeout_s: float
    ) -> pb.InteractionResponse | None:
        """Send `query` (its id filled in when 0) and wait for the client's
        answer: None when none came within `timeout_s` or the client failed.
        The stream keeps its heartbeats meanwhile."""
        ...

    @property
    def project_folder(self) -> str:
        """The client's folder for the project, outside the workspace (empty
        when the client named none): where `write` may put a file for it."""
        ...

    async def write(self, path: str, text: str, timeout_s: float) -> pb.WriteResult | None:
        """Have the client write `text` to `path` (a `write_args` exec of the
        tool's own, not a tool call): its result, or None when none came
        within `timeout_s`."""
        ...


@runtime_checkable
class ExecContext(ToolContext, Protocol):
    """What a server tool that asks the client to run execs of its own (the
    Task tool's `subagent_args`) may use besides (the session provides it)."""

    def started_too(self, call: ToolCall) -> None:
        """Send the started card of `call`, a call of this tool the model
        made in the same response, started early; once a call."""
        ...

    def exec(self, key: str, field: str, args: Any) -> int:
        """Ask the client to run an exec (`field` of `ExecServerMessage`),
        once per `key` on this stream; the time (ms) it was sent."""
        ...

    async def exec_result(self, key: str, timeout_s: float) -> pb.ExecClientMessage | str | None:
        """The client's answer to exec `key` (it may have come already): a
        string when the client failed the exec (its error); None when the
        turn ended or none came within `timeout_s` (the exec is then
        aborted). Heartbeats go on meanwhile."""
        ...

    async def child_of(self, call_id: str) -> LinkedChild | None:
        """The conversation of the subagent the client started for this
        conversation's Task call `call_id` (None: none was started)."""
        ...

    async def child_rested(self, child: LinkedChild, timeout_s: float) -> ChildNow | None:
        """That child as committed once its turn is over (no messages: it
        never started); None when it is not over within `timeout_s`."""
        ...


class ServerTool(Tool):
    """A tool the server runs: a definition, a card, and `run`."""

    started_first = True
    """Send the started card before `run` (else `run` calls `context.started()`)."""

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        """The card as started; the completed one comes with the outcome."""
        raise NotImplementedError

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        raise NotImplementedError

    def failed(self, call: ToolCall, error: str) -> ServerOutcome:
        """The outcome of a run that raised: the started card and the error."""
        return ServerOutcome(self.card(call), ToolOutcome(f"The tool failed: {error}", True))


def query_id(call_id: str) -> int:
    """The query's id, the same each time the call is asked (never 0, which
    clients leave out on the wire)."""
    return (zlib.crc32(call_id.encode()) & 0x7FFFFFFF) or 1
