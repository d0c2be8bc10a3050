"""A shell command cut off by a lost connection, over HTTP/2 `Run`, in each
of its framings: the client streams part of the command's output, then its
connection is gone (the whole connection, as when a laptop changes network),
and it resumes the turn on a new connection and a new stream. The command is
not asked again; the model's next request carries what arrived, once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cursor_byok.client.client import End, Item, exec_reply, kind, run_request
from cursor_byok.client.run_client import H2Client
from cursor_byok.llm.types import TextContent, ToolResultMessage
from cursor_byok.loop.state import Status
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.test_official_cli import call
from tests.e2e.test_run_http2 import answer, resume, running
from tests.factories import assistant, stream_of

CODECS = ["proto", "json", "grpc", "grpc-web"]
COMMAND = "make migrate"
PIECES = ("Applying 0042_add_index... ", "OK\nApplying 0043_drop_column...")


def shell(piece: str) -> pb.ShellStream:
    return pb.ShellStream(stdout=pb.ShellStreamStdout(data=piece))


def is_end(item: Item) -> bool:
    return isinstance(item, End)


@pytest.mark.parametrize("codec", CODECS)
async def test_a_command_cut_off_by_a_lost_connection_is_not_run_again_over_run(
    tmp_path: Path, codec: str
) -> None:
    tool = call("call_sh", "run_terminal_cmd", command=COMMAND)
    scripts = [stream_of(assistant(TextContent("Migrating."), tool)), answer("Checking.")]
    async with running(tmp_path, scripts, ("h2c", codec)) as run:
        old = await run.open()
        await old.send(run_request("migrate the database"))
        item = await old.until(lambda i: kind(i) == "exec")
        assert isinstance(item, pb.AgentServerMessage)
        request = item.exec_server_message
        assert request.shell_stream_args.command == COMMAND
        await old.send(
            exec_reply(request, shell_stream=pb.ShellStream(start=pb.ShellStreamStart()))
        )
        for piece in PIECES:
            await old.send(exec_reply(request, shell_stream=shell(piece)))
        # Both pieces were taken: the server answers nothing per message on
        # a Run stream, so wait until the state has them.
        for _ in range(500):
            state = await run.service.runner.state_of("conv-1")
            assert state is not None and state.waiting is not None
            if state.waiting.output == "".join(PIECES):
                break
            await asyncio.sleep(0.01)
        run.client.writer.transport.abort()  # the connection is lost
        client = await H2Client.connect(f"http://{run.client.authority}")
        try:
            new = await client.open(codec)
            await new.send(resume())
            end = await new.until(is_end, within=20)
        finally:
            await client.close()
        history = run.store.load("conv-1")
    assert isinstance(end, End) and end.error is None, end
    assert "exec" not in [kind(i) for i in new.received]  # not asked again
    assert new.text() == "Checking."
    assert len(run.llm.requests) == 2
    sent = json.dumps(json.loads(run.llm.requests[1][1]))
    assert all(sent.count(json.dumps(piece)[1:-1]) == 1 for piece in PIECES)
    assert sent.count("was not run again") == 1
    assert history is not None and history.state.status is Status.FINAL
    [result] = [m for m in history.state.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error and COMMAND in result.content[0].text  # type: ignore[union-attr]
