"""Tools the server runs itself, through the real session hub, runner, loop
and SQLite store: a `ServerTool` that asks the client an interaction query
is shown with its cards, waits for the answer (which may come with id 0),
gives up after its bounded wait, stops with the turn, and an exception in
it becomes an error result; each outcome reaches the model once, as an
exec's result would."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cursor_byok.llm.types import JSONObject, TextContent, ToolCall, ToolResultMessage
from cursor_byok.loop.inputs import Cancel, Start
from cursor_byok.loop.state import Status, TurnSettings
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool, ToolContext
from cursor_byok.transport.dialect.tool_base import ToolOutcome, object_schema
from cursor_byok.transport.dialect.tools import ToolSet
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.hub import SessionHub
from cursor_byok.transport.sessions.session import EndOfStream, QueueItem, Session
from cursor_byok.transport.sessions.sink import OutputSink
from tests.factories import assistant, stream_of, user
from tests.fakes import ScriptedLLM


@dataclass
class Probe(ServerTool):
    """Asks the client to approve a search, then says what came of it."""

    wait_s: float = 5.0
    fail: bool = False
    runs: list[str] = field(default_factory=list)
    name = "probe"
    description = "Search, once the user approves."
    parameters = object_schema({"term": {"type": "string"}}, ["term"])
    queries = ("web_search_request_query",)

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        args = pb.WebSearchArgs(search_term=str(call.arguments.get("term", "")))
        return pb.ToolCall(web_search_tool_call=pb.WebSearchToolCall(args=args))

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        self.runs.append(call.id)
        if self.fail:
            raise RuntimeError("the backend is down")
        query = pb.InteractionQuery(
            web_search_request_query=pb.WebSearchRequestQuery(
                args=self.card(call).web_search_tool_call.args
            )
        )
        answer = await context.ask(query, self.wait_s)
        card = self.card(call)
        if answer is None or not answer.web_search_request_response.HasField("approved"):
            card.web_search_tool_call.result.rejected.reason = "not approved"
            return ServerOutcome(card, ToolOutcome("The user did not approve the search.", True))
        card.web_search_tool_call.result.success.SetInParent()
        return ServerOutcome(card, ToolOutcome(f"Searched for {call.arguments['term']}.", False))


def probe_call(call_id: str = "p1") -> ToolCall:
    arguments: JSONObject = {"term": "cursor"}
    return ToolCall(call_id, "probe", arguments, raw_arguments=json.dumps(arguments))


@dataclass
class Rig:
    hub: SessionHub
    session: Session
    runner: Runner
    store: SQLiteStore
    llm: ScriptedLLM
    taken: list[QueueItem] = field(default_factory=list)
    seqno: int = 0

    async def until(self, test: Callable[[QueueItem], bool], within: float = 5.0) -> QueueItem:
        async def wait() -> QueueItem:
            while True:
                for item in self.session.outbox.take(100):
                    self.taken.append(item)
                    if test(item):
                        return item
                await asyncio.sleep(0.01)

        return await asyncio.wait_for(wait(), within)

    async def answer(self, number: int, approved: bool) -> None:
        response = pb.InteractionResponse(id=number)
        branch = response.web_search_request_response
        if approved:
            branch.approved.SetInParent()
        else:
            branch.rejected.reason = "no"
        message = pb.AgentClientMessage(interaction_response=response)
        await self.hub.append(self.session.request_id, self.seqno, message.SerializeToString())
        self.seqno += 1

    def kinds(self) -> list[str]:
        found = []
        for item in self.taken:
            if isinstance(item, pb.AgentServerMessage):
                top = item.WhichOneof("message") or ""
                if top == "interaction_update":
                    top = item.interaction_update.WhichOneof("message") or ""
                found.append(top)
        return found

    def results(self) -> list[ToolResultMessage]:
        loaded = self.store.load("conv-s")
        assert loaded is not None
        return [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]


@asynccontextmanager
async def rig(tmp_path: Path, tool: Probe, replies: list[str]) -> AsyncIterator[Rig]:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    scripts = [stream_of(assistant(TextContent("Searching."), probe_call()))]
    scripts += [stream_of(assistant(TextContent(text))) for text in replies]
    llm = ScriptedLLM(scripts)
    sink = OutputSink()
    runner = Runner(store, llm, sink, retry=RetryPolicy(1, 0.001, 0.01))
    hub = SessionHub(runner, sink)
    session = hub.session("req-s")
    session.conversation_id = "conv-s"
    session.tools = ToolSet(MappingProxyType({tool.name: tool}))
    sink.serve("conv-s", session)
    settings = TurnSettings(model="m", tools=(tool.definition(),))
    try:
        await runner.submit("conv-s", "start", Start(user("search it"), settings=settings))
        yield Rig(hub, session, runner, store, llm)
    finally:
        await hub.close()
        await runner.close()
        store.close()


def text_of(message: ToolResultMessage) -> str:
    return "".join(block.text for block in message.content if isinstance(block, TextContent))


def is_query(item: QueueItem) -> bool:
    return isinstance(item, pb.AgentServerMessage) and item.HasField("interaction_query")


def is_end(item: QueueItem) -> bool:
    return isinstance(item, EndOfStream)


async def test_a_query_is_asked_after_the_started_card_and_its_answer_completes_the_call(
    tmp_path: Path,
) -> None:
    tool = Probe()
    async with rig(tmp_path, tool, ["Found it."]) as r:
        query = await r.until(is_query)
        assert isinstance(query, pb.AgentServerMessage)
        asked = query.interaction_query
        assert asked.id > 0 and asked.web_search_request_query.args.search_term == "cursor"
        await r.answer(asked.id, approved=True)
        end = await r.until(is_end)
        results = r.results()
    assert isinstance(end, EndOfStream) and end.error is None
    kinds = r.kinds()
    started, completed = kinds.index("tool_call_started"), kinds.index("tool_call_completed")
    assert started < kinds.index("interaction_query") < completed
    assert [(m.tool_call_id, text_of(m), m.is_error) for m in results] == [
        ("p1", "Searched for cursor.", False)
    ]
    assert tool.runs == ["p1"]
    assert "Searched for cursor." in r.llm.requests[1][1].decode()


async def test_an_answer_with_id_zero_goes_to_the_one_query_waiting(tmp_path: Path) -> None:
    async with rig(tmp_path, Probe(), ["Found it."]) as r:
        await r.until(is_query)
        await r.answer(0, approved=False)
        await r.until(is_end)
        results = r.results()
    assert [(text_of(m), m.is_error) for m in results] == [
        ("The user did not approve the search.", True)
    ]


async def test_no_answer_within_the_wait_ends_the_call_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, Probe(wait_s=0.2), ["Never mind."]) as r:
        await r.until(is_end)
        results = r.results()
        state = await r.runner.state_of("conv-s")
    assert [text_of(m) for m in results] == ["The user did not approve the search."]
    assert state is not None and state.status is Status.FINAL


async def test_a_cancel_stops_the_run_and_nothing_it_would_say_is_kept(tmp_path: Path) -> None:
    tool = Probe()
    async with rig(tmp_path, tool, []) as r:
        await r.until(is_query)
        assert len(r.session.server_runs) == 1
        await r.runner.submit("conv-s", "cancel", Cancel("stop", 5))
        end = await r.until(is_end)
        await asyncio.sleep(0.05)
        assert len(r.session.server_runs) == 0
        results = r.results()
    assert isinstance(end, EndOfStream) and end.error is not None
    assert "tool_call_completed" not in r.kinds()
    assert [(text_of(m), m.is_error) for m in results] == [("Tool call canceled: stop", True)]


async def test_a_run_that_raises_is_an_error_result_and_the_turn_goes_on(tmp_path: Path) -> None:
    async with rig(tmp_path, Probe(fail=True), ["Sorry."]) as r:
        end = await r.until(is_end)
        results = r.results()
    assert isinstance(end, EndOfStream) and end.error is None
    assert "tool_call_completed" in r.kinds()
    assert [(text_of(m), m.is_error) for m in results] == [
        ("The tool failed: the backend is down", True)
    ]
