"""A crash between two tool round trips: `kill -9` on a real `serve`
process after the first tool result is committed, while the second tool
call is pending. The client reconnects to the restarted server with the
same request id and its seqno back at 0 (the official CLI's appends after a
lost connection). The new tool result must not be taken for the committed
one that had the same seqno: the turn finishes once, and the history (as
the provider receives it) is byte-identical to an uninterrupted run's."""

from __future__ import annotations

import signal
from pathlib import Path

from cursor_byok.client.client import (
    CursorClient,
    End,
    Stream,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.llm.types import AssistantMessage, ToolResultMessage, UserMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.test_restart import start_serve
from tests.llm import wire_streams as wire
from tests.llm.loopback import LoopbackServer, Reply

REQUEST_ID = "r-crash"
FILES = {"a.txt": "alpha\n", "b.txt": "beta\n"}


def replies() -> list[Reply]:
    return [
        Reply(wire.anthropic([wire.Text("First a."), *wire.reads("a.txt", prefix="one")])),
        Reply(wire.anthropic([wire.Text("Now b."), *wire.reads("b.txt", prefix="two")])),
        Reply(wire.anthropic([wire.Text("Both read.")])),
    ]


def config(tmp_path: Path, provider: LoopbackServer) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'default_model = "claude"\n[providers.a]\napi = "anthropic"\n'
        f'base_url = "{provider.base_url}"\napi_key = "sk-ant-test"\n'
        f'[models.claude]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
    )
    return path


class Player:
    """Answers reads from FILES on one request id, counting its own seqno."""

    def __init__(self, client: CursorClient, stream: Stream) -> None:
        self.client = client
        self.stream = stream
        self.seqno = 0

    async def send(self, message: pb.AgentClientMessage) -> None:
        await self.client.append(REQUEST_ID, self.seqno, message)
        self.seqno += 1

    async def next_exec(self) -> pb.ExecServerMessage | End:
        item = await self.stream.until(lambda i: kind(i) in ("exec", "end"), within=30)
        return item if isinstance(item, End) else item.exec_server_message

    async def answer(self, request: pb.ExecServerMessage) -> None:
        path = request.read_args.path
        result = pb.ReadResult(
            success=pb.ReadSuccess(path=path, content=FILES[path], total_lines=1)
        )
        await self.send(exec_reply(request, read_result=result))
        await self.send(stream_close(request.id))


async def open_player(port: int) -> Player:
    client = CursorClient(f"http://127.0.0.1:{port}")
    player = Player(client, await client.open(REQUEST_ID))
    await player.send(
        run_request("read a.txt, then b.txt", conversation_id="conv-1", model="claude")
    )
    return player


def history(database: Path) -> list[object]:
    store = SQLiteStore(database)
    try:
        loaded = store.load("conv-1")
    finally:
        store.close()
    assert loaded is not None and loaded.state.status.value == "final"
    return list(loaded.state.messages)


async def uninterrupted(tmp_path: Path) -> tuple[list[bytes], list[object]]:
    provider = LoopbackServer()
    await provider.start()
    provider.replies = replies()
    database = tmp_path / "straight.sqlite3"
    port = free_port()
    process = start_serve(config(tmp_path, provider), database, port)
    try:
        player = await open_player(port)
        while not isinstance(request := await player.next_exec(), End):
            await player.answer(request)
        assert request.error is None
        await player.client.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
        await provider.stop()
    return [r.body for r in provider.received], history(database)


async def test_a_crash_between_tool_round_trips_then_the_same_request_id_from_seqno_0(
    tmp_path: Path,
) -> None:
    (tmp_path / "straight").mkdir()
    straight_bodies, straight_history = await uninterrupted(tmp_path / "straight")
    provider = LoopbackServer()
    await provider.start()
    provider.replies = replies()
    settings = config(tmp_path, provider)
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = start_serve(settings, database, port)
    try:
        player = await open_player(port)
        one = await player.next_exec()
        assert isinstance(one, pb.ExecServerMessage) and one.read_args.path == "a.txt"
        await player.answer(one)  # seqno 1 and 2: committed as the first result
        two = await player.next_exec()
        assert isinstance(two, pb.ExecServerMessage) and two.read_args.path == "b.txt"
        first.send_signal(signal.SIGKILL)  # the second call is pending
        first.communicate(timeout=30)
        await player.client.close()
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()

    second = start_serve(settings, database, port)
    try:
        player = await open_player(port)  # same request id, seqno 0 again
        asked: list[str] = []
        while not isinstance(request := await player.next_exec(), End):
            asked.append(request.read_args.path)
            await player.answer(request)  # seqno 1 and 2 again: a new result
        await player.client.close()
    finally:
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=30)
        await provider.stop()
    assert request.error is None
    assert asked == ["b.txt"]  # asked again once, never the committed one
    kinds = [kind(i) for i in player.stream.received]
    assert kinds.count("turn_ended") == 1
    assert player.stream.text().endswith("Both read.")
    bodies = [r.body for r in provider.received]
    assert len(bodies) == 3  # one call each: nothing ran twice
    assert bodies == straight_bodies  # the provider saw the same history, byte for byte
    crashed_history = history(database)
    assert [type(m) for m in crashed_history] == [
        UserMessage,
        AssistantMessage,
        ToolResultMessage,
        AssistantMessage,
        ToolResultMessage,
        AssistantMessage,
    ]
    assert [_content(m) for m in crashed_history] == [_content(m) for m in straight_history]


def _content(message: object) -> object:
    """A message without its timestamp (the two runs happen at other times)."""
    return getattr(message, "content", None), getattr(message, "is_error", None)
