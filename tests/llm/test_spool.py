"""A request's history written from the render cache's spool: the same bytes
as canonical JSON of the list, whatever a caller did to the list; a warm
call that does not copy the history; and a body in parts sent as one."""

from __future__ import annotations

import math
import statistics
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from cursor_byok.llm.http import BodyParts, HTTPClient, HTTPRequest
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers import openai_chat
from cursor_byok.llm.providers.common import encode_body, encode_body_parts
from cursor_byok.llm.providers.render_cache import FrozenMessage, RenderCache
from cursor_byok.llm.providers.spool import RenderedHistory, Spool
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.llm.types import Message, RequestMessages, TextContent, ToolDefinition
from tests.factories import assistant, result, tool_call, user
from tests.llm.loopback import LoopbackServer, Reply, answered


def item(n: int) -> bytes:
    return canonical_dumps({"n": n, "text": "y" * (n % 50)})


def test_a_spool_holds_every_byte_in_few_chunks_and_never_changes() -> None:
    spool, items = Spool(), []
    early: Spool | None = None
    for n in range(2000):
        spool = spool.extended([item(n)])
        items.append(item(n))
        if n == 9:
            early = spool
    assert len(spool.chunks) <= math.log2(spool.size) + 1
    for first, stop in ((0, 1), (0, 7), (3, 1999), (0, 2000), (1999, 2000), (500, 1500)):
        expected = b"".join(data + b"," for data in items[first:stop])
        assert b"".join(spool.run(first, stop)) == expected
    assert spool.run(5, 5) == []
    assert early is not None and len(early) == 10
    assert b"".join(early.run(0, 10)) == b"".join(d + b"," for d in items[:10])


def cached_list() -> RenderedHistory:
    """A rendered history of six cached messages after a system item."""
    history = tuple(user(f"message {n}") for n in range(6))
    cache = RenderCache()

    def render(part: object) -> list[dict[str, Any]]:
        assert isinstance(part, tuple)
        return [{"role": "user", "content": m.content} for m in part]

    cache.render("k", history, render)
    listed = cache.render("k", history, render, head=[{"role": "system", "content": "s"}])
    assert isinstance(listed, RenderedHistory) and listed.spool is not None
    assert len(listed.spool) == 6 and len(listed) == 7
    return listed


def marked(message: dict[str, Any]) -> dict[str, Any]:
    return {**message, "cache_control": {"type": "ephemeral"}}


def replace_then_append(items: RenderedHistory) -> None:
    items[2] = {}
    items.append({"d": 4})


CHANGES: dict[str, Callable[[RenderedHistory], object]] = {
    "nothing": lambda items: None,
    "replace one": lambda items: items.__setitem__(3, marked(items[3])),
    "replace two": lambda items: [items.__setitem__(i, marked(items[i])) for i in (5, 2)],
    "replace from the end": lambda items: items.__setitem__(-2, marked(items[-2])),
    "replace the first": lambda items: items.__setitem__(1, marked(items[1])),
    "replace the last": lambda items: items.__setitem__(6, marked(items[6])),
    "replace the head": lambda items: items.__setitem__(0, marked(items[0])),
    "replace a slice": lambda items: items.__setitem__(slice(2, 4), [{"x": 1}]),
    "delete one": lambda items: items.__delitem__(2),
    "delete a slice": lambda items: items.__delitem__(slice(4, None)),
    "insert": lambda items: items.insert(1, {"role": "system", "content": "t"}),
    "pop": lambda items: items.pop(4),
    "pop the last": lambda items: items.pop(),
    "remove": lambda items: items.remove(items[5]),
    "reverse": lambda items: items.reverse(),
    "clear": lambda items: items.clear(),
    "append": lambda items: items.append({"role": "user", "content": "new"}),
    "extend": lambda items: items.extend([{"a": 1}, {"b": 2}]),
    "add in place": lambda items: items.__iadd__([{"c": 3}]),
    "replace, then append": replace_then_append,
}


@pytest.mark.parametrize("change", CHANGES, ids=str)
def test_a_changed_history_is_written_as_it_now_is(change: str) -> None:
    items = cached_list()
    CHANGES[change](items)
    plain = [dict(m) for m in items]
    assert items == plain and len(items) == len(plain)
    assert list(reversed(items)) == plain[::-1] and items[1:3] == plain[1:3]
    body = {"messages": items, "model": "m", "tools": [FrozenMessage({"name": "t"})]}
    assert encode_body(body) == canonical_dumps({**body, "messages": plain})


def test_a_history_read_as_a_sequence() -> None:
    items = cached_list()
    assert items[0] == {"role": "system", "content": "s"} and items[-1]["content"] == "message 5"
    assert items.index(items[3]) == 3 and items[3] in items
    with pytest.raises(IndexError):
        items[7]
    with pytest.raises(TypeError):
        hash(items)


def tool_session(messages: int) -> list[Message]:
    out: list[Message] = [user("start")]
    n = 0
    while len(out) < messages:
        n += 1
        out += [assistant(tool_call(f"c{n}")), result(f"c{n}", f"line {n}\n" * 40)]
    return out


def warm_call_peaks(size: int, calls: int = 9) -> tuple[list[int], int]:
    """Per call of a conversation past `size` messages, one exchange each:
    the most memory building and encoding its request held at once."""
    spec = ModelSpec("openai", "gpt-4o", "u")
    tools = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)
    script = tool_session(size + 2 * calls)
    context = CallContext("c", f"conversation-{size}")
    history = SharedTuple(script[:size])
    encode_body(
        openai_chat.build_request(spec, RequestMessages("be brief", history, tools), context)
    )
    peaks, body = [], 0
    tracemalloc.start()
    try:
        for at in range(size, size + 2 * calls, 2):
            history = history + tuple(script[at : at + 2])
            request = RequestMessages("be brief", history, tools)
            held, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            body = encode_body_parts(openai_chat.build_request(spec, request, context)).size
            peaks.append(tracemalloc.get_traced_memory()[1] - held)
    finally:
        tracemalloc.stop()
    return peaks, body


def test_a_warm_call_does_not_copy_the_history_it_sends() -> None:
    """At 3,000 messages the body is close to 1 MB; a call allocates what
    it does at 10 messages: neither the body joined into one buffer (1 MB)
    nor a list of the rendered messages (24 KB of references, each message
    touched)."""
    short, _ = warm_call_peaks(10)
    long, body = warm_call_peaks(3000)
    assert body > 800_000
    assert statistics.median(long) - statistics.median(short) < 12_000, (short, long)


async def test_a_body_in_parts_arrives_as_one(server: LoopbackServer) -> None:
    pieces = [b'{"a":"', b"x" * 200_000, b'","b":"', b"y" * 70_000, b'"}']
    parts = BodyParts.of([*pieces[:2], memoryview(pieces[2] + pieces[3])[:-1], b'y"}'])
    assert len(parts.parts) == 4 and parts.size == sum(map(len, pieces))
    server.replies.append(Reply(b'data: {"ok":true}\n\n'))
    client = HTTPClient()
    try:
        await answered(client, HTTPRequest(f"{server.base_url}/v1/x", {}, parts))
    finally:
        await client.aclose()
    received = server.received[0]
    assert received.body == b"".join(pieces)
    assert received.headers["content-length"] == str(parts.size)


def test_the_same_request_again_is_written_from_the_spool_as_before() -> None:
    spec = ModelSpec("vllm", "some-model", "u")
    history = SharedTuple[Message]([user("a"), assistant(TextContent("b")), user("c")])
    context = CallContext("c", "spooled")
    first = encode_body(openai_chat.build_request(spec, RequestMessages("s", history), context))
    again = encode_body(openai_chat.build_request(spec, RequestMessages("s", history), context))
    cold = encode_body(openai_chat.build_request(spec, RequestMessages("s", history), None))
    assert first == again == cold
