"""/compress through the real server: the official CLI's summarize_action is
answered with summary_started, summary and summary_completed, and the
summary call is recorded like any other model call."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.client.client import CursorClient, End, Stream, kind, run_request
from cursor_byok.llm.types import UserMessage
from cursor_byok.loop.compaction import SUMMARY_INSTRUCTION
from cursor_byok.store.base import CallStatus
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.test_transport_behaviour import answer, is_end, server
from tests.fakes import ScriptedLLM


def checkpoints(stream: Stream) -> list[pb.ConversationTokenDetails]:
    return [
        i.conversation_checkpoint_update.token_details
        for i in stream.received
        if isinstance(i, pb.AgentServerMessage) and i.HasField("conversation_checkpoint_update")
    ]


def summarize(conversation_id: str = "conv-1") -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        run_request=pb.AgentRunRequest(
            conversation_id=conversation_id,
            action=pb.ConversationAction(summarize_action=pb.SummarizeAction()),
            requested_model=pb.RequestedModel(model_id="test-model"),
        )
    )


async def test_compress_answers_with_the_summary_updates(tmp_path: Path) -> None:
    scripts = [answer("a.txt says hello"), answer("We read a.txt; it says hello.")]
    async with server(tmp_path, scripts) as (client, store, llm):
        first = await client.open("r1")
        await client.append("r1", 0, run_request("what is in a.txt?"))
        ended = await first.until(is_end)
        assert isinstance(ended, End) and ended.error is None
        second = await client.open("r2")
        await client.append("r2", 0, summarize())
        end = await second.until(is_end)
        loaded = store.load("conv-1")
        calls = store.llm_calls("conv-1")
    assert isinstance(end, End) and end.error is None
    kinds = [kind(i) for i in second.received]
    assert [k for k in kinds if k.startswith("summary")] == [
        "summary_started",
        "summary",
        "summary_completed",
    ]
    assert "text_delta" not in kinds, "the summary is not shown as an answer"
    [summary] = [i for i in second.received if kind(i) == "summary"]
    assert isinstance(summary, pb.AgentServerMessage)
    assert summary.interaction_update.summary.summary == "We read a.txt; it says hello."
    assert loaded is not None and loaded.state.resets == (2,)
    assert isinstance(loaded.state.messages[2], UserMessage)
    assert [c.status for c in calls] == [CallStatus.COMMITTED, CallStatus.COMMITTED]
    assert SUMMARY_INSTRUCTION.encode() in llm.requests[1][1]
    # The context meter: counted usage after the turn, the summary after /compress.
    before, after = (checkpoints(stream)[-1] for stream in (first, second))
    assert before.used_tokens == 10  # the answer's counted prompt
    assert sum(c.estimated_tokens for c in before.breakdown.categories) == 10
    summarized = {c.id: c for c in after.breakdown.categories}["summarized_conversation"]
    assert summarized.character_count == len("We read a.txt; it says hello.")
    assert after.used_tokens == sum(c.estimated_tokens for c in after.breakdown.categories)


async def test_compress_with_nothing_to_summarize_ends_at_once(tmp_path: Path) -> None:
    async with server(tmp_path, []) as (client, _store, _llm):
        stream = await client.open("r1")
        await client.append("r1", 0, summarize())
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is None
    assert "turn_ended" in [kind(i) for i in stream.received]


async def test_the_window_and_the_share_reach_the_conversation(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store, ScriptedLLM([answer("hi")]), context_window=lambda _m: 12_345, compact_at=0.5
    )
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            stream = await client.open("r1")
            await client.append("r1", 0, run_request("hello"))
            ended = await stream.until(is_end)
            assert isinstance(ended, End) and ended.error is None
        finally:
            await client.close()
    loaded = store.load("conv-1")
    store.close()
    assert loaded is not None
    assert loaded.state.settings.context_window == 12_345
    assert loaded.state.settings.compact_share == 0.5
