"""A finished stream closes the generator that read its body, for every
adapter: left to the garbage collector, an unfinished async generator is
finalized through the event loop's thread-safe hook (a wake-up and a task
per model call)."""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest

from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.types import RequestMessages
from tests.factories import READ_TOOL, user
from tests.llm.adapters import CASES, AdapterCase
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes
from tests.llm.streams import collect, done_of

REQUEST = RequestMessages("Be brief.", (user("hi"),), (READ_TOOL,))


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_a_finished_stream_leaves_no_body_reader_to_the_collector(
    server: LoopbackServer, case: AdapterCase
) -> None:
    firstiter, finalizer = sys.get_asyncgen_hooks()
    assert finalizer is not None
    finalized: list[str] = []

    def counting(agen: Any) -> None:
        finalized.append(agen.__qualname__)
        finalizer(agen)

    server.replies.append(Reply(fixture_bytes(case.text_fixture)))
    llm = case.make(server.base_url)
    sys.set_asyncgen_hooks(firstiter, counting)
    try:
        stream = await llm.call(CallContext("c1", "s1"), REQUEST)
        done_of(await collect(stream))
        del stream
        gc.collect()
    finally:
        sys.set_asyncgen_hooks(firstiter, finalizer)
        await llm.aclose()
    assert "HTTPResponse.chunks" not in finalized
