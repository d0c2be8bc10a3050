"""Notices are not history: text the server writes (no key, the per-turn call
limit, a provider's refusal note) reaches the client as text and a normal
turn end, and the next model request, as sent by the real adapter over a
real socket, never contains it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.events import TextDelta
from cursor_byok.loop import CallClient, Final, Start, ToolResult, TurnSettings
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import result, user
from tests.fakes import RecordingSink
from tests.llm.loopback import LoopbackServer, Reply

CONFIG = """
default_model = "claude"
[providers.a]
api = "anthropic"
base_url = "{base_url}"
api_key = "sk-k"
[providers.nokey]
api = "openai-chat"
base_url = "https://api.example.com/v1"
api_key_env = "EXAMPLE_KEY"
[models.claude]
provider = "a"
model = "claude-x"
[models.other]
provider = "nokey"
model = "x-1"
"""


def sse(*events: dict[str, object]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def anthropic_reply(block: dict[str, object], delta: dict[str, object], stop: str) -> bytes:
    return sse(
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    )


def text_reply(text: str, stop: str = "end_turn") -> bytes:
    return anthropic_reply({"type": "text", "text": ""}, {"type": "text_delta", "text": text}, stop)


TOOL_REPLY = anthropic_reply(
    {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}},
    {"type": "input_json_delta", "partial_json": '{"path": "a.txt"}'},
    "tool_use",
)


@dataclass
class Rig:
    server: LoopbackServer
    runner: Runner
    sink: RecordingSink

    async def turn(self, n: int, text: str, model: str = "claude", limit: int = 100) -> Final:
        settings = TurnSettings(model=model, max_model_calls=limit)
        await self.runner.submit("c", f"req:{n}", Start(user(text, n), settings=settings))
        finals = await self.sink.wait_for("c", Final, count=n)
        final = finals[-1]
        assert isinstance(final, Final)
        return final

    def shown(self) -> str:
        return "".join(i.delta for i in self.sink.of("c") if isinstance(i, TextDelta))


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    server = LoopbackServer()
    await server.start()
    path = tmp_path / "c.toml"
    path.write_text(CONFIG.format(base_url=server.base_url))
    router = Router(load_config(path, env={}), env={})
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    sink = RecordingSink()
    runner = Runner(store, router, sink, retry=RetryPolicy(1, 0.001, 0.01))
    yield Rig(server, runner, sink)
    await runner.close()
    await router.aclose()
    store.close()
    await server.stop()


async def test_a_missing_key_notice_is_shown_but_never_sent_to_a_model(rig: Rig) -> None:
    await rig.turn(1, "hello", model="other")
    assert "no API key" in rig.shown()
    rig.server.replies.append(Reply(text_reply("Hi.")))
    await rig.turn(2, "hello again")
    [sent] = rig.server.received
    assert b"no API key" not in sent.body
    # Two user turns in a row: the API joins them; no assistant turn invented.
    assert [m["role"] for m in sent.json()["messages"]] == ["user", "user"]


async def test_a_refusal_note_is_shown_but_never_sent_back(rig: Rig) -> None:
    rig.server.replies.append(Reply(text_reply("I can't help with that", stop="refusal")))
    await rig.turn(1, "do something bad")
    assert "stopped by the provider" in rig.shown()
    rig.server.replies.append(Reply(text_reply("OK.")))
    await rig.turn(2, "something else then")
    sent = rig.server.received[-1]
    assert b"I can't help with that" in sent.body  # what the model said stays
    assert b"stopped by the provider" not in sent.body


async def test_the_call_limit_notice_is_shown_but_never_sent_to_the_model(rig: Rig) -> None:
    rig.server.replies.append(Reply(TOOL_REPLY))
    await rig.runner.submit(
        "c", "req:1", Start(user("loop", 1), settings=TurnSettings("claude", max_model_calls=1))
    )
    [call] = await rig.sink.wait_for("c", CallClient)
    assert isinstance(call, CallClient)
    await rig.runner.submit("c", "tool:1", ToolResult(result(call.tool_call.id)))
    await rig.sink.wait_for("c", Final)
    assert "limit of 1 model calls" in rig.shown()
    rig.server.replies.append(Reply(text_reply("Continuing.")))
    await rig.turn(2, "go on")
    assert len(rig.server.received) == 2
    sent = rig.server.received[-1]
    assert b"limit of 1 model calls" not in sent.body
    assert b"toolu_1" in sent.body  # the tool round itself is history
