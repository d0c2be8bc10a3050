"""A test client that plays the official Cursor CLI by the rules of
protocol/official-client.md, over a real socket, in any codec.

What it does as the CLI does: bootstraps with `GetServerConfig` and the
`AiService` model calls (no model: "No model found"), names the chat with
`NameAgent`; sends appends concurrently (up to 16 in flight, seqno from 0;
a failed append stops all later ones); drops cards without `model_call_id`
or `tool_call`; refuses a shell exec without `parsing_result`; ignores
`ReadArgs.offset`/`limit` (whole file, no `range_applied`); reads an image
(told by its first bytes: PNG, JPEG, GIF, WebP) as bytes in `data` with no
type, and shows a read card's image from its KV store by `data_blob_id`;
looks MCP tools up by the exact `McpToolDefinition.name`; answers
`request_context_args` (when told to), KV `set_blob`/`get_blob`, and never
answers an exec kind it does not know. As a given build (`build`, sent in
`x-cursor-client-type`/`-version`) it takes interaction queries as that
build does (agent-features.md §4.3): the Nov-2025 build rejects every web
search ("User Rejected", as its TUI does) and fails its whole run on any
other query (recorded, never answered); a newer one shows a question, a mode
switch or a plan to its user (`user`, which answers, skips, asks to answer
later or never answers) and needs the question's `tool_call_id`. Every rule
a server breaks is
recorded in `violations`.

It can also lose its connection while a shell command runs (`drop_mid_shell`),
as the CLI does then: output the command printed before went out as appends,
the stream is gone, output printed as it went was still on its way on the
old request id, and the CLI cancels the exec there (no exit, no
`stream_close`), to resume on a new request id (`resume()`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import TypeVar

from google.protobuf.message import Message

from cursor_byok.client.client import CursorClient, End, exec_reply, stream_close
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2, server_config_pb2
from tests.transport.connect_parsers import (
    code_for_grpc_status,
    details_from_grpc_status,
    error_from_json,
    parse_grpc_web_trailers,
)

M = TypeVar("M", bound=Message)
APPENDS_IN_FLIGHT = 16
CARDS = ("tool_call_started", "tool_call_completed", "partial_tool_call")
IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")


def is_image(data: bytes) -> bool:
    """How the CLI tells an image file: by its first bytes, not its name."""
    webp = data.startswith(b"RIFF") and data[8:12] == b"WEBP"
    return data.startswith(IMAGE_MAGIC) or webp


class NoModelFound(Exception):
    """What the CLI stops with when neither --model nor the server names one."""


@dataclass
class CliTurn:
    """What one run amounted to, as the CLI saw it."""

    text: str = ""
    cards: list[pb.InteractionUpdate] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    execs: list[pb.ExecServerMessage] = field(default_factory=list)
    token_deltas: list[int] = field(default_factory=list)
    checkpoints: list[pb.ConversationStateStructure] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    """The kind of every message but heartbeats, in arrival order."""
    error: dict[str, object] | None = None
    error_details: error_details_pb2.ErrorDetails | None = None
    violations: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    blobs_asked: list[bytes] = field(default_factory=list)
    """The blob ids the server asked for (`get_blob_args`)."""
    """The message ids `user_message_appended` acknowledged, in order."""
    queries: list[pb.InteractionQuery] = field(default_factory=list)
    """The interaction queries the server sent, in order."""
    dropped_stream: bool = False
    request_id: str = ""
    kv_held: list[pb.AgentClientMessage] = field(default_factory=list)
    """KV answers not sent yet (this CLI answers once it has read turn_ended)."""
    aborted_appends: int = 0
    """Appends still in flight when the stream ended, aborted with it."""
    next_seqno: int = 0
    """The seqno the request id's next append would carry."""
    heartbeats_waiting: int = 0
    """Heartbeats that came while a query waited for its answer."""

    @property
    def kinds(self) -> list[str]:
        return [card.WhichOneof("message") or "" for card in self.cards]


NOV_2025 = "cli-2025.11.25-d5b3271"
NEWER = "cli-2026.08.11-4a1b2c3"
User = Callable[[pb.InteractionQuery], pb.InteractionResponse | None]
"""The person at the client: the answer to a query, None to never answer."""


def choose(**picked: list[str] | str) -> User:
    """A user who answers each question: a list of option ids, or free text
    (the CLI's own "Other" row); a mode switch or plan is approved."""

    def user(query: pb.InteractionQuery) -> pb.InteractionResponse | None:
        if query.HasField("ask_question_interaction_query"):
            success = pb.AskQuestionSuccess()
            for question in query.ask_question_interaction_query.args.questions:
                given = picked.get(question.id, [])
                if isinstance(given, str):
                    answer = pb.AskQuestionSuccess.Answer(
                        question_id=question.id,
                        selected_option_ids=["__freeform_other__"] if question.options else [],
                        freeform_text=given,
                    )
                else:
                    answer = pb.AskQuestionSuccess.Answer(
                        question_id=question.id, selected_option_ids=given
                    )
                success.answers.append(answer)
            result = pb.AskQuestionResult(success=success)
            return question_response(query, result)
        return approve(query)

    return user


def question_response(
    query: pb.InteractionQuery, result: pb.AskQuestionResult
) -> pb.InteractionResponse:
    answered = pb.AskQuestionInteractionResponse(result=result)
    return pb.InteractionResponse(id=query.id, ask_question_interaction_response=answered)


def skip(query: pb.InteractionQuery) -> pb.InteractionResponse | None:
    """The user skips the questions (the CLI's own reason); rejects a switch."""
    if query.HasField("ask_question_interaction_query"):
        rejected = pb.AskQuestionRejected(reason="Questions skipped by user")
        return question_response(query, pb.AskQuestionResult(rejected=rejected))
    if query.HasField("switch_mode_request_query"):
        no = pb.SwitchModeRequestResponse.Rejected(reason="User rejected the mode switch")
        return pb.InteractionResponse(
            id=query.id, switch_mode_request_response=pb.SwitchModeRequestResponse(rejected=no)
        )
    return None


def approve(query: pb.InteractionQuery) -> pb.InteractionResponse | None:
    if query.HasField("switch_mode_request_query"):
        yes = pb.SwitchModeRequestResponse(approved=pb.SwitchModeRequestResponse.Approved())
        return pb.InteractionResponse(id=query.id, switch_mode_request_response=yes)
    if query.HasField("create_plan_request_query"):
        done = pb.CreatePlanResult(success=pb.CreatePlanSuccess(), plan_uri="file:///plan.md")
        return pb.InteractionResponse(
            id=query.id, create_plan_request_response=pb.CreatePlanRequestResponse(result=done)
        )
    return None


def never(_query: pb.InteractionQuery) -> pb.InteractionResponse | None:
    return None


@dataclass
class ShellDrop:
    """The connection is lost while the command runs: `before` was printed
    and sent first, `after` was printed as the stream went (its append goes
    out once the stream is gone; `between` runs in the meantime)."""

    before: str
    after: str
    between: Callable[[], Awaitable[None]] | None = None


@dataclass
class Appender:
    """Appends of one request id: seqno in order of creation, sent
    concurrently (at most 16 in flight), stopped by the first failure."""

    client: CursorClient
    request_id: str
    seqno: int = 0
    failed: bool = False
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(APPENDS_IN_FLIGHT))
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def abort(self) -> int:
        """The stream ended: abort what is still in flight, as a Connect
        client whose appends share the stream's abort signal does; how many."""
        unfinished = [task for task in self.tasks if not task.done()]
        for task in unfinished:
            task.cancel()
        return len(unfinished)

    def send(self, message: pb.AgentClientMessage) -> None:
        seqno, self.seqno = self.seqno, self.seqno + 1
        task = asyncio.create_task(self._send(seqno, message.SerializeToString()))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, seqno: int, data: bytes) -> None:
        async with self.slots:
            if self.failed:
                return
            response = await self.client.append_raw(self.request_id, seqno, data)
            if response.status != 200:
                self.failed = True

    async def drain(self) -> None:
        """Until every append sent so far is answered. The finished ones are
        dropped here, not left to their done callbacks: a gather of finished
        tasks completes without yielding to the loop (Python 3.12), so those
        callbacks would never run and this loop would never end."""
        while self.tasks:
            sent = list(self.tasks)
            await asyncio.gather(*sent, return_exceptions=True)  # aborted ones too
            self.tasks.difference_update(sent)


class OfficialCli:
    def __init__(
        self,
        base_url: str,
        codec: str,
        workspace: Path,
        context: pb.RequestContext | None = None,
        answers_context: bool = True,
        answers_blobs: bool = True,
        kv_answers: str = "at once",
        aborts_appends_at_end: bool = False,
        build: str | None = None,
        user: User = never,
    ) -> None:
        """`kv_answers`: "at once" (as each KV request is read), "after
        turn_ended" (the official CLI's KV consumer, which answers once it
        has read the end of the turn) or "never". `aborts_appends_at_end`:
        appends still in flight when the stream ends are aborted (a Connect
        client over HTTP/1.1) and each is a violation."""
        headers = {"x-cursor-client-type": "cli", "x-cursor-client-version": build} if build else {}
        self.client = CursorClient(base_url, codec, headers=headers)
        self.build = build or NOV_2025
        self.user = user
        self.answer_later: list[pb.AsyncAskQuestionCompletionAction] = []
        """Questions answered `async{}`: what the user answers later, to send as a run."""
        self.later: User | None = None
        """Set: the user answers questions later (`async{}` now), as this user would."""
        self.workspace = workspace
        self.context = context or pb.RequestContext(
            env=pb.RequestContextEnv(process_working_directory=str(workspace), shell="bash")
        )
        self.answers_context = answers_context
        self.answers_blobs = answers_blobs
        """False: `get_blob` is never answered (a client that hangs)."""
        self.kv_answers = kv_answers
        self.aborts_appends_at_end = aborts_appends_at_end
        self.blobs: dict[bytes, bytes] = {}
        self.checkpoint: pb.ConversationStateStructure | None = None
        self.shell_output: dict[str, str] = {}
        self.drop_mid_shell: dict[str, ShellDrop] = {}
        """Commands during which the connection is lost (`ShellDrop`)."""
        self.mcp_images: dict[str, list[bytes]] = {}
        """Images an MCP tool (by its definition's name) returns after its text."""
        self.appender: Appender | None = None
        """The appends of the run in progress (the last one's after it)."""

    async def close(self) -> None:
        await self.client.close()

    async def _unary(self, path: str, request: Message, response_type: type[M]) -> M:
        reply = await self.client.post(
            path,
            body=request.SerializeToString(),
            headers={"content-type": "application/proto"},
        )
        assert reply.status == 200, f"{path}: HTTP {reply.status} {reply.text}"
        return response_type.FromString(reply.body)

    async def bootstrap(self, first_message: str) -> tuple[str, str]:
        """Start-up with no `--model` and nothing stored: (model, chat title)."""
        await self._unary(
            "/aiserver.v1.ServerConfigService/GetServerConfig",
            server_config_pb2.GetServerConfigRequest(),
            server_config_pb2.GetServerConfigResponse,
        )
        await self._unary(
            "/aiserver.v1.AiService/GetUsableModels",
            pb.GetUsableModelsRequest(),
            pb.GetUsableModelsResponse,
        )
        default = await self._unary(
            "/aiserver.v1.AiService/GetDefaultModelForCli",
            pb.GetDefaultModelForCliRequest(),
            pb.GetDefaultModelForCliResponse,
        )
        if not default.model.model_id:
            raise NoModelFound("No model found")
        named = await self._unary(
            "/aiserver.v1.AiService/NameAgent",
            pb.NameAgentRequest(user_message=first_message),
            pb.NameAgentResponse,
        )
        return default.model.model_id, named.name

    async def run(
        self,
        action: pb.ConversationAction,
        model: str,
        conversation_id: str = "conv-cli",
        mcp_tools: tuple[pb.McpToolDefinition, ...] = (),
        during: list[pb.AgentClientMessage] | None = None,
        during_after: str = "text",
        drop_after: str | None = None,
        request_id: str | None = None,
        extra: pb.AgentRunRequest | None = None,
    ) -> CliTurn:
        """One run: open RunSSE, append the run request, play the client's
        part until the end of the stream. `during` is appended once the
        first text (or, with `during_after="exec"`, exec request; with
        `"kv_get"`, KV `get_blob` request; with `"query"`, interaction query)
        arrives.
        `drop_after` names a kind of message (as `turn.order` does) after
        which the connection is lost: nothing more is read or answered.
        `extra`: fields merged into the run request (a subagent's type)."""
        request_id = request_id or str(uuid.uuid4())
        stream = await self.client.open(request_id)
        appender = self.appender = Appender(self.client, request_id)
        run = pb.AgentRunRequest(
            conversation_id=conversation_id,
            action=action,
            requested_model=pb.RequestedModel(model_id=model),
        )
        if self.checkpoint is not None:
            run.conversation_state.CopyFrom(self.checkpoint)
        if extra is not None:
            run.MergeFrom(extra)
        run.mcp_tools.mcp_tools.extend(mcp_tools)
        appender.send(pb.AgentClientMessage(run_request=run))
        turn = CliTurn(request_id=request_id)
        pending_during = list(during or [])
        while True:
            item = await stream.next(within=20)
            if isinstance(item, End):
                if self.aborts_appends_at_end:
                    turn.aborted_appends = appender.abort()
                    if turn.aborted_appends:
                        turn.violations.append("appends aborted by the end of the stream")
                self._end(item, turn)
                break
            if drop_after is not None and self._kind(item) == drop_after:
                assert stream.task is not None
                stream.task.cancel()
                turn.dropped_stream = True
                if item.HasField("exec_server_message"):
                    turn.execs.append(item.exec_server_message)  # seen, never answered
                elif item.HasField("interaction_update"):
                    self._update(item.interaction_update, turn)
                break
            drop = self._shell_drop(item)
            if drop is not None:
                assert stream.task is not None
                await self._drop_mid_shell(item, drop, stream.task, appender, turn)
                break
            self._take(item, turn, appender)
            if self._kind(item) == "turn_ended" and self.kv_answers == "after turn_ended":
                for reply in turn.kv_held:
                    appender.send(reply)
                turn.kv_held.clear()
            seen = {
                "text": turn.text,
                "exec": turn.execs,
                "kv_get": turn.blobs_asked,
                "query": turn.queries,
            }
            if pending_during and seen[during_after]:
                for message in pending_during:
                    appender.send(message)
                pending_during = []
        await appender.drain()
        if appender.failed:
            turn.violations.append("an append was refused")
        turn.next_seqno = appender.seqno
        return turn

    def _shell_drop(self, item: pb.AgentServerMessage) -> ShellDrop | None:
        request = item.exec_server_message
        if not item.HasField("exec_server_message"):
            return None
        kind = request.WhichOneof("message")
        if kind not in ("shell_stream_args", "shell_args"):
            return None
        return self.drop_mid_shell.get(getattr(request, kind).command)

    async def _drop_mid_shell(
        self,
        item: pb.AgentServerMessage,
        drop: ShellDrop,
        reader: asyncio.Task[None],
        appender: Appender,
        turn: CliTurn,
    ) -> None:
        """The command starts and prints `before`; the connection goes; what
        it printed meanwhile (`after`) was on its way; the exec is canceled."""
        request = item.exec_server_message
        turn.order.append("exec_server_message")
        turn.execs.append(request)
        for event in (
            pb.ShellStream(start=pb.ShellStreamStart()),
            pb.ShellStream(stdout=pb.ShellStreamStdout(data=drop.before)),
        ):
            appender.send(exec_reply(request, shell_stream=event))
        await appender.drain()
        reader.cancel()
        turn.dropped_stream = True
        if drop.between is not None:
            await drop.between()
        after = pb.ShellStream(stdout=pb.ShellStreamStdout(data=drop.after))
        appender.send(exec_reply(request, shell_stream=after))

    def _end(self, end: End, turn: CliTurn) -> None:
        """How the run ended; an error without ErrorDetails breaks a rule."""
        if end.error is None:
            return
        if "trailers" in end.error:  # gRPC-Web: status and details ride in trailers
            trailers = parse_grpc_web_trailers(end.raw)
            code = code_for_grpc_status(int(trailers["grpc-status"]))
            turn.error = {"code": code.value if code else "ok"}
            found = details_from_grpc_status(trailers.get("grpc-status-details-bin", ""))
        else:
            turn.error = end.error
            found = error_from_json(end.error).details
        for detail in found:
            if detail.type_name == "aiserver.v1.ErrorDetails":
                turn.error_details = detail.unpack(error_details_pb2.ErrorDetails)
        if turn.error_details is None:
            turn.violations.append("an error end without ErrorDetails (the TUI drops it)")

    @staticmethod
    def _kind(item: pb.AgentServerMessage) -> str:
        top = item.WhichOneof("message") or ""
        if top == "interaction_update":
            top = item.interaction_update.WhichOneof("message") or ""
        return top

    def _take(self, item: pb.AgentServerMessage, turn: CliTurn, appender: Appender) -> None:
        top = self._kind(item)
        if top != "heartbeat":
            turn.order.append(top)
        elif turn.order and turn.order[-1] == "interaction_query":
            turn.heartbeats_waiting += 1
        match item.WhichOneof("message"):
            case "interaction_update":
                self._update(item.interaction_update, turn)
            case "exec_server_message":
                turn.execs.append(item.exec_server_message)
                for reply in self._exec(item.exec_server_message, turn):
                    appender.send(reply)
            case "kv_server_message":
                kv = item.kv_server_message
                stored = kv.set_blob_args
                if (
                    kv.HasField("set_blob_args")
                    and stored.blob_id != sha256(stored.blob_data).digest()
                ):
                    turn.violations.append("a blob id that is not the SHA-256 of its bytes")
                if kv.HasField("get_blob_args"):
                    turn.blobs_asked.append(kv.get_blob_args.blob_id)
                    if not self.answers_blobs:
                        return
                if self.kv_answers == "at once":
                    appender.send(self._kv(kv))
                else:
                    turn.kv_held.append(self._kv(kv))
            case "interaction_query":
                answered = self._query(item.interaction_query, turn)
                if answered is not None:
                    appender.send(pb.AgentClientMessage(interaction_response=answered))
            case "conversation_checkpoint_update":
                state = item.conversation_checkpoint_update
                # The CLI reads these back by blob id.
                named = [*state.turns, *state.todos, *([state.plan] if state.plan else [])]
                missing = [t.hex()[:12] for t in named if t not in self.blobs]
                if missing:
                    turn.violations.append(f"a checkpoint names blobs not stored: {missing}")
                turn.checkpoints.append(state)
                self.checkpoint = state

    def _query(self, query: pb.InteractionQuery, turn: CliTurn) -> pb.InteractionResponse | None:
        """A query as this build takes it: the Nov-2025 one fails its run on
        any but web search's; a newer one asks its user."""
        turn.queries.append(query)
        kind = query.WhichOneof("query")
        if self.build == NOV_2025 and kind == "web_search_request_query":
            response = pb.InteractionResponse(id=query.id)
            response.web_search_request_response.rejected.reason = "User Rejected"
            return response
        if self.build == NOV_2025:
            turn.violations.append(f"interaction query {kind}: the CLI fails its run")
            return None
        if kind == "ask_question_interaction_query":
            asked = query.ask_question_interaction_query
            if not asked.tool_call_id or not asked.args.questions:
                turn.violations.append("a question without tool_call_id or args: the CLI throws")
                return None
            if self.later is not None and asked.args.run_async:
                answered = self.later(query)
                if answered is not None:
                    self.answer_later.append(
                        pb.AsyncAskQuestionCompletionAction(
                            original_tool_call_id=asked.tool_call_id,
                            original_args=asked.args,
                            result=answered.ask_question_interaction_response.result,
                        )
                    )
                pending = pb.AskQuestionResult()
                getattr(pending, "async").SetInParent()  # `async` is a keyword
                return question_response(query, pending)
        return self.user(query)

    def _update(self, update: pb.InteractionUpdate, turn: CliTurn) -> None:
        kind = update.WhichOneof("message")
        if kind == "text_delta":
            turn.text += update.text_delta.text
        elif kind == "user_message_appended":
            turn.appended.append(update.user_message_appended.user_message.message_id)
        elif kind == "token_delta":
            turn.token_deltas.append(update.token_delta.tokens)
        elif kind in CARDS:
            card = getattr(update, kind)
            if not card.model_call_id or not card.HasField("tool_call"):
                turn.dropped.append(kind)
                turn.violations.append(f"{kind} without model_call_id or tool_call: dropped")
                return
            self._check_read_image(card.tool_call, turn)
            turn.cards.append(update)
        elif kind == "tool_call_delta":
            if not update.tool_call_delta.call_id:
                turn.dropped.append(kind)
                return
            turn.cards.append(update)

    def _check_read_image(self, card: pb.ToolCall, turn: CliTurn) -> None:
        """A read card shows its image from the KV store by blob id: the blob
        must be there already, and the bytes never ride in the card."""
        success = card.read_tool_call.result.success
        match success.WhichOneof("output"):
            case "data":
                turn.violations.append("a read card carries the image bytes inline")
            case "data_blob_id" if success.data_blob_id not in self.blobs:
                turn.violations.append("a read card names an image blob never set")

    def _exec(self, request: pb.ExecServerMessage, turn: CliTurn) -> list[pb.AgentClientMessage]:
        kind = request.WhichOneof("message")
        if kind == "request_context_args":
            if not self.answers_context:
                return []
            success = pb.RequestContextSuccess(request_context=self.context)
            result = pb.RequestContextResult(success=success)
            return [exec_reply(request, request_context_result=result)]
        if kind == "read_args":
            return [
                exec_reply(request, read_result=self._read(request.read_args)),
                stream_close(request.id),
            ]
        if kind in ("shell_stream_args", "shell_args"):
            return self._shell(request, getattr(request, kind), turn)
        if kind == "mcp_args":
            return [
                exec_reply(request, mcp_result=self._mcp(request.mcp_args, turn)),
                stream_close(request.id),
            ]
        return []  # an exec kind this client does not know is never answered

    def _read(self, args: pb.ReadArgs) -> pb.ReadResult:
        """The whole file, ignoring offset and limit, with no range_applied."""
        target = self.workspace / args.path
        if not target.is_file():
            return pb.ReadResult(file_not_found=pb.ReadFileNotFound(path=args.path))
        raw = target.read_bytes()
        if is_image(raw):  # bytes and no type; total_lines 0 (no scaling here)
            success = pb.ReadSuccess(path=args.path, data=raw, total_lines=0, file_size=len(raw))
            return pb.ReadResult(success=success)
        content = target.read_text()
        return pb.ReadResult(
            success=pb.ReadSuccess(
                path=args.path, content=content, total_lines=len(content.splitlines())
            )
        )

    def _shell(
        self, request: pb.ExecServerMessage, args: pb.ShellArgs, turn: CliTurn
    ) -> list[pb.AgentClientMessage]:
        if not args.HasField("parsing_result"):
            turn.violations.append("shell exec without parsing_result")
            throw = pb.ExecClientThrow(id=request.id, error="Parsing result is required")
            control = pb.ExecClientControlMessage(throw=throw)
            return [pb.AgentClientMessage(exec_client_control_message=control)]
        if args.command.strip() and not args.parsing_result.executable_commands:
            turn.violations.append("a shell command with an empty executable list runs unasked")
        if args.skip_approval:
            turn.violations.append("skip_approval set on a shell exec")
        output = self.shell_output.get(args.command, "")
        events = [
            pb.ShellStream(start=pb.ShellStreamStart()),
            pb.ShellStream(stdout=pb.ShellStreamStdout(data=output)),
            pb.ShellStream(exit=pb.ShellStreamExit(code=0, cwd=str(self.workspace))),
        ]
        return [exec_reply(request, shell_stream=event) for event in events] + [
            stream_close(request.id)
        ]

    def _mcp(self, args: pb.McpArgs, turn: CliTurn) -> pb.McpResult:
        known = [tool.name for tool in self.context.tools]
        if args.name not in known:
            turn.violations.append(f"mcp_args.name {args.name!r} is none of {known}")
            return pb.McpResult(tool_not_found=pb.McpToolNotFound(name=args.name))
        text = pb.McpTextContent(text=f"{args.name} ran")
        items = [pb.McpToolResultContentItem(text=text)]
        items.extend(
            pb.McpToolResultContentItem(image=pb.McpImageContent(data=data, mime_type="image/jpeg"))
            for data in self.mcp_images.get(args.name, [])
        )
        return pb.McpResult(success=pb.McpSuccess(content=items))

    def _kv(self, message: pb.KvServerMessage) -> pb.AgentClientMessage:
        if message.WhichOneof("message") == "set_blob_args":
            self.blobs[message.set_blob_args.blob_id] = message.set_blob_args.blob_data
            reply = pb.KvClientMessage(id=message.id, set_blob_result=pb.SetBlobResult())
        else:
            found = pb.GetBlobResult()
            data = self.blobs.get(message.get_blob_args.blob_id)
            if data is not None:
                found.blob_data = data
            reply = pb.KvClientMessage(id=message.id, get_blob_result=found)
        return pb.AgentClientMessage(kv_client_message=reply)


def user_message(
    text: str, context: pb.RequestContext | None, message_id: str | None = None
) -> pb.ConversationAction:
    action = pb.UserMessageAction(
        user_message=pb.UserMessage(text=text, message_id=message_id or str(uuid.uuid4()))
    )
    if context is not None:
        action.request_context.CopyFrom(context)
    return pb.ConversationAction(user_message_action=action)


def resume() -> pb.ConversationAction:
    """What the CLI runs on a new request id after it lost its stream."""
    return pb.ConversationAction(resume_action=pb.ResumeAction())
