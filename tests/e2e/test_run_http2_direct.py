"""A `Run` stream's deltas over HTTP/2 framed by whoever publishes them,
without the stream writer's task woken for each (`send_now`): taken when
the writer is parked and the windows hold the write, refused (and the
writer's own path used, in order) when a stalled client has spent them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cursor_byok.client.client import End, run_request
from cursor_byok.llm.types import TextContent
from cursor_byok.transport.http.h2_send import DirectSend
from tests.e2e.test_run_http2 import MODES, is_end, running
from tests.factories import assistant, stream_of


@pytest.fixture
def direct_writes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every direct write the server tried over HTTP/2, and whether it was taken."""
    tried: list[bool] = []
    original = DirectSend.send_body_now

    def counted(self: DirectSend, stream: object, data: bytes) -> bool:
        taken = original(self, stream, data)
        tried.append(taken)
        return taken

    monkeypatch.setattr(DirectSend, "send_body_now", counted)
    return tried


@pytest.mark.parametrize("mode", MODES, ids=["-".join(m) for m in MODES])
async def test_deltas_that_find_the_writer_parked_are_written_by_their_publisher(
    tmp_path: Path, mode: tuple[str, str], direct_writes: list[bool]
) -> None:
    text = "".join(f"word{n} " for n in range(40))
    script = stream_of(assistant(TextContent(text)), chunk=5)
    async with running(tmp_path, [script], mode, delay=0.002) as run:
        stream = await run.open()
        await stream.send(run_request("hello"))
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is None
    assert stream.text() == text
    # Paced deltas find the writer parked: each goes out directly.
    assert direct_writes.count(True) >= 40


async def test_a_stalled_reader_gets_its_deltas_in_order_once_it_reads_again(
    tmp_path: Path, direct_writes: list[bool]
) -> None:
    # 200 KiB of text: more than the client's 64 KiB stream window, so the
    # direct path finds it spent and the writer's own path waits for it.
    text = "".join(f"{n:07d} " for n in range(25_600))
    script = stream_of(assistant(TextContent(text)), chunk=2048)
    async with running(tmp_path, [script], ("h2c", "proto"), delay=0.0005) as run:
        stream = await run.open(paused=True)
        await stream.send(run_request("hello"))
        await asyncio.sleep(0.5)
        run.client.unpause(stream)
        end = await stream.until(is_end)
    assert isinstance(end, End) and end.error is None
    assert stream.text() == text
    assert True in direct_writes and False in direct_writes
