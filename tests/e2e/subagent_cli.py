"""A client that runs subagents itself, as the IDE (3.x) and the CLI from
2026.08.11 do (protocol/agent-features.md §5.2 A), and a fake provider that
answers each conversation from a script of its own.

On `exec subagent_args` the client starts a child run against the same
server: a request id of its own, with the headers `x-parent-request-id`,
`x-root-parent-request-id` and `x-parent-agent-tool-call-id`, and a run
request naming `subagent_type_name` and `requested_model`, the prompt as
the user's text (ask mode when read-only), in the subagent's conversation
(its agent id: `resume_agent_id`, or a new one). It plays that run to its
end as a normal turn, then answers the parent with `subagent_result`
{agent_id, final_message, tool_call_count} (an error when the child run
failed), and closes the exec. With `run_in_background` it answers at once
with a background reason and lets the child run on. An
`exec_server_control_message.abort` of the parent's exec cancels the child
run.
"""

from __future__ import annotations

import asyncio
import urllib.parse
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from cursor_byok.client.client import CursorClient, cancel, exec_reply, stream_close
from cursor_byok.llm.events import ResponseEvent, ResponseStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.serialize import request_bytes
from cursor_byok.llm.types import RequestMessages
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import Appender, CliTurn, OfficialCli, user_message
from tests.e2e.raw_h2 import RawH2, RawStream
from tests.fakes import ScriptedStream

IDE_HEADERS = {"x-cursor-client-type": "ide", "x-cursor-client-version": "3.14.7"}


@dataclass
class PerConversation:
    """The provider: each conversation plays its own scripts, in order, so
    concurrent conversations never take each other's answers. Requests are
    recorded per conversation (model, canonical bytes)."""

    scripts: dict[str, list[list[ResponseEvent]]]
    delay: float = 0.0
    requests: dict[str, list[tuple[str, bytes]]] = field(default_factory=lambda: defaultdict(list))

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        conversation = ctx.session_id or ""
        self.requests[conversation].append((model, request_bytes(request)))
        scripts = self.scripts.get(conversation)
        if not scripts:
            raise AssertionError(f"{conversation}: the model was called more often than scripted")
        return ScriptedStream(scripts.pop(0), self.delay)


@dataclass
class Child:
    """One subagent the client ran: its request, its agent id and its turn."""

    args: pb.SubagentArgs
    request_id: str
    agent_id: str
    headers: dict[str, str]
    turn: CliTurn | None = None
    task: asyncio.Task[None] | None = None
    canceled: bool = False
    client: ChildCli | None = None


class ChildCli(OfficialCli):
    """The client's side of one child run; `final` is its last assistant
    text (what came after its last tool call)."""

    final = ""
    spoke: asyncio.Event | None = None
    """Set at the child's first words."""

    def _update(self, update: pb.InteractionUpdate, turn: CliTurn) -> None:
        kind = update.WhichOneof("message")
        if kind == "text_delta":
            self.final += update.text_delta.text
            if self.spoke is not None:
                self.spoke.set()
        elif kind == "tool_call_started":
            self.final = ""
        super()._update(update, turn)


class SubagentCli(OfficialCli):
    """`OfficialCli` as an IDE that runs the subagents it is asked to."""

    def __init__(self, base_url: str, codec: str, workspace: Path, **options: object) -> None:
        super().__init__(base_url, codec, workspace, **options)  # type: ignore[arg-type]
        self.base_url = base_url
        self.codec = codec
        self.client = CursorClient(base_url, codec, headers=IDE_HEADERS)
        self.children: list[Child] = []
        self.child_spoke = asyncio.Event()
        """Set when a child run's model first says something."""
        self.over_http2 = False
        """Run each child over HTTP/2 (`AgentService/Run`) instead of RunSSE;
        such a child only answers (its script calls no tool)."""
        self.http2_children: list[RawStream] = []
        self.queued: set[str] = set()
        """Task call ids answered at once as queued behind earlier work
        (`QUEUED_FOLLOW_UP`): their subagent never starts."""
        self.heartbeats_waiting = 0
        """Heartbeats on the parent's stream while a child run was going."""
        self.aborted: list[int] = []
        """Exec ids the server aborted."""
        self._request_id = ""
        self._by_exec: dict[int, Child] = {}

    async def close(self) -> None:
        await self.settle()
        for child in self.children:
            if child.client is not None:
                await child.client.close()
        await super().close()

    async def settle(self) -> None:
        """Until every child run (a background one too) has ended."""
        tasks = [c.task for c in self.children if c.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)

    def _take(self, item: pb.AgentServerMessage, turn: CliTurn, appender: Appender) -> None:
        self._request_id = turn.request_id
        waiting = any(child.turn is None for child in self.children)
        if waiting and item.interaction_update.HasField("heartbeat"):
            self.heartbeats_waiting += 1
        if item.HasField("exec_server_control_message"):
            aborted = item.exec_server_control_message.abort.id
            self.aborted.append(aborted)
            found = self._by_exec.get(aborted)
            if found is not None:
                self._stop(found)
        super()._take(item, turn, appender)

    def _exec(self, request: pb.ExecServerMessage, turn: CliTurn) -> list[pb.AgentClientMessage]:
        if request.WhichOneof("message") != "subagent_args":
            return super()._exec(request, turn)
        args = request.subagent_args
        agent_id = args.resume_agent_id or f"agent-{args.tool_call_id}"
        child_request = str(uuid.uuid4())
        headers = {
            **IDE_HEADERS,
            "x-parent-request-id": self._request_id,
            "x-root-parent-request-id": self._request_id,
            "x-parent-agent-tool-call-id": args.tool_call_id,
        }
        child = Child(args, child_request, agent_id, headers)
        self.children.append(child)
        self._by_exec[request.id] = child
        assert self.appender is not None
        appender = self.appender
        if args.tool_call_id in self.queued:
            queued = pb.SubagentSuccess(
                agent_id=agent_id, background_reason=pb.SUBAGENT_BACKGROUND_REASON_QUEUED_FOLLOW_UP
            )
            appender.send(exec_reply(request, subagent_result=pb.SubagentResult(success=queued)))
            appender.send(stream_close(request.id))
            self.children.remove(child)
            return []
        if args.run_in_background:
            moved = pb.SubagentSuccess(
                agent_id=agent_id, background_reason=pb.SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST
            )
            appender.send(exec_reply(request, subagent_result=pb.SubagentResult(success=moved)))
            appender.send(stream_close(request.id))
            child.task = asyncio.create_task(self._run_child(child, None, request))
        else:
            child.task = asyncio.create_task(self._run_child(child, appender, request))
        return []

    async def _run_child(
        self, child: Child, answer_to: Appender | None, request: pb.ExecServerMessage
    ) -> None:
        if self.over_http2:
            await self._run_child_h2(child, answer_to, request)
            return
        args = child.args
        client = ChildCli(self.base_url, self.codec, self.workspace, self.context)
        await client.client.close()
        client.client = CursorClient(self.base_url, self.codec, headers=child.headers)
        client.spoke = self.child_spoke
        child.client = client
        action = user_message(args.prompt, self.context)
        if args.readonly:
            action.user_message_action.user_message.mode = pb.AGENT_MODE_ASK
        try:
            if child.canceled:  # aborted before it started: it never does
                raise TimeoutError("canceled before it started")
            turn = await client.run(
                action,
                args.model_id,
                conversation_id=child.agent_id,
                request_id=child.request_id,
                extra=pb.AgentRunRequest(subagent_type_name=args.subagent_type),
            )
        except (OSError, TimeoutError, AssertionError) as error:  # its stream broke
            turn = CliTurn(request_id=child.request_id, error={"message": str(error)})
        child.turn = turn
        if answer_to is None:
            return
        if turn.error is not None or child.canceled:
            failed = pb.SubagentError(agent_id=child.agent_id, error=_why(turn, child))
            result = pb.SubagentResult(error=failed)
        else:
            done = sum(1 for kind in turn.kinds if kind == "tool_call_completed")
            success = pb.SubagentSuccess(
                agent_id=child.agent_id, final_message=client.final, tool_call_count=done
            )
            result = pb.SubagentResult(success=success)
        answer_to.send(exec_reply(request, subagent_result=result))
        answer_to.send(stream_close(request.id))

    async def _run_child_h2(
        self, child: Child, answer_to: Appender | None, request: pb.ExecServerMessage
    ) -> None:
        """The child as one `Run` stream: the run request, the KV answers,
        its end; the parent then hears its text."""
        where = urllib.parse.urlsplit(self.base_url)
        assert where.hostname and where.port
        h2 = await RawH2.connect(where.hostname, where.port)
        try:
            stream = h2.open(extra=list(child.headers.items()))
            self.http2_children.append(stream)
            run = pb.AgentRunRequest(
                conversation_id=child.agent_id,
                action=user_message(child.args.prompt, self.context),
                requested_model=pb.RequestedModel(model_id=child.args.model_id),
                subagent_type_name=child.args.subagent_type,
            )
            await h2.send(stream, pb.AgentClientMessage(run_request=run))
            await h2.until(stream, "turn_ended", within=20)
            for message in stream.messages:  # the stream's end waits for these
                if message.HasField("kv_server_message"):
                    done = pb.KvClientMessage(
                        id=message.kv_server_message.id, set_blob_result=pb.SetBlobResult()
                    )
                    await h2.send(stream, pb.AgentClientMessage(kv_client_message=done))
            await h2.until_end(stream, within=20)
        finally:
            await h2.close()
        if answer_to is not None:
            success = pb.SubagentSuccess(agent_id=child.agent_id, final_message=stream.text())
            result = pb.SubagentResult(success=success)
            answer_to.send(exec_reply(request, subagent_result=result))
            answer_to.send(stream_close(request.id))

    def _stop(self, child: Child) -> None:
        """The parent's exec was aborted: cancel the child's run."""
        child.canceled = True
        if child.client is not None and child.client.appender is not None:
            child.client.appender.send(cancel("the parent stopped"))


def _why(turn: CliTurn, child: Child) -> str:
    if child.canceled:
        return "canceled by the parent"
    if turn.error_details is not None:
        return turn.error_details.details.detail or turn.error_details.details.title
    return str(turn.error)
