"""Big tool results (official-client.md, "Transport"): the official CLI sends
a whole tool result in one BidiAppend, hex-encoded, so a 6 MiB file is a
12 MiB append body. It is accepted and the turn completes. If an append must
ever be refused (over its limit, or the memory budget is in use), the tool
call it carried gets an error result and the turn goes on: the client stops
appending after a refused append, so waiting would be forever. Real server,
real socket, each codec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cursor_byok.client.client import CODECS
from cursor_byok.llm.types import ToolResultMessage
from cursor_byok.loop.state import Status
from tests.e2e.official_cli import user_message
from tests.e2e.test_official_cli import answer, call, clean, rig, uses

MiB = 1024 * 1024


def big_text(size: int) -> str:
    line = "0123456789abcdef" * 4 + "\n"
    return line * (size // len(line))


@pytest.mark.parametrize("codec", CODECS)
async def test_a_6_mib_tool_result_completes_the_turn(tmp_path: Path, codec: str) -> None:
    content = big_text(6 * MiB)
    tool = call("call_read", "read_file", path="big.txt")
    async with rig(tmp_path, codec, [uses(tool), answer("A big file.")]) as r:
        (r.cli.workspace / "big.txt").write_text(content)
        turn = await r.cli.run(user_message("read big.txt", r.cli.context), "sonnet")
        loaded = r.store.load("conv-cli")
    clean(turn)
    assert turn.text.endswith("A big file.")
    assert loaded is not None and loaded.state.status is Status.FINAL
    [result] = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
    assert not result.is_error
    # The model gets what fits its context, and is told how much was cut.
    assert "more characters not shown" in json.dumps(r.request(1)["messages"][-1])


@pytest.mark.parametrize("codec", CODECS)
async def test_a_refused_append_gives_its_tool_call_an_error_and_the_turn_goes_on(
    tmp_path: Path, codec: str
) -> None:
    content = big_text(2 * MiB)  # a 4 MiB append body, over the limit set here
    tool = call("call_read", "read_file", path="big.txt")
    scripts = [uses(tool), answer("The file was too big to read.")]
    async with rig(tmp_path, codec, scripts, max_append_bytes=1 * MiB) as r:
        (r.cli.workspace / "big.txt").write_text(content)
        turn = await r.cli.run(user_message("read big.txt", r.cli.context), "sonnet")
        loaded = r.store.load("conv-cli")
    assert turn.violations == ["an append was refused"]
    assert turn.error is None
    assert turn.text.endswith("The file was too big to read.")
    assert "tool_call_completed" in turn.kinds
    assert loaded is not None and loaded.state.status is Status.FINAL
    [result] = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error
    assert "limit" in json.dumps(r.request(1)["messages"][-1])
