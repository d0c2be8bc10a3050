"""A resume on a new request id (official-client.md, "Checkpoints, KV and
resume"): the client lost its stream, canceled the exec that was running
there (no result or `stream_close` will come on the old request id) and
runs again with the latest checkpoint and an empty `resume_action`. The new
stream plays the rest of the turn: what was produced while no stream was
attached, cards with the current model call's id, a read asked again (a
command is not: it may have run).
Real server, real socket, each codec, the official CLI's rules."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cursor_byok.client.client import CODECS, exec_reply, stream_close
from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop.state import Status
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import CliTurn, resume, user_message
from tests.e2e.test_official_cli import answer, call, clean, rig
from tests.factories import assistant, stream_of

LEAD = "Let me look at a.txt before I answer anything at all."


async def status_becomes(store: SQLiteStore, status: Status, within: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while asyncio.get_running_loop().time() < deadline:
        loaded = store.load("conv-cli")
        if loaded is not None and loaded.state.status is status:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the conversation never became {status}")


def model_call_ids(turn: CliTurn) -> set[str]:
    return {getattr(card, str(card.WhichOneof("message"))).model_call_id for card in turn.cards}


@pytest.mark.parametrize("codec", CODECS)
async def test_a_resume_plays_the_rest_of_the_turn_the_lost_stream_was_playing(
    tmp_path: Path, codec: str
) -> None:
    tool = call("call_read", "read_file", path="a.txt")
    scripts = [stream_of(assistant(TextContent(LEAD), tool), chunk=2), answer("It says hi.")]
    async with rig(tmp_path, codec, scripts, delay=0.01) as r:
        (r.cli.workspace / "a.txt").write_text("hi\n")
        lost = await r.cli.run(
            user_message("what is in a.txt?", r.cli.context), "sonnet", drop_after="text_delta"
        )
        # The answer goes on streaming, and the tool call is asked, with
        # no stream attached.
        await status_becomes(r.store, Status.WAITING_CLIENT)
        resumed = await r.cli.run(resume(), "sonnet")
        loaded = r.store.load("conv-cli")
    assert lost.dropped_stream and lost.execs == []
    clean(resumed)
    # What streamed while no stream was attached reaches the new one.
    assert lost.text + resumed.text == LEAD + "It says hi."
    # The exec is asked once on the new stream (the lost one's request
    # for it is not sent there: the client canceled that exec).
    [read] = resumed.execs
    assert read.read_args.path == "a.txt"
    # Every card carries a model call id (none dropped); the tool call's
    # cards carry the id of the model call that made it.
    assert resumed.dropped == []
    tool_cards = [c for c in resumed.cards if c.WhichOneof("message") != "tool_call_delta"]
    assert {c.WhichOneof("message") for c in tool_cards} >= {
        "partial_tool_call",
        "tool_call_started",
        "tool_call_completed",
    }
    assert len(model_call_ids(resumed)) == 1
    assert loaded is not None and loaded.state.status is Status.FINAL
    results = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
    assert [m.content[0].text for m in results] == ["hi\n"]  # type: ignore[union-attr]


@pytest.mark.parametrize("codec", CODECS)
async def test_an_exec_canceled_on_the_old_stream_is_not_asked_again_on_the_new_one(
    tmp_path: Path, codec: str
) -> None:
    """The old stream had half a shell output when it was lost: the command
    may have run, so it is not asked again (tests/e2e/test_interrupted_exec.py
    has the rest); its result is the output that arrived, and a late exit on
    the old request id is no second result."""
    tool = call("call_sh", "run_terminal_cmd", command="echo hi")
    scripts = [stream_of(assistant(TextContent("Running."), tool)), answer("Done.")]
    async with rig(tmp_path, codec, scripts) as r:
        r.cli.shell_output["echo hi"] = "hi\n"
        lost = await r.cli.run(
            user_message("say hi", r.cli.context), "sonnet", drop_after="exec_server_message"
        )
        [old] = lost.execs
        started = pb.ShellStream(start=pb.ShellStreamStart())
        partial = pb.ShellStream(stdout=pb.ShellStreamStdout(data="part"))
        seqno = lost.next_seqno  # after the run request and the KV answers
        for offset, event in enumerate((started, partial)):
            reply = exec_reply(old, shell_stream=event)
            await r.cli.client.append(lost.request_id, seqno + offset, reply)
        resumed = await r.cli.run(resume(), "sonnet")
        # A late exit of the old exec on the old request id changes nothing.
        late = pb.ShellStream(exit=pb.ShellStreamExit(code=1))
        await r.cli.client.append(lost.request_id, seqno + 2, exec_reply(old, shell_stream=late))
        await r.cli.client.append(lost.request_id, seqno + 3, stream_close(old.id))
        loaded = r.store.load("conv-cli")
    clean(resumed)
    assert resumed.text == "Done."
    assert resumed.execs == []
    assert loaded is not None and loaded.state.status is Status.FINAL
    results = [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]
    assert len(results) == 1 and results[0].is_error
    text = results[0].content[0].text  # type: ignore[union-attr]
    assert "echo hi" in text and text.endswith("The output that arrived:\npart")
