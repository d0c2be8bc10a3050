"""A test client that plays the official Cursor CLI's rules on the HTTP/1.1
path (RunSSE + BidiAppend), written from the protocol documents
(../shared/protocol: official-client.md, reference.md §1 and §3.3,
messages.md), not from the server's code. It shares only the generated
protobuf schema with the server: the framing and the three codecs are its own,
so a misreading of the protocol in the server does not hide behind the same
misreading here.

Rules it plays (official-client.md): `x-request-id` = the BidiRequestId; the
appends start with the stream, seqno from 0, hex data, up to 16 in flight at
once (so they may arrive out of order); the first failed append stops every
later one; exec results are keyed by `id` and followed by
`stream_close{id}`; cards without `model_call_id` or `tool_call` are dropped
(and recorded); shell execs need a `parsing_result`; KV blobs are kept by
SHA-256 id; every checkpoint is kept and the latest goes back as
`conversation_state`; frames after the end-of-stream frame, or a body left
open after it, are errors; an error end without `aiserver.v1.ErrorDetails`
is a silent drop. An image file (agent-features.md §1.5: told by its first
bytes) is read as `ReadSuccess.data`, bytes with no type; a read card shows
it by `data_blob_id`, which must name a blob already set.

Interaction queries (agent-features.md §4.3) are answered as the build its
headers name does: the Nov-2025 CLI (its own headers) rejects every web
search ("User Rejected", its TUI) and cannot answer any other query (its
run fails: recorded as an error, never answered); a newer build (other
`client_headers`) approves web searches and fetches, or rejects them with
`rejects_web` set, and shows a question, a mode switch or a plan to its
`user` (an answer, or None never to answer).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import io
import json
import struct
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from google.protobuf import json_format
from google.protobuf.message import Message

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as ed

CODECS = ("proto", "json", "grpc-web")
RUN_SSE = "/agent.v1.AgentService/RunSSE"
BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend"
IN_FLIGHT = 16
CARD_KINDS = ("tool_call_started", "tool_call_completed", "partial_tool_call", "tool_call_delta")
END_GRACE_S = 2.0
"""How long the body may stay open after the end-of-stream frame before it
counts as left open."""

DATA, COMPRESSED, END, TRAILERS = 0x00, 0x01, 0x02, 0x80


def looks_like_an_image(data: bytes) -> bool:
    """PNG, JPEG, GIF or WebP by their magic numbers (agent-features.md §1.5)."""
    if data[:8] == bytes.fromhex("89504e470d0a1a0a") or data[:3] == bytes.fromhex("ffd8ff"):
        return True
    return data[:6] in (b"GIF87a", b"GIF89a") or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


# --- framing (reference.md §1.4): flag byte, 4-byte big-endian length, payload


def envelope(payload: bytes, flags: int = DATA) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


class Deframer:
    """Frames out of a byte stream that HTTP chunks split or merge at will."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self.buffer += data
        frames = []
        while len(self.buffer) >= 5:
            flags, length = struct.unpack(">BI", self.buffer[:5])
            if len(self.buffer) < 5 + length:
                break
            frames.append((flags, self.buffer[5 : 5 + length]))
            self.buffer = self.buffer[5 + length :]
        return frames


@dataclass(frozen=True)
class Codec:
    """Content types and payload encoding of one codec (reference.md §1.3)."""

    name: str
    stream_type: str
    unary_type: str
    json: bool
    unary_framed: bool

    def encode(self, message: Message) -> bytes:
        if self.json:
            return json_format.MessageToJson(message, indent=None).encode()
        return message.SerializeToString()

    def decode(self, payload: bytes, message: Message) -> Message:
        if self.json:
            json_format.Parse(payload, message, ignore_unknown_fields=True)
        else:
            message.ParseFromString(payload)
        return message

    def headers(self, request_id: str, streaming: bool) -> dict[str, str]:
        headers = {
            "content-type": self.stream_type if streaming else self.unary_type,
            "x-request-id": request_id,
            "authorization": "Bearer official-cli-test",
            "x-cursor-client-type": "cli",
            "x-cursor-client-version": "cli-2025.11.25-d5b3271",
            "x-cursor-streaming": "true",
            "x-ghost-mode": "true",
        }
        if self.name != "grpc-web":
            headers["connect-protocol-version"] = "1"
        return headers


CODEC = {
    "proto": Codec("proto", "application/connect+proto", "application/proto", False, False),
    "json": Codec("json", "application/connect+json", "application/json", True, False),
    "grpc-web": Codec(
        "grpc-web", "application/grpc-web+proto", "application/grpc-web+proto", False, True
    ),
}


# --- what one run saw


@dataclass
class EndOfStream:
    code: str | None = None
    message: str = ""
    details: list[ed.ErrorDetails] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.code is None


@dataclass
class Run:
    request_id: str
    events: list[tuple[str, Any]] = field(default_factory=list)
    """Everything in arrival order: (kind, message) with kinds such as
    `text_delta`, `exec`, `kv_set`, `checkpoint`, `end`."""
    end: EndOfStream | None = None
    errors: list[str] = field(default_factory=list)
    """Breaches of the protocol seen by this run (a failing check)."""
    dropped: list[tuple[str, str]] = field(default_factory=list)
    """Cards the official CLI would have dropped: (kind, why)."""
    failed_append: int | None = None

    def kinds(self) -> list[str]:
        return [k for k, _ in self.events if k != "heartbeat"]

    def of(self, kind: str) -> list[Any]:
        return [m for k, m in self.events if k == kind]

    def text(self) -> str:
        return "".join(m.text for m in self.of("text_delta"))

    def tokens(self) -> int:
        return sum(m.tokens for m in self.of("token_delta"))


ExecHook = Callable[[pb.ExecServerMessage, "RunHandle"], Awaitable[bool]]
QueryUser = Callable[[pb.InteractionQuery], "pb.InteractionResponse | None"]
"""The person at a newer client: the answer to a query, None for none."""
"""Called before an exec is answered; False leaves it unanswered."""


class OfficialCli:
    """One installation of the CLI: its blob store and checkpoints outlive runs."""

    def __init__(
        self,
        base_url: str,
        codec: str,
        workspace: Path,
        *,
        answer_request_context: bool = True,
        timeout_s: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.codec = CODEC[codec]
        self.workspace = workspace
        self.answer_request_context = answer_request_context
        self.timeout_s = timeout_s
        self.client_headers: dict[str, str] = {}
        """Headers sent instead of the Nov-2025 CLI's own (another client's)."""
        self.blobs: dict[bytes, bytes] = {}
        self.checkpoints: list[pb.ConversationStateStructure] = []
        self.exec_hook: ExecHook | None = None
        self.user: QueryUser | None = None
        """A newer build's user answering questions, mode switches and plans."""
        self.rejects_web: str | None = None
        """A newer build's user rejecting web searches and fetches, with this reason."""
        self.answer_after_s: float | None = 0.0
        """How long the user takes to answer a query; None: never answers."""
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> OfficialCli:
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_read=self.timeout_s)
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    @property
    def session(self) -> aiohttp.ClientSession:
        assert self._session is not None, "use `async with OfficialCli(...)`"
        return self._session

    def headers(self, request_id: str, streaming: bool) -> dict[str, str]:
        return {**self.codec.headers(request_id, streaming), **self.client_headers}

    # --- unary calls (model lists)

    async def unary(self, path: str, request: Message, response: Message) -> Message:
        body = self.codec.encode(request)
        if self.codec.unary_framed:
            body = envelope(body)
        headers = self.headers(str(uuid.uuid4()), streaming=False)
        async with self.session.post(self.base_url + path, data=body, headers=headers) as reply:
            raw = await reply.read()
            if reply.status != 200:
                raise AssertionError(f"{path}: HTTP {reply.status} {raw[:200]!r}")
        if self.codec.unary_framed:
            frames = [p for flags, p in Deframer().feed(raw) if not flags & TRAILERS]
            raw = frames[0] if frames else b""
        return self.codec.decode(raw, response)

    async def default_model(self) -> str:
        """What a fresh install without `--model` does: ask AiService."""
        usable = await self.unary(
            "/aiserver.v1.AiService/GetUsableModels",
            pb.GetUsableModelsRequest(),
            pb.GetUsableModelsResponse(),
        )
        assert isinstance(usable, pb.GetUsableModelsResponse)
        default = await self.unary(
            "/aiserver.v1.AiService/GetDefaultModelForCli",
            pb.GetDefaultModelForCliRequest(),
            pb.GetDefaultModelForCliResponse(),
        )
        assert isinstance(default, pb.GetDefaultModelForCliResponse)
        model = default.model.model_id
        if not model:
            raise AssertionError("No model found")
        return model

    # --- runs

    def run_request(
        self, conversation_id: str, model: str, action: pb.ConversationAction
    ) -> pb.AgentClientMessage:
        request = pb.AgentRunRequest(conversation_id=conversation_id, action=action)
        request.model_details.model_id = model
        if self.checkpoints:
            request.conversation_state.CopyFrom(self.checkpoints[-1])
        return pb.AgentClientMessage(run_request=request)

    def user_action(self, text: str, with_context: bool = True) -> pb.ConversationAction:
        action = pb.ConversationAction()
        message = action.user_message_action.user_message
        message.text = text
        message.message_id = str(uuid.uuid4())
        if with_context:
            action.user_message_action.request_context.CopyFrom(self.request_context())
        return action

    def request_context(self) -> pb.RequestContext:
        context = pb.RequestContext()
        context.env.workspace_paths.append(str(self.workspace))
        context.env.shell = "bash"
        context.env.os_version = "linux"
        return context

    def start(
        self,
        conversation_id: str,
        model: str,
        action: pb.ConversationAction,
        request_id: str | None = None,
    ) -> RunHandle:
        handle = RunHandle(self, request_id or str(uuid.uuid4()))
        handle.begin(self.run_request(conversation_id, model, action))
        return handle

    async def turn(self, conversation_id: str, model: str, text: str) -> Run:
        return await self.start(conversation_id, model, self.user_action(text)).finish()

    async def resume(self, conversation_id: str, model: str) -> Run:
        action = pb.ConversationAction()
        action.resume_action.SetInParent()
        return await self.start(conversation_id, model, action).finish()


class RunHandle:
    """One RunSSE stream and its append pump."""

    def __init__(self, cli: OfficialCli, request_id: str) -> None:
        self.cli = cli
        self.run = Run(request_id)
        self.seqno = 0
        self.window = asyncio.Semaphore(IN_FLIGHT)
        self.appends: list[asyncio.Task[None]] = []
        self.execs: list[asyncio.Task[None]] = []
        self.reader: asyncio.Task[None] | None = None
        self.seen = asyncio.Event()
        """Set whenever a frame arrives (tests wait on `until`)."""

    # --- appends

    def begin(self, first: pb.AgentClientMessage) -> None:
        self.reader = asyncio.create_task(self._read())
        self.send(first)  # concurrently with the stream, as the CLI does

    def send(self, message: pb.AgentClientMessage) -> None:
        seqno, self.seqno = self.seqno, self.seqno + 1
        self.appends.append(asyncio.create_task(self._append(seqno, message)))

    async def _append(self, seqno: int, message: pb.AgentClientMessage) -> None:
        async with self.window:
            if self.run.failed_append is not None and seqno > self.run.failed_append:
                return  # one failed append stops every later one
            request = bidi_pb2.BidiAppendRequest(
                data=message.SerializeToString().hex(), append_seqno=seqno
            )
            request.request_id.request_id = self.run.request_id
            body = self.cli.codec.encode(request)
            if self.cli.codec.unary_framed:
                body = envelope(body)
            headers = self.cli.headers(self.run.request_id, streaming=False)
            url = self.cli.base_url + BIDI_APPEND
            try:
                # A file object: aiohttp streams it instead of warning about big bytes.
                data = io.BytesIO(body)
                async with self.cli.session.post(url, data=data, headers=headers) as reply:
                    await reply.read()
                    status = reply.status
            except (aiohttp.ClientError, OSError) as error:
                status = -1
                self.run.errors.append(f"append {seqno}: {error!r}")
            if status != 200:
                self.run.errors.append(f"append {seqno} answered HTTP {status}")
                if self.run.failed_append is None or seqno < self.run.failed_append:
                    self.run.failed_append = seqno

    # --- the stream

    async def _read(self) -> None:
        codec = self.cli.codec
        body = envelope(codec.encode(bidi_pb2.BidiRequestId(request_id=self.run.request_id)))
        headers = self.cli.headers(self.run.request_id, streaming=True)
        try:
            async with self.cli.session.post(
                self.cli.base_url + RUN_SSE, data=body, headers=headers
            ) as reply:
                if reply.status != 200:
                    text = await reply.text()
                    self._ended(EndOfStream("http", f"HTTP {reply.status}: {text[:300]}"))
                    return
                await self._frames(reply)
        except (aiohttp.ClientError, TimeoutError) as error:
            if self.run.end is None:
                self._ended(EndOfStream("connection", repr(error)))
        finally:
            self.seen.set()

    async def _frames(self, reply: aiohttp.ClientResponse) -> None:
        deframer = Deframer()
        async for chunk in reply.content.iter_any():
            for flags, payload in deframer.feed(chunk):
                if self.run.end is not None:
                    self.run.errors.append("a frame after the end-of-stream frame")
                    continue
                if flags & (END | TRAILERS):
                    self._ended(self._end_of(flags, payload))
                    await self._expect_closed(reply)
                    return
                message = self.cli.codec.decode(payload, pb.AgentServerMessage())
                assert isinstance(message, pb.AgentServerMessage)
                self._on_message(message)
        if self.run.end is None:
            if self.cli.codec.name == "grpc-web" and reply.headers.get("grpc-status") == "0":
                self._ended(EndOfStream())
            else:
                self._ended(EndOfStream("connection", "the body ended without an end frame"))

    async def _expect_closed(self, reply: aiohttp.ClientResponse) -> None:
        try:
            rest = await asyncio.wait_for(reply.content.read(), END_GRACE_S)
        except TimeoutError:
            self.run.errors.append("the response body was left open after the end frame")
            return
        if rest:
            self.run.errors.append(f"{len(rest)} bytes after the end-of-stream frame")

    def _end_of(self, flags: int, payload: bytes) -> EndOfStream:
        if flags & TRAILERS:
            return self._grpc_web_end(payload)
        error = json.loads(payload or b"{}").get("error")
        if error is None:
            return EndOfStream()
        details = []
        for detail in error.get("details", []):
            if detail.get("type") == "aiserver.v1.ErrorDetails":
                value = detail["value"] + "=" * (-len(detail["value"]) % 4)
                details.append(ed.ErrorDetails.FromString(base64.b64decode(value)))
        return EndOfStream(error.get("code", "unknown"), error.get("message", ""), details)

    def _grpc_web_end(self, payload: bytes) -> EndOfStream:
        trailers = {}
        for line in payload.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name:
                trailers[name.strip().lower()] = value.strip()
        if trailers.get("grpc-status", "0") == "0":
            return EndOfStream()
        details = []
        raw = trailers.get("grpc-status-details-bin", "")
        status = base64.b64decode(raw + "=" * (-len(raw) % 4)) if raw else b""
        marker = b"aiserver.v1.ErrorDetails"
        if marker in status:
            details.append(_error_details_in_status(status))
        return EndOfStream(trailers["grpc-status"], trailers.get("grpc-message", ""), details)

    def _ended(self, end: EndOfStream) -> None:
        self.run.end = end
        self.run.events.append(("end", end))
        if not end.ok and not end.details:
            self.run.errors.append(f"silent drop: error end without ErrorDetails: {end}")
        self.seen.set()

    # --- what the CLI does with each message

    def _on_message(self, message: pb.AgentServerMessage) -> None:
        which = message.WhichOneof("message")
        if which == "interaction_update":
            update = message.interaction_update
            kind = update.WhichOneof("message") or "unknown_update"
            inner = getattr(update, kind) if kind != "unknown_update" else update
            if kind in CARD_KINDS and (why := card_drop(kind, inner)) is not None:
                self.run.dropped.append((kind, why))
            if kind == "tool_call_completed":
                self._check_image_card(update.tool_call_completed.tool_call)
            self.run.events.append((kind, inner))
        elif which == "exec_server_message":
            self.run.events.append(("exec", message.exec_server_message))
            self.execs.append(asyncio.create_task(self._exec(message.exec_server_message)))
        elif which == "kv_server_message":
            self._kv(message.kv_server_message)
        elif which == "conversation_checkpoint_update":
            state = message.conversation_checkpoint_update
            self._check_blobs_named(state)
            self.cli.checkpoints.append(state)
            self.run.events.append(("checkpoint", state))
        elif which == "interaction_query":
            self.run.events.append(("interaction_query", message.interaction_query))
            self._query(message.interaction_query)
        else:
            self.run.events.append((which or "unknown", message))
        self.seen.set()

    def _query(self, query: pb.InteractionQuery) -> None:
        """Answer as the build does (see the module's docstring)."""
        kind = query.WhichOneof("query") or "unknown"
        newer = bool(self.cli.client_headers)
        if kind not in ("web_search_request_query", "web_fetch_request_query"):
            if newer and self.cli.user is not None:  # a question, a mode switch, a plan
                if (reply := self.cli.user(query)) is not None:
                    self.send(pb.AgentClientMessage(interaction_response=reply))
                return
            self.run.errors.append(f"interaction query {kind}: this client cannot answer it")
            return
        if not newer and kind != "web_search_request_query":
            self.run.errors.append(f"interaction query {kind}: the Nov-2025 CLI fails its run")
            return
        reason = self.cli.rejects_web if newer else "User Rejected"
        field = kind.replace("_query", "_response")
        response = pb.InteractionResponse(id=query.id)
        answer = getattr(response, field)
        if reason is None:
            answer.approved.SetInParent()
        else:
            answer.rejected.reason = reason
        message = pb.AgentClientMessage(interaction_response=response)
        if self.cli.answer_after_s is not None:
            asyncio.get_running_loop().call_later(self.cli.answer_after_s, self.send, message)

    def _check_image_card(self, card: pb.ToolCall) -> None:
        success = card.read_tool_call.result.success
        which = success.WhichOneof("output")
        if which == "data":
            self.run.errors.append("read card: image bytes inline instead of data_blob_id")
        elif which == "data_blob_id" and success.data_blob_id not in self.cli.blobs:
            self.run.errors.append(f"read card names blob {success.data_blob_id.hex()} never set")

    def _check_blobs_named(self, state: pb.ConversationStateStructure) -> None:
        for blob_id in [*state.root_prompt_messages_json, *state.turns, *state.todos]:
            if blob_id not in self.cli.blobs:
                self.run.errors.append(f"checkpoint names blob {blob_id.hex()} never set")

    def _kv(self, kv: pb.KvServerMessage) -> None:
        which = kv.WhichOneof("message")
        reply = pb.KvClientMessage(id=kv.id)
        if which == "set_blob_args":
            blob_id, data = kv.set_blob_args.blob_id, kv.set_blob_args.blob_data
            if hashlib.sha256(data).digest() != blob_id:
                self.run.errors.append(f"blob id {blob_id.hex()} is not the SHA-256 of its data")
            self.cli.blobs[blob_id] = data
            reply.set_blob_result.SetInParent()
            self.run.events.append(("kv_set", kv.set_blob_args))
        elif which == "get_blob_args":
            stored = self.cli.blobs.get(kv.get_blob_args.blob_id)
            reply.get_blob_result.SetInParent()
            if stored is not None:  # a missing id gets no data
                reply.get_blob_result.blob_data = stored
            self.run.events.append(("kv_get", kv.get_blob_args))
        else:
            self.run.events.append(("kv_unknown", kv))
            return
        self.send(pb.AgentClientMessage(kv_client_message=reply))

    async def _exec(self, request: pb.ExecServerMessage) -> None:
        which = request.WhichOneof("message")
        if which in ("shell_args", "shell_stream_args"):
            self._check_shell(getattr(request, which))
        if which == "request_context_args" and not self.cli.answer_request_context:
            return  # a print-mode client does not answer
        hook = self.cli.exec_hook
        if hook is not None and not await hook(request, self):
            return
        replies = await execute(request, self.cli)
        if replies is None:
            return  # an exec type the CLI does not know is never answered
        for reply in replies:
            reply.id = request.id  # keyed by id only: exec_id is not echoed
            self.send(pb.AgentClientMessage(exec_client_message=reply))
        close = pb.ExecClientControlMessage()
        close.stream_close.id = request.id
        self.send(pb.AgentClientMessage(exec_client_control_message=close))

    def _check_shell(self, args: pb.ShellArgs) -> None:
        if not args.HasField("parsing_result"):
            self.run.errors.append(f"shell {args.command!r}: Parsing result is required")
        elif not args.parsing_result.executable_commands:
            self.run.errors.append(f"shell {args.command!r}: no executable commands")
        if args.skip_approval:
            self.run.errors.append(f"shell {args.command!r}: skip_approval is set")

    # --- for the tests

    def append_action(self, action: pb.ConversationAction) -> None:
        self.send(pb.AgentClientMessage(conversation_action=action))

    async def until(self, test: Callable[[Run], bool], within: float = 20.0) -> Run:
        async def wait() -> None:
            while not test(self.run):
                if self.run.end is not None:
                    raise AssertionError(f"the run ended first: {self.run.end}")
                self.seen.clear()
                await self.seen.wait()

        await asyncio.wait_for(wait(), within)
        return self.run

    async def finish(self, within: float = 30.0) -> Run:
        assert self.reader is not None
        await asyncio.wait_for(asyncio.shield(self.reader), within)
        await asyncio.gather(*self.appends, return_exceptions=True)
        return self.run

    async def hang_up(self) -> None:
        """The connection is lost: no more reads, no more appends."""
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        self.run.failed_append = -1


def card_drop(kind: str, update: Any) -> str | None:
    if not update.model_call_id:
        return "empty model_call_id"
    if kind == "tool_call_delta":
        return None if update.call_id else "no call_id"
    if not update.HasField("tool_call"):
        return "no tool_call"
    return None


def _error_details_in_status(status: bytes) -> ed.ErrorDetails:
    """google.rpc.Status{details: [Any{type_url, value}]}, read by hand."""
    any_start = status.index(b"aiserver.v1.ErrorDetails") + len(b"aiserver.v1.ErrorDetails")
    # Any.value is field 2 (tag 0x12) right after the type URL.
    assert status[any_start] == 0x12
    length, offset = _varint(status, any_start + 1)
    return ed.ErrorDetails.FromString(status[offset : offset + length])


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset


async def execute(
    request: pb.ExecServerMessage, cli: OfficialCli
) -> list[pb.ExecClientMessage] | None:
    """Run the exec in the workspace as the CLI would; None for an unknown one."""
    which = request.WhichOneof("message")
    root = cli.workspace
    if which == "read_args":
        path = root / request.read_args.path
        reply = pb.ExecClientMessage()
        if not path.exists():
            reply.read_result.file_not_found.path = request.read_args.path
        elif looks_like_an_image(raw := path.read_bytes()):
            reply.read_result.success.CopyFrom(
                pb.ReadSuccess(
                    path=request.read_args.path, data=raw, total_lines=0, file_size=len(raw)
                )
            )
        else:
            content = path.read_text()
            reply.read_result.success.CopyFrom(
                pb.ReadSuccess(
                    path=request.read_args.path,
                    content=content,
                    total_lines=content.count("\n"),
                    file_size=len(content.encode()),
                )
            )
        return [reply]
    if which == "write_args":
        path = root / request.write_args.path
        path.parent.mkdir(parents=True, exist_ok=True)  # the folders it needs, made first
        path.write_text(request.write_args.file_text)
        reply = pb.ExecClientMessage()
        reply.write_result.success.CopyFrom(
            pb.WriteSuccess(path=request.write_args.path, file_size=path.stat().st_size)
        )
        return [reply]
    if which in ("shell_stream_args", "shell_args"):
        return await _shell(getattr(request, which), root, streamed=which == "shell_stream_args")
    if which == "request_context_args":
        reply = pb.ExecClientMessage()
        reply.request_context_result.success.request_context.CopyFrom(cli.request_context())
        return [reply]
    return None


async def _shell(args: pb.ShellArgs, root: Path, streamed: bool) -> list[pb.ExecClientMessage]:
    process = await asyncio.create_subprocess_shell(
        args.command,
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    code = process.returncode or 0
    if not streamed:
        reply = pb.ExecClientMessage()
        result = reply.shell_result.success if code == 0 else reply.shell_result.failure
        result.command = args.command
        result.exit_code = code
        result.stdout = out.decode(errors="replace")
        result.stderr = err.decode(errors="replace")
        return [reply]
    events = [pb.ShellStream(start=pb.ShellStreamStart())]
    if out:
        events.append(
            pb.ShellStream(stdout=pb.ShellStreamStdout(data=out.decode("utf-8", "replace")))
        )
    if err:
        events.append(
            pb.ShellStream(stderr=pb.ShellStreamStderr(data=err.decode("utf-8", "replace")))
        )
    events.append(pb.ShellStream(exit=pb.ShellStreamExit(code=code, cwd=str(root))))
    return [pb.ExecClientMessage(shell_stream=event) for event in events]
