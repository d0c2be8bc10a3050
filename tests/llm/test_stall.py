"""A provider that goes quiet mid-stream: the configured stall timeout ends
the call with an error naming the provider and the time waited."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.events import DoneEvent, StartEvent
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages
from tests.factories import user
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes
from tests.llm.streams import collect, error_of


async def test_a_stalled_upstream_fails_after_the_stall_timeout_naming_the_provider(
    server: LoopbackServer, tmp_path: Path
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[server]
stall_timeout_s = 0.3
[providers.claude-eu]
api = "anthropic"
base_url = "{server.base_url}"
api_key = "sk-ant-test"
[models.m]
provider = "claude-eu"
model = "claude-sonnet-4-6"
"""
    )
    body = fixture_bytes("anthropic/text-usage.sse")
    # Half the stream, then the connection stays open and silent.
    server.replies.append(Reply(body, cut_after=len(body) // 2, chunk_size=64, hang=True))
    router = Router(load_config(path, env={}), env={})
    try:
        stream = await router.call("m", CallContext("c1", "s1"), RequestMessages("", (user("hi"),)))
        events = await collect(stream)
    finally:
        await router.aclose()
    assert isinstance(events[0], StartEvent)
    error = error_of(events)
    assert error.message.error_message == (
        "claude-eu sent no data for 0.3 s, so the call was given up "
        "(the stall timeout, server.stall_timeout_s)"
    )
    assert error.retryable  # the runner still never retries once events were passed on


async def test_a_slow_but_steady_stream_outlasts_the_stall_timeout(tmp_path: Path) -> None:
    """The timeout is between two chunks, not for the whole body: chunks
    0.1 s apart stream for well over a 0.3 s timeout and the call ends done."""
    body = fixture_bytes("anthropic/text-usage.sse")
    chunk = max(len(body) // 8, 1)
    server = LoopbackServer([Reply(body, chunk_size=chunk)], pace_s=0.1)
    await server.start()
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[server]
stall_timeout_s = 0.3
[providers.claude-eu]
api = "anthropic"
base_url = "{server.base_url}"
api_key = "sk-ant-test"
[models.m]
provider = "claude-eu"
model = "claude-sonnet-4-6"
"""
    )
    router = Router(load_config(path, env={}), env={})
    loop = asyncio.get_running_loop()
    began = loop.time()
    try:
        stream = await router.call("m", CallContext("c1", "s1"), RequestMessages("", (user("hi"),)))
        events = await collect(stream)
    finally:
        await router.aclose()
        await server.stop()
    assert loop.time() - began > 0.6  # the body took twice the timeout and more
    assert isinstance(events[-1], DoneEvent), events[-1]
