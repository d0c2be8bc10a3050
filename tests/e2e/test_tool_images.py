"""The agent reads an image, and the next model request carries it as an
image: the real server on a real socket, the real adapters against the
replay provider, and both test clients (tests/e2e/official_cli.py and
independent_cli.py) reading the PNG as the CLI does (bytes, no type). The
read card names the image by blob id, set in the client's KV store first;
the store keeps the bytes once; a restart between the read and the next
model call sends the very same bytes; a text-only model, and an image over
the provider's limit, get a note."""

from __future__ import annotations

import asyncio
import base64
import io
import sqlite3
from collections.abc import Callable
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cursor_byok.llm.images import TEXT_ONLY_NOTE
from cursor_byok.llm.types import AssistantMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.independent_cli import CODECS
from tests.e2e.independent_cli import OfficialCli as IndependentCli
from tests.e2e.official_cli import CliTurn, OfficialCli, user_message
from tests.e2e.provider_turns import ModelUnderTest, server_for
from tests.e2e.test_official_cli import card_of, clean
from tests.e2e.test_provider_round_trips import CASES as ROUND_TRIP_CASES
from tests.e2e.test_provider_round_trips import ApiCase
from tests.e2e.test_restart import start_serve
from tests.image_samples import GIF, GIF_AS_PNG, png
from tests.llm import wire_streams as wire
from tests.llm.loopback import LoopbackServer, Reply
from tests.llm.provider_rules import check_request
from tests.llm.test_tool_result_images import (
    anthropic_carried,
    chat_carried,
    gemini_carried,
    responses_carried,
)

PICTURE = png(24, 16, noise=True)
B64 = base64.b64encode(PICTURE).decode("ascii")
CLAUDE = ModelUnderTest("anthropic", "claude-haiku-4-5")
READ_SHOT = wire.Call("toolu_shot", "read_file", {"path": "shot.png"})
CONTEXT = pb.RequestContext(env=pb.RequestContextEnv(shell="bash"))
SHOTS = pb.McpToolDefinition(
    name="shots-take",
    provider_identifier="shots",
    tool_name="take",
    description="Take screenshots.",
    input_schema_json='{"type": "object", "properties": {}}',
)


def claude_reads(*calls: wire.Call) -> list[Reply]:
    return [
        Reply(wire.anthropic([wire.Text("Looking."), *calls])),
        Reply(wire.anthropic([wire.Text("A grey square.")])),
    ]


def images_in(carried: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return [c for c in carried if c[0] == "image"]


def stored_once(database: Path, data: bytes) -> None:
    """The bytes are in the images table, named by their hash, and in no
    message row nor saved tool result."""
    encoded = base64.b64encode(data)
    with sqlite3.connect(database) as db:
        hashes = [r[0] for r in db.execute("SELECT sha256 FROM images")]
        rows = [bytes(r[0]) for r in db.execute("SELECT message_json FROM messages")]
        results = [
            bytes(r[0])
            for r in db.execute("SELECT result_json FROM client_operations")
            if r[0] is not None
        ]
    assert sha256(data).hexdigest() in hashes
    assert results and all(encoded not in row for row in [*rows, *results])


# -- each API, through the whole server -------------------------------------------------


CARRIED: dict[str, Callable[[dict[str, Any]], list[tuple[str, ...]]]] = {
    "anthropic": anthropic_carried,
    "openai-chat": chat_carried,
    "openai-responses": responses_carried,
    "gemini": gemini_carried,
}
API_CASES = [
    *(case for case in ROUND_TRIP_CASES if case.name != "deepseek-thinking"),
    ApiCase("gemini-2", ModelUnderTest("gemini", "gemini-2.5-flash"), wire.gemini, (), list),
]


@pytest.mark.parametrize("case", API_CASES, ids=str)
async def test_the_request_after_a_read_carries_the_image_for_each_api(
    case: ApiCase, tmp_path: Path
) -> None:
    replies = [
        Reply(case.stream([*case.lead, READ_SHOT])),
        Reply(case.stream([wire.Text("A grey square.")])),
    ]
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "shot.png").write_bytes(PICTURE)
    async with server_for(case.model, replies, tmp_path) as server:
        turn = await server.turn("r-1", "What is in shot.png?")
        received = server.provider.received
    assert turn.end.error is None, turn.end
    assert turn.text().endswith("A grey square.")
    body = check_request(case.model.api, received[1].body, case.model.model)
    assert images_in(CARRIED[case.model.api](body)) == [("image", "image/png", B64)]
    stored_once(tmp_path / "db.sqlite3", PICTURE)


async def test_a_text_only_model_gets_a_note_for_the_image_it_read(tmp_path: Path) -> None:
    model = ModelUnderTest("openai-chat", "deepseek-chat", vendor="deepseek")
    replies = [
        Reply(wire.chat([READ_SHOT], model="deepseek-chat")),
        Reply(wire.chat([wire.Text("I cannot see it.")], model="deepseek-chat")),
    ]
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "shot.png").write_bytes(PICTURE)
    async with server_for(model, replies, tmp_path) as server:
        turn = await server.turn("r-1", "What is in shot.png?")
        received = server.provider.received
    assert turn.end.error is None, turn.end
    body = check_request(model.api, received[1].body, model.model)
    assert b"image_url" not in received[1].body
    [tool] = [m for m in body["messages"] if m["role"] == "tool"]
    assert tool["content"].endswith(TEXT_ONLY_NOTE)


async def test_an_image_over_the_providers_limit_is_sent_scaled_down(tmp_path: Path) -> None:
    """A 4 MB PNG is 5.3 MB of base64, above the 5 MB Anthropic takes for
    one image: it reaches the model made smaller and within the limit (never
    a request the provider refuses), and the next request carries the very
    same bytes."""
    big = png(2000, 2000, noise=True)
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "shot.png").write_bytes(big)
    replies = [*claude_reads(READ_SHOT), Reply(wire.anthropic([wire.Text("Still grey.")]))]
    async with server_for(CLAUDE, replies, tmp_path) as server:
        turn = await server.turn("r-1", "What is in shot.png?")
        await server.turn("r-2", "And again?")
        received = server.provider.received
    assert turn.end.error is None, turn.end
    body = check_request("anthropic", received[1].body, CLAUDE.model)
    [(_, mime, data)] = images_in(anthropic_carried(body))
    # Grey noise has no transparency and does not compress: a JPEG holds it.
    assert mime == "image/jpeg" and len(data) <= 5 * 1024 * 1024
    assert Image.open(io.BytesIO(base64.b64decode(data))).size == (2000, 2000)
    assert data.encode() in received[-1].body  # the same bytes, not resized anew
    # Stored once by the hash of the bytes sent, as any image is; the original never.
    stored_once(tmp_path / "db.sqlite3", base64.b64decode(data))
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        hashes = [r[0] for r in db.execute("SELECT sha256 FROM images")]
    assert hashes == [sha256(base64.b64decode(data)).hexdigest()]


# -- the official CLI's client -------------------------------------------------------------


async def run_official(
    tmp_path: Path, replies: list[Reply], action: pb.ConversationAction, **cli_options: Any
) -> tuple[CliTurn, OfficialCli, list[Any]]:
    (tmp_path / "workspace").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "shot.png").write_bytes(PICTURE)
    async with server_for(CLAUDE, replies, tmp_path) as server:
        cli = OfficialCli(server.url, "proto", server.workspace, CONTEXT)
        for name, value in cli_options.items():
            setattr(cli, name, value)
        try:
            turn = await cli.run(action, "m", mcp_tools=(SHOTS,))
        finally:
            await cli.close()
        return turn, cli, list(server.provider.received)


async def test_the_official_cli_reads_a_png_and_the_model_sees_it(tmp_path: Path) -> None:
    turn, cli, received = await run_official(
        tmp_path, claude_reads(READ_SHOT), user_message("What is in shot.png?", CONTEXT)
    )
    clean(turn)  # among its rules: the card's blob was set before the card named it
    assert turn.text.endswith("A grey square.")
    body = check_request("anthropic", received[1].body, CLAUDE.model)
    assert images_in(anthropic_carried(body)) == [("image", "image/png", B64)]
    completed = [c.tool_call_completed for c in turn.cards if c.HasField("tool_call_completed")]
    [card] = [c.tool_call.read_tool_call for c in completed]
    success = card.result.success
    assert success.WhichOneof("output") == "data_blob_id"
    assert success.data_blob_id == sha256(PICTURE).digest()
    assert cli.blobs[success.data_blob_id] == PICTURE
    # The set_blob came before the card: the first KV message precedes it.
    assert turn.order.index("kv_server_message") < turn.order.index("tool_call_completed")
    # No blob but the image itself carries its bytes (the card's step names it).
    assert [key for key, blob in cli.blobs.items() if PICTURE in blob] == [success.data_blob_id]
    stored_once(tmp_path / "db.sqlite3", PICTURE)


async def test_mcp_images_reach_the_model_and_text_stays_text(tmp_path: Path) -> None:
    """The client calls its MCP images JPEG whatever they are: each goes
    by its bytes, after the tool's text."""
    call = wire.Call("toolu_mcp", "mcp_shots_take", {})
    context = pb.RequestContext(env=pb.RequestContextEnv(shell="bash"), tools=[SHOTS])
    turn, cli, received = await run_official(
        tmp_path,
        claude_reads(call),
        user_message("Take the screenshots.", context),
        context=context,
        mcp_images={"shots-take": [PICTURE, GIF]},
    )
    clean(turn)
    # The card shows the MCP result as the client returned it, each image's
    # bytes inline: `McpImageContent` has no blob-id form (unlike the read
    # card's `data_blob_id`), and the official server's MCP card mirrors the
    # client's result. No image is put in the client's KV store for it.
    card = card_of(turn, "tool_call_completed").mcp_tool_call
    shown = [item.image for item in card.result.success.content if item.HasField("image")]
    assert [(i.data, i.mime_type) for i in shown] == [
        (PICTURE, "image/jpeg"),
        (GIF, "image/jpeg"),
    ]
    assert not any(blob in (PICTURE, GIF) for blob in cli.blobs.values())
    body = check_request("anthropic", received[1].body, CLAUDE.model)
    assert anthropic_carried(body) == [
        ("result", "toolu_mcp", "shots-take ran"),
        ("image", "image/png", B64),
        ("image", "image/png", base64.b64encode(GIF_AS_PNG).decode("ascii")),  # first frame
    ]


# -- the independent client ---------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
async def test_the_independent_cli_reads_a_png_and_the_model_sees_it(
    tmp_path: Path, codec: str
) -> None:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "shot.png").write_bytes(PICTURE)
    async with (
        server_for(CLAUDE, claude_reads(READ_SHOT), tmp_path) as server,
        IndependentCli(server.url, codec, server.workspace) as cli,
    ):
        run = await cli.turn("conv-img", "m", "What is in shot.png?")
        received = server.provider.received
    assert run.end is not None and run.end.ok, run.end
    assert run.errors == [], run.errors  # the card's blob was set before the card
    body = check_request("anthropic", received[1].body, CLAUDE.model)
    assert images_in(anthropic_carried(body)) == [("image", "image/png", B64)]
    kinds = run.kinds()
    stored = [i for i, (k, m) in enumerate(run.events) if k == "kv_set" and m.blob_data == PICTURE]
    completed = [i for i, (k, _) in enumerate(run.events) if k == "tool_call_completed"]
    assert stored and completed and stored[0] < completed[0], kinds
    card = run.events[completed[0]][1].tool_call.read_tool_call
    assert card.result.success.data_blob_id == sha256(PICTURE).digest()


async def test_a_restart_between_the_read_and_the_next_model_call_sends_the_same_bytes(
    tmp_path: Path,
) -> None:
    """`serve` is killed (SIGKILL) while the model call after the read is
    in flight; the restarted server sends that call again from the store,
    the image put back from the images table: byte for byte the same body."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "shot.png").write_bytes(PICTURE)
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [
        Reply(wire.anthropic([wire.Text("Looking."), READ_SHOT])),
        Reply(b"", hang=True),  # the call after the read never answers
        Reply(wire.anthropic([wire.Text("A grey square.")])),
    ]
    config = tmp_path / "config.toml"
    config.write_text(CLAUDE.toml(provider.base_url))
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = await asyncio.to_thread(start_serve, config, database, port)
    second = None
    try:
        async with IndependentCli(f"http://127.0.0.1:{port}", "proto", workspace) as cli:
            handle = cli.start("conv-r", "m", cli.user_action("What is in shot.png?"), "req-r")
            for _ in range(300):
                if len(provider.received) == 2:
                    break
                await asyncio.sleep(0.05)
            assert len(provider.received) == 2
            first.kill()
            await asyncio.to_thread(first.communicate, timeout=30)
            await handle.finish()
            second = await asyncio.to_thread(start_serve, config, database, port)
            resume = pb.ConversationAction()
            resume.resume_action.SetInParent()
            run = await cli.start("conv-r", "m", resume, "req-r").finish(60)
        # The restarted server may finish the turn before the client resumes
        # (nothing waits on the client): the resume then finds it done.
        assert run.end is not None and run.end.ok, (run.end, run.errors)
        assert run.text().count("A grey square.") <= 1
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                await asyncio.to_thread(process.communicate)
        await provider.stop()
    assert len(provider.received) == 3
    store = SQLiteStore(database)
    try:
        loaded = store.load("conv-r")
    finally:
        store.close()
    assert loaded is not None
    answers = [m.text for m in loaded.state.messages if isinstance(m, AssistantMessage)]
    assert answers == ["Looking.", "A grey square."]
    before, after = provider.received[1].body, provider.received[2].body
    assert after == before
    body = check_request("anthropic", after, CLAUDE.model)
    assert images_in(anthropic_carried(body)) == [("image", "image/png", B64)]
