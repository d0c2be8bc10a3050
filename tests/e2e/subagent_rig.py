"""What the server-side subagent tests share: a model at the network edge
that answers each conversation from its own scripts (parent and children
call it concurrently, so one queue for all would race), and readers of
what the client saw of a Task call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from cursor_byok.config.subagents import SubagentsConfig, task_tool
from cursor_byok.llm.events import ResponseEvent, ResponseStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.serialize import canonical_dumps, request_to_json
from cursor_byok.llm.types import RequestMessages, TextContent, UserMessage
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import NEWER, CliTurn, OfficialCli
from tests.e2e.test_official_cli import MODELS
from tests.e2e.test_questions import as_build
from tests.fakes import ScriptedStream


def first_user_text(request: RequestMessages) -> str:
    for message in request.messages:
        if isinstance(message, UserMessage):
            content = message.content
            if isinstance(content, str):
                return content
            return "".join(c.text for c in content if isinstance(c, TextContent))
    return ""


@dataclass
class RoutedLLM:
    """Scripts by conversation: a request goes to the first key its first
    user message contains (the parent's prompt, each child's own)."""

    scripts: dict[str, list[list[ResponseEvent]]]
    delay: float = 0.0
    requests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    gates: dict[str, asyncio.Event] = field(default_factory=dict)
    """A key's calls wait for its gate (a child held mid-run)..."""
    free_calls: dict[str, int] = field(default_factory=dict)
    """...but for its first so many."""
    streams: list[ScriptedStream] = field(default_factory=list)
    together: frozenset[str] = frozenset()
    """Keys whose first calls wait until each of them has called: run one
    after another, they never would (the wait gives up after 5 s)."""
    met: asyncio.Event = field(default_factory=asyncio.Event)
    stopped: list[str] = field(default_factory=list)
    """Keys whose call was stopped while it waited (its provider call closed)."""

    def key_of(self, request: RequestMessages) -> str:
        text = first_user_text(request)
        for key in self.scripts:
            if key in text:
                return key
        raise AssertionError(f"no script for a conversation opened with {text[:80]!r}")

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        del model, ctx
        key = self.key_of(request)
        self.calls.append(key)
        self.requests.setdefault(key, []).append(request_to_json(request))
        try:
            await self._wait(key)
        except asyncio.CancelledError:
            self.stopped.append(key)
            raise
        queue = self.scripts[key]
        if not queue:
            raise AssertionError(f"{key!r} called more often than scripted")
        stream = ScriptedStream(queue.pop(0), self.delay)
        self.streams.append(stream)
        return stream

    async def _wait(self, key: str) -> None:
        if key in self.together:
            if self.together <= set(self.calls):
                self.met.set()
            await asyncio.wait_for(self.met.wait(), 5.0)
        gate = self.gates.get(key)
        if gate is not None and self.calls.count(key) > self.free_calls.get(key, 0):
            await gate.wait()


@dataclass
class SubRig:
    cli: OfficialCli
    llm: RoutedLLM
    store: SQLiteStore
    service: Service
    url: str = ""

    async def running_gauge(self) -> float:
        """`/metrics`' count of the subagents running now."""
        async with aiohttp.ClientSession() as session, session.get(f"{self.url}/metrics") as got:
            text = await got.text()
        [line] = [ln for ln in text.splitlines() if ln.startswith("cursor_byok_subagents_running")]
        return float(line.rsplit(" ", 1)[1])


@asynccontextmanager
async def subagent_rig(
    tmp_path: Path, llm: RoutedLLM, codec: str = "proto", **options: Any
) -> AsyncIterator[SubRig]:
    """The real server over a real socket, `[subagents] mode = "server"`,
    and a CLI new enough (by its headers) to draw the Task card."""
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store,
        llm,
        models=lambda: MODELS,
        retry=RetryPolicy(1, 0.001, 0.01),
        heartbeat_s=0.5,
        context_wait_s=0.3,
        server_tools=(task_tool(SubagentsConfig(mode="server"), {}),),
        **options,
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    async with serving(service) as url:
        cli = OfficialCli(url, "proto" if codec is None else codec, workspace, None, True)
        as_build(cli, NEWER)
        try:
            yield SubRig(cli, llm, store, service, url)
        finally:
            await cli.close()
    store.close()


def message_bytes(request: dict[str, Any]) -> list[bytes]:
    return [canonical_dumps(m) for m in request["messages"]]


def task_deltas(turn: CliTurn, call_id: str) -> list[pb.InteractionUpdate]:
    """The child's updates the client saw on the Task card `call_id`."""
    return [
        card.tool_call_delta.tool_call_delta.task_tool_call_delta.interaction_update
        for card in turn.cards
        if card.WhichOneof("message") == "tool_call_delta"
        and card.tool_call_delta.call_id == call_id
        and card.tool_call_delta.tool_call_delta.HasField("task_tool_call_delta")
    ]


def completed_task(turn: CliTurn, call_id: str) -> pb.TaskToolCall:
    for card in turn.cards:
        done = card.tool_call_completed
        if card.WhichOneof("message") == "tool_call_completed" and done.call_id == call_id:
            return done.tool_call.task_tool_call
    raise AssertionError(f"no completed card for {call_id}")


def child_text(turn: CliTurn, call_id: str) -> str:
    updates = task_deltas(turn, call_id)
    return "".join(u.text_delta.text for u in updates if u.HasField("text_delta"))


def last_message(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"][-1])
