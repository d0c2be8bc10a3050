"""A provider whose stream never ends a line: the call ends with an error
naming the cap as soon as the cap is passed, not at the stall timeout and
not after the server's memory is spent."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.events import StartEvent
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.sse import MAX_PENDING_BYTES
from cursor_byok.llm.types import RequestMessages
from tests.factories import user
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.streams import collect, error_of


async def test_a_line_without_end_past_the_cap_ends_the_call_naming_it(
    server: LoopbackServer, tmp_path: Path
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[server]
stall_timeout_s = 10
[providers.p]
api = "openai-chat"
base_url = "{server.base_url}"
api_key = "sk-test"
[models.m]
provider = "p"
model = "gpt-x"
"""
    )
    body = b'data: {"choices": [{"delta": {"content": "' + b"x" * (MAX_PENDING_BYTES + 1024)
    # then the connection stays open: no line end, no close
    server.replies.append(Reply(body, chunk_size=256 * 1024, hang=True))
    router = Router(load_config(path, env={}), env={})
    try:
        stream = await router.call("m", CallContext("c1", "s1"), RequestMessages("", (user("hi"),)))
        events = await collect(stream)
    finally:
        await router.aclose()
    assert isinstance(events[0], StartEvent)
    message = error_of(events).message.error_message
    assert message == (
        "p sent a line of more than 32 MiB without ending it "
        "(the SSE line and event cap); the call was ended"
    )
