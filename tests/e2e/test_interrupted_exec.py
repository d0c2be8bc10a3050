"""A shell command cut off by a lost connection is never run twice
(official-client.md, "Checkpoints, KV and resume"; README "Reliability").

The client plays the official CLI over HTTP/1.1 in each codec: it loses its
connection while the command runs, after part of the output went out and
while more was on its way on the old request id, cancels that exec there,
and resumes on a new request id. The command is not asked again: its result
is what arrived, marked as cut off, and the model's next request carries it
once. A tool that only reads is asked again. Real server, real socket."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cursor_byok.client.client import CODECS, exec_reply, stream_close
from cursor_byok.llm.events import ResponseEvent
from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop.state import Status
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import CliTurn, ShellDrop, resume, user_message
from tests.e2e.test_official_cli import Rig, answer, call, clean, rig
from tests.factories import assistant, stream_of

COMMAND = "git commit -am wip"
BEFORE = "[main 1a2b3c4] wip\n"
AFTER = " 2 files changed, 7 insertions(+)\n"
SHELL = call("call_sh", "run_terminal_cmd", command=COMMAND)


def scripts() -> list[list[ResponseEvent]]:
    return [
        stream_of(assistant(TextContent("Committing."), SHELL)),
        answer("The commit may have gone through; let me check."),
    ]


async def reader_gone(r: Rig, request_id: str) -> None:
    """Until the server has seen the old stream go."""
    for _ in range(500):
        session = r.service.hub.sessions.get(request_id)
        if session is not None and session.readers == 0:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the server still reads {request_id}")


def results_of(r: Rig) -> list[ToolResultMessage]:
    loaded = r.store.load("conv-cli")
    assert loaded is not None
    return [m for m in loaded.state.messages if isinstance(m, ToolResultMessage)]


def request_text(r: Rig, index: int) -> str:
    return json.dumps(r.request(index))


async def drop_mid_shell(r: Rig) -> CliTurn:
    """The first run: the command starts, and the connection goes meanwhile."""
    lost: list[str] = []

    async def between() -> None:
        await reader_gone(r, lost[0])

    r.cli.drop_mid_shell[COMMAND] = ShellDrop(BEFORE, AFTER, between)
    run = r.cli.run(user_message("commit it", r.cli.context), "sonnet", request_id="lost-1")
    lost.append("lost-1")
    turn = await run
    assert turn.dropped_stream
    [shell] = turn.execs
    assert shell.shell_stream_args.command == COMMAND
    return turn


def assert_cut_off_once(r: Rig, resumed: list[CliTurn]) -> None:
    """The command was asked once (on the lost stream), never again; its
    result is what arrived, said to be cut off, in history and in the
    model's next request once."""
    for turn in resumed:
        assert [e.WhichOneof("message") for e in turn.execs] == []
    [result] = results_of(r)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and result.tool_call_id == "call_sh"
    assert COMMAND in text and BEFORE in text and AFTER in text
    assert "was not run again" in text and "unknown" in text
    assert len(r.llm.requests) == 2
    sent = request_text(r, 1)
    assert sent.count(BEFORE.strip()) == 1 and sent.count(AFTER.strip()) == 1
    assert sent.count("was not run again") == 1


@pytest.mark.parametrize("codec", CODECS)
async def test_a_command_cut_off_by_a_lost_connection_is_not_run_again(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, scripts()) as r:
        lost = await drop_mid_shell(r)
        resumed = await r.cli.run(resume(), "sonnet")
        # What comes late for the old exec on its request id (its exit and
        # stream_close, once the client gave up on it) is taken or counted:
        # never an error, never a second result.
        [old] = lost.execs
        late = [
            exec_reply(old, shell_stream=pb.ShellStream(stdout=pb.ShellStreamStdout(data="x"))),
            exec_reply(old, shell_stream=pb.ShellStream(exit=pb.ShellStreamExit(code=0))),
            stream_close(old.id),
        ]
        for seqno, message in enumerate(late, lost.next_seqno):
            response = await r.cli.client.append_raw(
                lost.request_id, seqno, message.SerializeToString()
            )
            assert response.status == 200
        state = await r.service.runner.state_of("conv-cli")
        ignored = dict(r.service.runner.ignored)
        assert_cut_off_once(r, [resumed])
    clean(resumed)
    assert resumed.text == "The commit may have gone through; let me check."
    assert state is not None and state.status is Status.FINAL
    assert ignored.get("tool output nobody waits for") == 1
    # The cut-off call's card closes on the new stream, with what arrived.
    [card] = [c for c in resumed.cards if c.WhichOneof("message") == "tool_call_completed"]
    shown = card.tool_call_completed.tool_call.shell_tool_call.result.failure
    assert shown.aborted and shown.stdout == BEFORE + AFTER
    assert card.tool_call_completed.model_call_id


@pytest.mark.parametrize("codec", CODECS)
async def test_a_read_cut_off_by_a_lost_connection_is_asked_again(
    tmp_path: Path, codec: str
) -> None:
    """Reading twice changes nothing: the read the client got on the lost
    stream is asked again on the new one, and its answer is the result."""
    read = call("call_read", "read_file", path="a.txt")
    llm_scripts = [stream_of(assistant(TextContent("Reading."), read)), answer("It says hi.")]
    async with rig(tmp_path, codec, llm_scripts) as r:
        (r.cli.workspace / "a.txt").write_text("hi\n")
        lost = await r.cli.run(
            user_message("what is in a.txt?", r.cli.context),
            "sonnet",
            drop_after="exec_server_message",
        )
        resumed = await r.cli.run(resume(), "sonnet")
        [result] = results_of(r)
    assert lost.dropped_stream and [e.read_args.path for e in lost.execs] == ["a.txt"]
    clean(resumed)
    assert [e.read_args.path for e in resumed.execs] == ["a.txt"]
    assert not result.is_error and result.content == (TextContent("hi\n"),)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_resume_that_is_lost_at_once_and_resumed_again_commits_one_result(
    tmp_path: Path, codec: str
) -> None:
    async with rig(tmp_path, codec, scripts(), delay=0.01) as r:
        await drop_mid_shell(r)
        first = await r.cli.run(resume(), "sonnet", drop_after="tool_call_completed")
        second = await r.cli.run(resume(), "sonnet")
        assert_cut_off_once(r, [first, second])
    assert first.dropped_stream
    clean(second)
    assert first.text + second.text == "The commit may have gone through; let me check."
