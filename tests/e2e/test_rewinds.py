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

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.store.forks import ForkRow
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import CliTurn, OfficialCli, user_message
from tests.e2e.provider_turns import ModelUnderTest, Server, server_for
from tests.llm.loopback import Reply
from tests.llm.wire_streams import Text, chat

GPT = ModelUnderTest("openai-chat", "gpt-4o")
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
        content = message["content"]
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
    # Nothing stored changed: the longer history is still there, whole.
    assert root is not None and len(root.state.messages) == 6
    assert [(f.parent, f.point) for f in forks] == [("conv-r", 2 * back_to)]
    assert isinstance(forks[0], ForkRow) and forks[0].branch.startswith("conv-r~")
