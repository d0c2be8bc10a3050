"""A message typed while the turn runs (official-client.md, "Actions"): the
server keeps its `message_id` and acknowledges it with
`user_message_appended` when the message enters history, exactly once; a
client that sends it again anyway (as a new run) gets no second copy in
history and no second acknowledgement. Real server, real socket, each codec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cursor_byok.client.client import CODECS
from cursor_byok.llm.types import UserMessage
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import user_message
from tests.e2e.test_official_cli import answer, call, clean, rig, uses

NOTE = "also keep the README in sync"


def typed(text: str, message_id: str) -> pb.AgentClientMessage:
    action = pb.ConversationAction(
        user_message_action=pb.UserMessageAction(
            user_message=pb.UserMessage(text=text, message_id=message_id)
        )
    )
    return pb.AgentClientMessage(conversation_action=action)


def user_texts(request: dict[str, object]) -> list[str]:
    """The user texts of a model request, in order."""
    messages = request["messages"]
    assert isinstance(messages, list)
    return [json.dumps(m["content"]) for m in messages if m["role"] == "user"]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_message_typed_during_the_turn_is_acknowledged_once_when_it_enters_history(
    tmp_path: Path, codec: str
) -> None:
    tool = call("call_read", "read_file", path="a.txt")
    scripts = [uses(tool), answer("It says hi."), answer("README updated too.")]
    async with rig(tmp_path, codec, scripts, delay=0.02) as r:
        (r.cli.workspace / "a.txt").write_text("hi\n")
        turn = await r.cli.run(
            user_message("what is in a.txt?", r.cli.context),
            "sonnet",
            during=[typed(NOTE, "typed-1")],
            during_after="exec",
        )
        # A client that missed the acknowledgement sends the message again
        # as a new run: it is the same message, not a new one.
        again = await r.cli.run(user_message(NOTE, None, message_id="typed-1"), "sonnet")
        loaded = r.store.load("conv-cli")
    clean(turn)
    clean(again)
    assert turn.appended == ["typed-1"]
    # Acknowledged before the model call that first sees it streams.
    ack = turn.order.index("user_message_appended")
    assert "text_delta" in turn.order[ack:]
    assert turn.text.endswith("README updated too.")
    assert len(r.llm.requests) == 3
    assert not any(NOTE in text for text in user_texts(r.request(1)))
    assert sum(NOTE in text for text in user_texts(r.request(2))) == 1
    assert again.appended == [] and again.text == ""
    assert again.order[-1] == "turn_ended"
    assert loaded is not None
    notes = [m for m in loaded.state.messages if isinstance(m, UserMessage) and m.content == NOTE]
    assert len(notes) == 1


@pytest.mark.parametrize("codec", CODECS)
async def test_a_message_typed_after_the_last_model_call_is_acknowledged_by_the_next_one(
    tmp_path: Path, codec: str
) -> None:
    """Typed while the final answer streams: it is queued, the loop takes it
    on at once after that answer, and the acknowledgement comes first."""
    scripts = [answer("word " * 40), answer("Noted.")]
    async with rig(tmp_path, codec, scripts, delay=0.01) as r:
        turn = await r.cli.run(
            user_message("hi", r.cli.context), "sonnet", during=[typed(NOTE, "typed-2")]
        )
    clean(turn)
    assert turn.appended == ["typed-2"]
    assert turn.text.endswith("Noted.")
    assert sum(NOTE in text for text in user_texts(r.request(1))) == 1


@pytest.mark.parametrize("codec", CODECS)
async def test_a_typed_message_sent_twice_during_the_turn_is_acknowledged_once(
    tmp_path: Path, codec: str
) -> None:
    """The client sends the typed message again on the live stream before it
    was acknowledged (same `message_id`, a later seqno): one copy enters
    history, and it is acknowledged once, not once per send. (Both sends
    arrive while the long second answer streams; the acknowledgement comes
    with the third model call, the first to see the message.)"""
    tool = call("call_read", "read_file", path="a.txt")
    scripts = [uses(tool), answer("It says hi. " * 20), answer("README noted.")]
    async with rig(tmp_path, codec, scripts, delay=0.02) as r:
        (r.cli.workspace / "a.txt").write_text("hi\n")
        turn = await r.cli.run(
            user_message("what is in a.txt?", r.cli.context),
            "sonnet",
            during=[typed(NOTE, "typed-3"), typed(NOTE, "typed-3")],
            during_after="exec",
        )
        loaded = r.store.load("conv-cli")
    clean(turn)
    assert turn.appended == ["typed-3"]
    assert turn.text.endswith("README noted.")
    assert len(r.llm.requests) == 3
    assert not any(NOTE in text for text in user_texts(r.request(1)))
    assert sum(NOTE in text for text in user_texts(r.request(2))) == 1
    assert loaded is not None
    notes = [m for m in loaded.state.messages if isinstance(m, UserMessage) and m.content == NOTE]
    assert len(notes) == 1
