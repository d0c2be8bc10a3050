"""The KV requests a stream waits on: answered ones end the wait, the bound
ends it otherwise, and what was unanswered then is counted and given up."""

from __future__ import annotations

import asyncio

from cursor_byok.transport.sessions.counters import Counters
from cursor_byok.transport.sessions.kv_answers import KvAnswers


async def test_the_last_answer_ends_the_wait() -> None:
    kv = KvAnswers(Counters(), wait_s=30.0)
    kv.asked(1)
    kv.asked(2)
    waiting = asyncio.ensure_future(kv.settle("r-1"))
    await asyncio.sleep(0)
    assert kv.answered(1) and not waiting.done()
    assert kv.answered(2)
    await asyncio.wait_for(waiting, 5)
    assert kv.counters.kv_unanswered == 0


async def test_the_bound_gives_up_what_is_unanswered() -> None:
    kv = KvAnswers(Counters(), wait_s=0.01)
    kv.asked(1)
    kv.asked(2)
    assert kv.answered(2)
    await kv.settle("r-1")
    assert kv.counters.kv_unanswered == 1
    assert not kv.answered(1)  # late now: no request waits for it


async def test_an_answer_to_an_id_never_asked_is_not_taken() -> None:
    kv = KvAnswers(Counters(), wait_s=0.01)
    assert not kv.answered(5)


async def test_nothing_asked_is_no_wait() -> None:
    kv = KvAnswers(Counters(), wait_s=30.0)
    await asyncio.wait_for(kv.settle("r-1"), 1)
    assert kv.counters.kv_unanswered == 0
