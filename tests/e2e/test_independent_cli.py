"""The server against a client that plays the official CLI's rules
(independent_cli.py), one test per rule, in each codec. The server is the real
one (router, adapter, runner, SQLite store, Connect transport) on a real
socket; the model is the local replay provider, never the network."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.independent_cli import (
    CODECS,
    Deframer,
    OfficialCli,
    Run,
    RunHandle,
    card_drop,
    envelope,
)
from tests.e2e.provider_turns import ModelUnderTest, Server, server_for
from tests.llm.loopback import Reply
from tests.llm.wire_streams import Call, Text, anthropic

CLAUDE = ModelUnderTest("anthropic", "claude-haiku-4-5")
READ = Call("toolu_read", "read_file", {"path": "a.txt"})
SHELL = Call("toolu_shell", "run_terminal_cmd", {"command": "echo hi && ls a.txt"})
WRITE = Call("toolu_write", "write_file", {"path": "out.txt", "contents": "written\n"})


def say(text: str) -> Reply:
    return Reply(anthropic([Text(text)]))


def calls(*tools: Call) -> Reply:
    return Reply(anthropic([Text("On it."), *tools]))


@asynccontextmanager
async def official(
    tmp_path: Path, codec: str, replies: list[Reply], **options: bool
) -> AsyncIterator[tuple[Server, OfficialCli]]:
    async with (
        server_for(CLAUDE, replies, tmp_path) as server,
        OfficialCli(server.url, codec, server.workspace, **options) as cli,
    ):
        yield server, cli


TOOL_SESSION = [
    calls(READ),
    calls(SHELL),
    calls(WRITE),
    say("All three done."),
    say("Second turn answer."),
    say("Plain answer."),
]


async def tool_session(tmp_path: Path, codec: str) -> tuple[list[Run], OfficialCli]:
    """A tool turn (read, shell, write), a second turn in the same
    conversation, then a plain turn in a new one."""
    async with official(tmp_path, codec, list(TOOL_SESSION)) as (_server, cli):
        model = await cli.default_model()
        first = await cli.turn("conv-tools", model, "Read a.txt, run a command, write out.txt")
        second = await cli.turn("conv-tools", model, "And now?")
        cli.checkpoints.clear()  # a new conversation starts without state
        plain = await cli.turn("conv-plain", model, "Say something")
        return [first, second, plain], cli


def clean(run: Run) -> None:
    assert run.end is not None and run.end.ok, run.end
    assert run.errors == [], run.errors


@pytest.mark.parametrize("codec", CODECS)
async def test_a_fresh_install_gets_a_default_model_from_ai_service(
    tmp_path: Path, codec: str
) -> None:
    async with official(tmp_path, codec, []) as (_server, cli):
        assert await cli.default_model() == "m"


@pytest.mark.parametrize("codec", CODECS)
async def test_tool_turn_second_turn_and_plain_turn_complete(tmp_path: Path, codec: str) -> None:
    (first, second, plain), cli = await tool_session(tmp_path, codec)
    for run in (first, second, plain):
        clean(run)
    assert [e.WhichOneof("message") for e in first.of("exec")] == [
        "read_args",
        "shell_stream_args",
        "write_args",
    ]
    assert first.text().endswith("All three done.")
    assert second.text() == "Second turn answer."
    assert plain.text() == "Plain answer."
    assert (cli.workspace / "out.txt").read_text() == "written\n"


@pytest.mark.parametrize("codec", CODECS)
async def test_token_deltas_drive_the_live_counter(tmp_path: Path, codec: str) -> None:
    runs, _cli = await tool_session(tmp_path, codec)
    assert runs[0].tokens() > 0 and runs[2].tokens() > 0


@pytest.mark.parametrize("codec", CODECS)
async def test_no_card_is_dropped(tmp_path: Path, codec: str) -> None:
    runs, _cli = await tool_session(tmp_path, codec)
    assert len(runs[0].of("tool_call_started")) == 3
    assert [run.dropped for run in runs] == [[], [], []]


@pytest.mark.parametrize("codec", CODECS)
async def test_every_shell_exec_carries_a_parsing_result(tmp_path: Path, codec: str) -> None:
    runs, _cli = await tool_session(tmp_path, codec)
    shells = [e for e in runs[0].of("exec") if e.WhichOneof("message") == "shell_stream_args"]
    assert shells
    assert [e for run in runs for e in run.errors if "shell" in e] == []


@pytest.mark.parametrize("codec", CODECS)
async def test_checkpoints_follow_each_exec_and_precede_the_end(tmp_path: Path, codec: str) -> None:
    runs, _cli = await tool_session(tmp_path, codec)
    for run in runs:
        kinds = run.kinds()
        for index, kind in enumerate(kinds):
            if kind == "exec":
                after = kinds[index + 1 :]
                stop = min(
                    (after.index(k) for k in ("exec", "end") if k in after), default=len(after)
                )
                assert "checkpoint" in after[:stop], kinds
        ending = [k for k in kinds if k not in ("token_delta",)]
        assert ending[-1] == "end"
        last_checkpoint = len(ending) - 1 - ending[::-1].index("checkpoint")
        assert set(ending[last_checkpoint + 1 : -1]) <= {"turn_ended"}, ending[-6:]


@pytest.mark.parametrize("codec", CODECS)
async def test_kv_blobs_are_sha256_and_set_before_the_checkpoint_naming_them(
    tmp_path: Path, codec: str
) -> None:
    runs, cli = await tool_session(tmp_path, codec)
    assert [e for run in runs for e in run.errors if "blob" in e] == []
    last = cli.checkpoints[-1]
    assert list(last.turns), "the final checkpoint names no turns"
    assert all(blob in cli.blobs for blob in last.turns)


def holding_execs(held: asyncio.Event) -> object:
    async def hook(_request: pb.ExecServerMessage, _handle: RunHandle) -> bool:
        held.set()
        return False

    return hook


@pytest.mark.parametrize("codec", CODECS)
async def test_a_cancel_ends_with_the_user_abort_detail(tmp_path: Path, codec: str) -> None:
    async with official(tmp_path, codec, [calls(READ), say("never")]) as (_server, cli):
        held = asyncio.Event()
        cli.exec_hook = holding_execs(held)  # type: ignore[assignment]
        handle = cli.start("conv-c", "m", cli.user_action("read a.txt"))
        await asyncio.wait_for(held.wait(), 20)
        cancel = pb.ConversationAction()
        cancel.cancel_action.reason = "user"
        handle.append_action(cancel)
        run = await handle.finish()
    assert run.end is not None and not run.end.ok
    assert [d.details.detail for d in run.end.details] == ["User aborted request"], run.end
    assert [e for e in run.errors if "silent drop" in e] == []


@pytest.mark.parametrize("codec", CODECS)
async def test_a_queued_message_is_acknowledged_once_with_its_id(
    tmp_path: Path, codec: str
) -> None:
    replies = [calls(READ), say("Read it."), say("About your follow-up."), say("spare")]
    async with official(tmp_path, codec, replies) as (_server, cli):
        queued = cli.user_action("also check b.txt", with_context=False)
        message_id = queued.user_message_action.user_message.message_id

        async def queue_then_answer(_request: pb.ExecServerMessage, handle: RunHandle) -> bool:
            handle.append_action(queued)
            await asyncio.sleep(0.2)
            return True

        cli.exec_hook = queue_then_answer
        run = await cli.start("conv-q", "m", cli.user_action("read a.txt")).finish()
    clean(run)
    acks = [u.user_message.message_id for u in run.of("user_message_appended")]
    assert acks == [message_id]


@pytest.mark.parametrize("codec", CODECS)
async def test_a_resume_on_a_new_request_id_continues_the_turn(tmp_path: Path, codec: str) -> None:
    async with official(tmp_path, codec, [calls(READ), say("The file says hi.")]) as (_s, cli):
        held = asyncio.Event()
        cli.exec_hook = holding_execs(held)  # type: ignore[assignment]
        first = cli.start("conv-r", "m", cli.user_action("read a.txt"))
        await asyncio.wait_for(held.wait(), 20)
        await first.hang_up()  # the exec's output cannot be written: resume
        cli.exec_hook = None
        resumed = await cli.resume("conv-r", "m")
    clean(resumed)
    assert resumed.request_id != first.run.request_id
    assert resumed.text().endswith("The file says hi.")
    asked_again = [e.WhichOneof("message") for e in resumed.of("exec")]
    assert asked_again in (["read_args"], []), asked_again
    assert resumed.dropped == []


@pytest.mark.parametrize("codec", CODECS)
async def test_a_6_mib_tool_result_completes_a_turn(tmp_path: Path, codec: str) -> None:
    async with official(tmp_path, codec, [calls(READ), say("Big file read.")]) as (server, cli):
        (server.workspace / "a.txt").write_text(("x" * 1023 + "\n") * 6 * 1024)
        run = await cli.start("conv-big", "m", cli.user_action("read a.txt")).finish(60)
        received = server.provider.received
    clean(run)
    assert run.text().endswith("Big file read.")
    # The server may cap what the model sees; the model saw the file's start.
    assert len(received) == 2 and b"x" * 1000 in received[1].body


@pytest.mark.parametrize("answer", [True, False])
async def test_a_print_mode_run_without_context_completes(tmp_path: Path, answer: bool) -> None:
    """Print mode sends no request context; the CLI may answer
    request_context_args or, like other print-mode clients, ignore it."""
    replies = [say("No context needed.")]
    async with official(tmp_path, "proto", replies, answer_request_context=answer) as (_s, cli):
        action = cli.user_action("hello", with_context=False)
        run = await cli.start("conv-p", "m", action).finish(60)
    clean(run)
    assert run.text() == "No context needed."


def test_the_client_itself_catches_what_the_cli_would_drop() -> None:
    """The checks can fail: a card without model_call_id is dropped, frames
    split across chunks are put back together."""
    card = pb.ToolCallStartedUpdate(call_id="c1", model_call_id="")
    card.tool_call.read_tool_call.args.path = "a.txt"
    assert card_drop("tool_call_started", card) == "empty model_call_id"
    card.model_call_id = "m1"
    assert card_drop("tool_call_started", card) is None
    assert card_drop("partial_tool_call", pb.PartialToolCallUpdate(model_call_id="m1")) == (
        "no tool_call"
    )
    frames = envelope(b"abc") + envelope(b"{}", 0x02)
    deframer = Deframer()
    assert deframer.feed(frames[:4]) == []
    assert deframer.feed(frames[4:]) == [(0, b"abc"), (2, b"{}")]
