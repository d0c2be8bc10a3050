"""A cancel while the model streams is acknowledged only once it is
committed together with what had streamed (README "Reliability"): the
stream ends canceled after the partial answer is in history, so a process
that dies in between loses neither (the call is still in flight then, and is
made again). The provider here takes its time to hand over the partial
answer, as a real one may. Real server, real socket, each codec."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursor_byok.client.client import CODECS, cancel
from cursor_byok.llm.types import AssistantMessage, TextContent
from cursor_byok.loop.state import Status
from tests.e2e.official_cli import user_message
from tests.e2e.test_official_cli import rig
from tests.factories import assistant, stream_of

LONG = "word " * 200


@pytest.mark.parametrize("codec", CODECS)
async def test_a_canceled_stream_ends_after_its_partial_answer_is_committed(
    tmp_path: Path, codec: str
) -> None:
    scripts = [stream_of(assistant(TextContent(LONG)), chunk=5)]
    async with rig(tmp_path, codec, scripts, delay=0.01) as r:
        r.llm.last_word_delay = 0.3
        turn = await r.cli.run(user_message("talk", r.cli.context), "sonnet", during=[cancel()])
        loaded = r.store.load("conv-cli")  # at once: the end said it is done
    assert turn.error is not None and turn.error["code"] == "canceled"
    assert loaded is not None and loaded.state.status is Status.CANCELED
    _, kept = loaded.state.messages
    assert isinstance(kept, AssistantMessage) and kept.interrupted
    assert kept.text and LONG.startswith(kept.text) and kept.text.startswith(turn.text)
