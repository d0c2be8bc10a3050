"""OpenAI requests carry a prompt_cache_key that is stable for a conversation
and differs between conversations (the real server and the real adapters,
against a replaying provider)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursor_byok.client.client import CursorClient, End, run_request
from cursor_byok.client.replay_provider import ReplayProvider, Reply
from cursor_byok.llm.events import ResponseStream
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.openai_chat import OpenAIChatLLM
from cursor_byok.llm.providers.openai_responses import OpenAIResponsesLLM
from cursor_byok.llm.types import RequestMessages
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from tests.llm.loopback import fixture_bytes

Adapter = OpenAIChatLLM | OpenAIResponsesLLM


class Single:
    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter

    async def call(self, model: str, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        return await self.adapter.call(ctx, request)


@pytest.mark.parametrize(
    ("make", "fixture"),
    [
        (OpenAIChatLLM, "openai-chat/text-usage.sse"),
        (OpenAIResponsesLLM, "openai-responses/text-usage.sse"),
    ],
)
async def test_the_cache_key_is_the_conversation(
    tmp_path: Path, make: type[Adapter], fixture: str
) -> None:
    provider = ReplayProvider([Reply(fixture_bytes(fixture)) for _ in range(3)])
    async with provider:
        adapter = make(ModelSpec("openai", "gpt-4o", provider.base_url + "/v1"), "sk-test")
        store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
        try:
            async with serving(build_service(store, Single(adapter))) as url:
                client = CursorClient(url)
                try:
                    for number, conversation in enumerate(("conv-a", "conv-a", "conv-b")):
                        request_id = f"r{number}"
                        stream = await client.open(request_id)
                        message = run_request(f"question {number}", conversation_id=conversation)
                        await client.append(request_id, 0, message)
                        end = await stream.until(lambda i: isinstance(i, End))
                        assert isinstance(end, End) and end.error is None
                finally:
                    await client.close()
        finally:
            await adapter.aclose()
            store.close()
    keys = [body["prompt_cache_key"] for body in provider.requests]
    assert keys == ["conv-a", "conv-a", "conv-b"]
