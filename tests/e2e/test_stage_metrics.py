"""/metrics says where a turn's time went, per stage: one real turn through
the real server and the real OpenAI Responses adapter against a loopback
provider, and every stage was timed at least once with some time. The
figures themselves are bench/server.py's job."""

from __future__ import annotations

import re
from pathlib import Path

from cursor_byok.client.client import CursorClient
from tests.e2e.provider_turns import ModelUnderTest, server_for
from tests.llm.loopback import Reply, recording

STAGES = ("decode", "load", "transition", "commit", "render", "join", "relay")
"""As bench/server.py reads them."""


async def test_every_stage_of_a_turn_is_timed_on_metrics(tmp_path: Path) -> None:
    model = ModelUnderTest("openai-responses", "gpt-4.1")
    replies = [Reply(recording("openai-responses/text-usage.sse"))]
    async with server_for(model, replies, tmp_path) as server:
        turn = await server.turn("r", "hello")
        assert turn.end.error is None and turn.text()
        client = CursorClient(server.url)
        try:
            metrics = (await client.get("/metrics")).text
        finally:
            await client.close()
    for stage in STAGES:
        calls = re.search(
            rf'^cursor_byok_stage_calls_total{{stage="{stage}"}} (\S+)$', metrics, re.M
        )
        spent = re.search(
            rf'^cursor_byok_stage_seconds_total{{stage="{stage}"}} (\S+)$', metrics, re.M
        )
        assert calls and float(calls.group(1)) >= 1, f"{stage} never timed:\n{metrics}"
        assert spent and float(spent.group(1)) > 0, f"{stage} took no time:\n{metrics}"
