"""Rewinds, end to end: the real server over a real socket, a client that
plays the official CLI (it keeps every checkpoint and sends one back with
each run), the real OpenAI adapter against a loopback provider.

Restoring an earlier checkpoint (or editing an earlier message and sending
it again) sends the server a state that is behind its history. The model's
next request then holds the kept prefix and the new message only, and its
bytes begin with the bytes that prefix rendered to before (the provider's
prefix cache still hits); the longer history stays stored, and a window
still holding it goes on there."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.client.client import End, run_request
from cursor_byok.client.run_client import RunStream
from cursor_byok.llm.types import UserMessage
from cursor_byok.store.forks import ForkRow
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import CliTurn, OfficialCli, resume, user_message
from tests.e2e.provider_turns import ModelUnderTest, Server, server_for
from tests.e2e.test_run_http2 import answer as h2_answer
from tests.e2e.test_run_http2 import is_end, running
from tests.llm.loopback import Reply
from tests.llm.wire_streams import Call, Text, chat

GPT = ModelUnderTest("openai-chat", "gpt-4o", vendor="openai")
CODECS = ("proto", "json")


def replies(count: int) -> list[Reply]:
    return [Reply(chat([Text(f"answer {number}")])) for number in range(count)]


@asynccontextmanager
async def window(
    tmp_path: Path, codec: str, count: int = 8
) -> AsyncIterator[tuple[Server, OfficialCli]]:
    async with server_for(GPT, replies(count), tmp_path) as server:
        cli = OfficialCli(server.url, codec, server.workspace)
        try:
            yield server, cli
        finally:
            await cli.close()


async def say(cli: OfficialCli, text: str) -> CliTurn:
    turn = await cli.run(user_message(text, cli.context), "m", conversation_id="conv-r")
    assert turn.error is None, turn.error
    assert turn.violations == [], turn.violations
    return turn


def said(body: dict[str, Any]) -> list[str]:
    """What each message of a request says, by role (the system prompt left out)."""
    out = []
    for message in body["messages"][1:]:
        content = message["content"] or ""  # None beside tool calls
        text = content if isinstance(content, str) else "".join(p["text"] for p in content)
        out.append(f"{message['role']}: {text}")
    return out


async def three_turns(cli: OfficialCli) -> list[pb.ConversationStateStructure]:
    """Three turns; the state the client held before each (the first: a new
    chat's empty state, which the official clients always send)."""
    held = [pb.ConversationStateStructure()]
    cli.checkpoint = held[0]
    for text in ("first question", "second question", "third question"):
        await say(cli, text)
        assert cli.checkpoint is not None
        held.append(cli.checkpoint)
    return held[:3]


def end_of_prefix(body: bytes, next_user_text: str) -> int:
    """Where, in a request's bytes, the message after the kept prefix begins."""
    at = body.find(b'{"content":' + json.dumps(next_user_text).encode())
    assert at > 0, next_user_text
    return at


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("back_to", [0, 1, 2])
async def test_a_rewind_sends_the_model_the_kept_prefix_and_the_new_message(
    tmp_path: Path, codec: str, back_to: int
) -> None:
    async with window(tmp_path, codec) as (server, cli):
        held = await three_turns(cli)
        cli.checkpoint = held[back_to]
        await say(cli, "a different question")
        received = server.provider.received
        forks = server.store.forks("conv-r")
        root = server.store.load("conv-r")
    asked = [json.loads(r.body) for r in received]
    assert len(asked) == 4
    before = said(asked[back_to])[:-1]  # the kept prefix, as the model saw it then
    assert len(before) == 2 * back_to
    assert any("different question" in line for line in said(asked[3])[-1:])
    assert said(asked[3])[:-1] == before
    # Byte for byte the same start: the provider's prefix cache hits.
    old, new = received[back_to].body, received[3].body
    cut = end_of_prefix(old, ["first question", "second question", "third question"][back_to])
    assert new[:cut] == old[:cut]
    # ... and is named to it as the conversation it was forked from: one cache.
    assert asked[3]["prompt_cache_key"] == asked[back_to]["prompt_cache_key"] == "conv-r"
    # Nothing stored changed: the longer history is still there, whole.
    assert root is not None and len(root.state.messages) == 6
    assert [(f.parent, f.point) for f in forks] == [("conv-r", 2 * back_to)]
    assert isinstance(forks[0], ForkRow) and forks[0].branch.startswith("conv-r~")


@pytest.mark.parametrize("codec", CODECS)
async def test_a_window_still_holding_the_longer_history_goes_on_there(
    tmp_path: Path, codec: str
) -> None:
    """Two windows on one chat: one rewinds to the second message, the other
    still holds all three turns. Each goes on where it stands, each again."""
    async with window(tmp_path, codec) as (server, cli):
        held = await three_turns(cli)
        longer = cli.checkpoint
        cli.checkpoint = held[1]
        await say(cli, "instead of the second")  # request 3: a branch
        branch_state = cli.checkpoint
        cli.checkpoint = longer
        await say(cli, "a fourth question")  # request 4: the old branch
        cli.checkpoint = branch_state
        await say(cli, "more on the branch")  # request 5: the branch again
        asked = [said(json.loads(r.body)) for r in server.provider.received]
        forks = server.store.forks("conv-r")
        root = server.store.load("conv-r")
        branch = server.store.load(forks[0].branch)
    assert len(asked) == 6 and len(forks) == 1
    assert asked[4] == [
        "user: first question",
        "assistant: answer 0",
        "user: second question",
        "assistant: answer 1",
        "user: third question",
        "assistant: answer 2",
        "user: a fourth question",
    ]
    assert asked[5] == [
        "user: first question",
        "assistant: answer 0",
        "user: instead of the second",
        "assistant: answer 3",
        "user: more on the branch",
    ]
    assert root is not None and len(root.state.messages) == 8
    assert branch is not None and len(branch.state.messages) == 6


async def test_an_unrecognisable_state_is_answered_as_before_and_counted(
    tmp_path: Path,
) -> None:
    """Turns this server never made (another server's, or marks lost to a
    crash): the run goes on the conversation as it stands, one log line and
    a count on /metrics, never an error."""
    async with window(tmp_path, "proto") as (server, cli):
        await three_turns(cli)
        foreign = pb.ConversationTurnStructure().SerializeToString() + b"elsewhere"
        cli.blobs[sha256(foreign).digest()] = foreign  # a turn another server made
        cli.checkpoint = pb.ConversationStateStructure(turns=[sha256(foreign).digest()])
        await say(cli, "where were we?")
        asked = [said(json.loads(r.body)) for r in server.provider.received]
        scraped = (await cli.client.get("/metrics")).text
        forks = server.store.forks("conv-r")
    assert asked[3][:-1] == asked[2] + ["assistant: answer 2"]
    assert forks == []
    assert 'cursor_byok_rewinds_total{outcome="unrecognised"} 1.0' in scraped


async def test_show_lists_the_branches_a_rewind_made(tmp_path: Path) -> None:
    async with window(tmp_path, "proto") as (server, cli):
        held = await three_turns(cli)
        cli.checkpoint = held[2]
        await say(cli, "not the third")
        branch = server.store.forks("conv-r")[0].branch
    database = str(tmp_path / "db.sqlite3")
    command = [sys.executable, "-m", "cursor_byok", "show", "--database", database]
    run = partial(subprocess.run, capture_output=True, text=True, check=False, timeout=60)
    root = await asyncio.to_thread(run, [*command, "conv-r"])
    forked = await asyncio.to_thread(run, [*command, branch])
    assert root.returncode == 0 and forked.returncode == 0, (root.stderr, forked.stderr)
    assert "branches: 1" in root.stdout and f"{branch}  from conv-r after message 4" in root.stdout
    assert "forked from conv-r after message 4" in forked.stdout
    assert "not the third" in forked.stdout and "not the third" not in root.stdout


def last_checkpoint(stream: RunStream) -> pb.ConversationStateStructure:
    found = [
        i.conversation_checkpoint_update
        for i in stream.received
        if isinstance(i, pb.AgentServerMessage) and i.HasField("conversation_checkpoint_update")
    ]
    return found[-1]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_rewind_over_http2_run(tmp_path: Path, codec: str) -> None:
    """The same on `AgentService/Run` (h2c): the state rides in the run request."""
    scripts = [h2_answer("one"), h2_answer("two"), h2_answer("three")]
    async with running(tmp_path, scripts, ("h2c", codec)) as run:
        states = [pb.ConversationStateStructure()]
        for text in ("first", "second", "instead"):
            stream = await run.open()
            message = run_request(text, "conv-h")
            held = states[1] if text == "instead" else states[-1]  # back to the first turn's end
            message.run_request.conversation_state.CopyFrom(held)
            await stream.send(message)
            end = await stream.until(is_end)
            assert isinstance(end, End) and end.error is None
            states.append(last_checkpoint(stream))
        root = run.store.load("conv-h")
        [fork] = run.store.forks("conv-h")
        branch = run.store.load(fork.branch)
    assert root is not None and branch is not None
    assert [m.content for m in root.state.messages if isinstance(m, UserMessage)] == [
        "first",
        "second",
    ]
    assert [m.content for m in branch.state.messages if isinstance(m, UserMessage)] == [
        "first",
        "instead",
    ]
    asked = json.loads(run.llm.requests[2][1])["messages"]
    assert fork.point == 2
    assert [m["content"] for m in asked if m["role"] == "user"] == ["first", "instead"]


async def test_a_turn_that_failed_before_any_checkpoint_stays_in_history(
    tmp_path: Path,
) -> None:
    """The client's state is what it was before that turn (no checkpoint
    came); its next message is no rewind: the failed message stays."""
    refused = Reply(
        b'{"error": {"message": "bad key"}}', status=401, content_type="application/json"
    )
    script = [*replies(1), refused, *replies(1)]
    async with server_for(GPT, script, tmp_path) as server:
        cli = OfficialCli(server.url, "proto", server.workspace)
        try:
            cli.checkpoint = pb.ConversationStateStructure()
            await say(cli, "first question")
            failed = await cli.run(user_message("second question", cli.context), "m", "conv-r")
            assert failed.error is not None
            await say(cli, "third question")
        finally:
            await cli.close()
        asked = [said(json.loads(r.body)) for r in server.provider.received]
        forks = server.store.forks("conv-r")
    assert asked[-1] == [
        "user: first question",
        "assistant: answer 0",
        "user: second question",
        "user: third question",
    ]
    assert forks == []


async def test_a_turn_on_a_branch_resumes_on_the_branch(tmp_path: Path) -> None:
    """The connection drops while the branch's first turn waits on a read;
    the resume (its state names the turn in flight, which has no mark) goes
    on in the branch, not in the longer history."""
    script = [*replies(3), Reply(chat([Call("call_a", "read_file", {"path": "a.txt"})]))]
    script += [Reply(chat([Text("a.txt holds its contents")]))]
    async with server_for(GPT, script, tmp_path) as server:
        cli = OfficialCli(server.url, "proto", server.workspace)
        try:
            held = await three_turns(cli)
            cli.checkpoint = held[1]
            lost = await cli.run(
                user_message("read a.txt instead", cli.context),
                "m",
                "conv-r",
                drop_after="exec_server_message",
            )
            resumed = await cli.run(resume(), "m", "conv-r")
        finally:
            await cli.close()
        asked = [said(json.loads(r.body)) for r in server.provider.received]
        [fork] = server.store.forks("conv-r")
        root = server.store.load("conv-r")
        branch = server.store.load(fork.branch)
    assert lost.dropped_stream and resumed.error is None and resumed.violations == []
    assert [e.read_args.path for e in resumed.execs] == ["a.txt"]  # a read is asked again
    assert asked[-1][:3] == [
        "user: first question",
        "assistant: answer 0",
        "user: read a.txt instead",
    ]
    assert root is not None and len(root.state.messages) == 6
    assert branch is not None and [type(m).__name__ for m in branch.state.messages] == [
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "AssistantMessage",
    ]
