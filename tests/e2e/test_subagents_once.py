"""A client-run subagent runs once, whatever happens to its parent's stream:
through the real server and the IDE-like client (subagent_cli.py), a
parent's stream lost while its child runs, then resumed on a new request,
finds the child the client started (no second `subagent_args`, no second
child) and gets its answer once; a child that ended while nobody listened
gives its answer to the resumed parent; a `subagent_result` repeated for a
Task call already answered is not taken twice."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from cursor_byok.client.client import exec_reply, stream_close
from cursor_byok.llm.types import ToolResultMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import Appender, CliTurn, resume
from tests.e2e.subagent_cli import Child, SubagentCli
from tests.e2e.test_subagents_client import PARENT, answer, rig, task, tool_results, uses

SLOW = "This takes a while to say, word after word after word after word."


class DroppingCli(SubagentCli):
    """Loses the parent's connection at its first heartbeat once a child
    has started speaking: the child's run goes on, on its own request.
    With `mute`, a child's answer meant for the lost request is not sent
    (the official client cancels execs of a request it lost)."""

    drop = True
    mute = False
    lost = False

    def _kind(self, item: pb.AgentServerMessage) -> str:  # type: ignore[override]
        beat = item.interaction_update.HasField("heartbeat")
        if self.drop and beat and self.child_spoke.is_set():
            self.lost = True
            return "lost"
        return super()._kind(item)

    async def _run_child(
        self, child: Child, answer_to: Appender | None, request: pb.ExecServerMessage
    ) -> None:
        muted = _Muted(answer_to, self) if answer_to is not None and self.mute else answer_to
        await super()._run_child(child, muted, request)  # type: ignore[arg-type]


@dataclass
class _Muted:
    """An appender that sends nothing once its client lost the request."""

    appender: Appender
    cli: DroppingCli

    def send(self, message: pb.AgentClientMessage) -> None:
        if not self.cli.lost:
            self.appender.send(message)


def subagent_args(turn: CliTurn) -> list[pb.ExecServerMessage]:
    return [e for e in turn.execs if e.WhichOneof("message") == "subagent_args"]


def task_results(store: SQLiteStore) -> list[ToolResultMessage]:
    loaded = store.load(PARENT)
    assert loaded is not None
    return [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]


async def test_a_parent_resumed_while_its_child_runs_waits_for_that_child(
    tmp_path: Path,
) -> None:
    scripts = {
        PARENT: [uses(task("t1")), answer("a() returns 1.")],
        "agent-t1": [answer(SLOW)],
    }
    async with rig(tmp_path, scripts, delay=0.05) as r:
        cli = DroppingCli(r.url, "proto", r.workspace)
        r.cli, cli.context = cli, r.cli.context
        try:
            first = await r.parent(drop_after="lost")
            cli.drop = False
            assert first.dropped_stream and len(cli.children) == 1
            second = await cli.run(resume(), "big", conversation_id=PARENT)
            await cli.settle()
            results = task_results(r.store)
            parent_calls = len(r.requests(PARENT))
        finally:
            await cli.close()
    assert second.error is None, second.error
    assert subagent_args(second) == [], "the resumed parent starts no second subagent"
    assert len(cli.children) == 1
    assert cli.aborted == [], "nothing aborts the child the parent waits for"
    assert second.text.endswith("a() returns 1.")
    [result] = results
    assert result.tool_call_id == "t1" and SLOW in str(result.content)
    assert "Agent ID: agent-t1" in str(result.content)
    assert parent_calls == 2


async def test_a_child_that_ended_unheard_answers_the_resumed_parent_once(
    tmp_path: Path,
) -> None:
    scripts = {
        PARENT: [uses(task("t2")), answer("Done.")],
        "agent-t2": [answer(SLOW)],
    }
    async with rig(tmp_path, scripts, delay=0.05) as r:
        cli = DroppingCli(r.url, "proto", r.workspace)
        r.cli, cli.context, cli.mute = cli, r.cli.context, True
        try:
            first = await r.parent(drop_after="lost")
            cli.drop = False
            await cli.settle()  # the child ended; its answer had nowhere to go
            [sent] = subagent_args(first)
            second = await cli.run(resume(), "big", conversation_id=PARENT)
            # The same answer again, on the resumed stream, for the call answered.
            assert cli.appender is not None
            success = pb.SubagentSuccess(agent_id="agent-t2", final_message="another answer")
            again = exec_reply(sent, subagent_result=pb.SubagentResult(success=success))
            cli.appender.send(again)
            cli.appender.send(stream_close(sent.id))
            await cli.appender.drain()
            await asyncio.sleep(0.5)  # time for anything that would be taken twice
            results = task_results(r.store)
            parent_requests = r.requests(PARENT)
        finally:
            await cli.close()
    assert second.error is None, second.error
    assert subagent_args(second) == [] and len(cli.children) == 1
    [result] = results
    assert SLOW in str(result.content) and "another answer" not in str(result.content)
    assert len(parent_requests) == 2
    [seen] = tool_results(parent_requests[1])
    assert SLOW in seen
