"""Images a user attaches reach the model, in each form a client sends
them: inline (`data`, the CLI), with their blob id (`blob_id_with_data`, the
IDE), or by blob id alone, the bytes then fetched from the client's KV
store with a bounded wait. Over a real socket, with a client that plays the
official CLI."""

from __future__ import annotations

import base64
import shutil
import sqlite3
import time
from collections.abc import Callable
from hashlib import sha256
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from cursor_byok.client.client import cancel
from cursor_byok.llm.images import TEXT_ONLY_NOTE
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import OfficialCli, user_message
from tests.e2e.provider_turns import ModelUnderTest, server_for
from tests.e2e.test_kv_answers import rig as kv_rig
from tests.e2e.test_official_cli import answer, clean, rig
from tests.image_samples import GIF, GIF_AS_PNG, JPEG, png
from tests.llm import wire_streams as wire
from tests.llm.loopback import Reply
from tests.llm.provider_rules import check_request

CONTEXT = pb.RequestContext(env=pb.RequestContextEnv(shell="bash"))


def with_images(*images: pb.SelectedImage) -> pb.ConversationAction:
    action = user_message("What is in these?", CONTEXT)
    selected = action.user_message_action.user_message.selected_context
    selected.selected_images.extend(images)
    return action


def user_blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the last user message the model got."""
    user = [m for m in request["messages"] if m["role"] == "user"][-1]
    blocks: list[dict[str, Any]] = user["content"]
    return blocks


def image(data: bytes, mime: str) -> dict[str, Any]:
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}


async def test_each_form_of_an_attached_image_reaches_the_model(tmp_path: Path) -> None:
    picture, other = png(2, 2), GIF
    async with rig(tmp_path, "proto", [answer("A grey square and a dot.")]) as r:
        r.cli.blobs[sha256(other).digest()] = other  # the IDE keeps its images in its KV store
        turn = await r.cli.run(
            with_images(
                pb.SelectedImage(data=picture, mime_type="image/jpeg"),
                pb.SelectedImage(
                    blob_id_with_data=pb.SelectedImage.BlobIdWithData(
                        blob_id=sha256(picture).digest(), data=picture
                    ),
                    mime_type="image/png",
                ),
                pb.SelectedImage(blob_id=sha256(other).digest(), mime_type="image/gif"),
                pb.SelectedImage(
                    blob_id_with_data=pb.SelectedImage.BlobIdWithData(
                        blob_id=sha256(other).digest()
                    ),
                ),
            ),
            "sonnet",
        )
    clean(turn)
    assert turn.blobs_asked == [sha256(other).digest()]  # asked once, used twice
    assert user_blocks(r.request(0)) == [
        image(picture, "image/png"),
        image(picture, "image/png"),
        image(GIF_AS_PNG, "image/png"),  # a GIF is stored as a PNG of its first frame
        image(GIF_AS_PNG, "image/png"),
        {"type": "text", "text": "What is in these?"},
    ]


@pytest.mark.parametrize("answers", [True, False], ids=["unknown", "never-answered"])
async def test_a_blob_the_client_cannot_give_becomes_a_note(tmp_path: Path, answers: bool) -> None:
    """A blob the client does not have, or a client that never answers: the
    turn goes on without the image, after a bounded wait, and the model is told."""
    async with rig(tmp_path, "proto", [answer("I see no image.")], blob_wait_s=0.3) as r:
        r.cli.answers_blobs = answers
        began = time.monotonic()
        turn = await r.cli.run(
            with_images(pb.SelectedImage(blob_id=sha256(b"gone").digest())), "sonnet"
        )
        waited = time.monotonic() - began
    clean(turn)
    assert turn.text == "I see no image."
    assert len(turn.blobs_asked) == 1
    assert waited < 10
    note, text = user_blocks(r.request(0))
    assert note["type"] == "text" and "image was left out" in note["text"]
    assert text == {"type": "text", "text": "What is in these?"}


async def test_a_cancel_while_an_image_is_awaited_ends_the_run_before_it_starts(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, "proto", [], blob_wait_s=10) as r:
        r.cli.answers_blobs = False
        began = time.monotonic()
        turn = await r.cli.run(
            with_images(pb.SelectedImage(blob_id=sha256(b"slow").digest())),
            "sonnet",
            during=[cancel()],
            during_after="kv_get",
        )
        waited = time.monotonic() - began
        loaded = r.store.load("conv-cli")
    assert turn.error_details is not None
    assert turn.error_details.details.detail == "User aborted request"
    assert r.llm.requests == [] and loaded is None
    assert waited < 5  # the cancel ended the wait, not the 10 s bound


async def test_an_image_is_stored_once_and_sent_again_after_a_restart(tmp_path: Path) -> None:
    """History names the image by its hash; the bytes are stored once and
    put back when the conversation is loaded, so the request after a restart
    carries the image exactly as the first did."""
    picture = png(32, 32, noise=True)
    async with rig(tmp_path, "proto", [answer("A square.")]) as r:
        clean(await r.cli.run(with_images(pb.SelectedImage(data=picture)), "sonnet"))
        first = r.request(0)
    shutil.rmtree(tmp_path / "workspace")  # the database stays: a restart
    async with rig(tmp_path, "proto", [answer("Still a square.")]) as r:
        clean(await r.cli.run(user_message("And now?", CONTEXT), "sonnet"))
        again = r.request(0)
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        stored = db.execute("SELECT sha256 FROM images").fetchall()
        rows = db.execute("SELECT message_json FROM messages").fetchall()
    assert again["messages"][: len(first["messages"])] == first["messages"]
    assert again["messages"][-1] == {"role": "user", "content": "And now?", "timestamp": ANY}
    assert stored == [(sha256(picture).hexdigest(),)]
    assert all(base64.b64encode(picture) not in bytes(row[0]) for row in rows)


# -- what each provider API receives -------------------------------------------------------


def _anthropic_user(body: dict[str, Any]) -> list[tuple[str, ...]]:
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    return [
        ("image", b["source"]["media_type"], b["source"]["data"])
        if b["type"] == "image"
        else ("text", b["text"])
        for b in user["content"]
    ]


def _chat_user(body: dict[str, Any]) -> list[tuple[str, ...]]:
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    return [
        ("image", *_from_url(p["image_url"]["url"]))
        if p["type"] == "image_url"
        else ("text", p["text"])
        for p in user["content"]
    ]


def _responses_user(body: dict[str, Any]) -> list[tuple[str, ...]]:
    user = [i for i in body["input"] if i.get("role") == "user"][-1]
    return [
        ("image", *_from_url(p["image_url"])) if p["type"] == "input_image" else ("text", p["text"])
        for p in user["content"]
    ]


def _gemini_user(body: dict[str, Any]) -> list[tuple[str, ...]]:
    user = [c for c in body["contents"] if c["role"] == "user"][-1]
    return [
        ("image", p["inlineData"]["mimeType"], p["inlineData"]["data"])
        if "inlineData" in p
        else ("text", p["text"])
        for p in user["parts"]
    ]


def _from_url(url: str) -> tuple[str, str]:
    head, _, data = url.partition(",")
    assert head.startswith("data:") and head.endswith(";base64")
    return head[len("data:") : -len(";base64")], data


Stream = Callable[[list[wire.Block]], bytes]
UserOf = Callable[[dict[str, Any]], list[tuple[str, ...]]]
API_CASES: list[tuple[ModelUnderTest, Stream, UserOf]] = [
    (ModelUnderTest("anthropic", "claude-sonnet-4-5"), wire.anthropic, _anthropic_user),
    (ModelUnderTest("openai-chat", "gpt-4.1", vendor="openai"), wire.chat, _chat_user),
    (ModelUnderTest("openai-responses", "gpt-5-mini"), wire.responses, _responses_user),
    (ModelUnderTest("gemini", "gemini-2.5-flash"), wire.gemini, _gemini_user),
]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def three_forms(cli: OfficialCli) -> pb.ConversationAction:
    """An image inline (the CLI, calling it JPEG), one with its blob id and
    bytes (the IDE), one by blob id alone (in the client's KV store)."""
    cli.blobs[sha256(JPEG).digest()] = JPEG
    return with_images(
        pb.SelectedImage(data=png(), mime_type="image/jpeg"),
        pb.SelectedImage(
            blob_id_with_data=pb.SelectedImage.BlobIdWithData(
                blob_id=sha256(GIF).digest(), data=GIF
            ),
            mime_type="image/gif",
        ),
        pb.SelectedImage(blob_id=sha256(JPEG).digest(), mime_type="image/jpeg"),
    )


@pytest.mark.parametrize(
    ("model", "stream", "user_of"), API_CASES, ids=[case[0].api for case in API_CASES]
)
async def test_each_api_gets_the_images_in_its_own_form(
    tmp_path: Path,
    model: ModelUnderTest,
    stream: Stream,
    user_of: UserOf,
) -> None:
    replies = [Reply(stream([wire.Text("Three pictures.")]))]
    async with server_for(model, replies, tmp_path) as server:
        cli = OfficialCli(server.url, "proto", server.workspace, CONTEXT)
        try:
            turn = await cli.run(three_forms(cli), "m")
        finally:
            await cli.close()
        received = server.provider.received
    clean(turn)
    assert turn.text == "Three pictures."
    body = check_request(model.api, received[0].body, model.model)
    gif = ("image", "image/png", b64(GIF_AS_PNG))  # Gemini too: it takes no GIF
    assert user_of(body) == [
        ("image", "image/png", b64(png())),
        gif,
        ("image", "image/jpeg", b64(JPEG)),
        ("text", "What is in these?"),
    ]


async def test_a_text_only_model_gets_a_note_for_each_image(tmp_path: Path) -> None:
    """DeepSeek takes no images: sending one would fail the whole request."""
    model = ModelUnderTest("openai-chat", "deepseek-chat", vendor="deepseek")
    replies = [Reply(wire.chat([wire.Text("I cannot see images.")], model="deepseek-chat"))]
    async with server_for(model, replies, tmp_path) as server:
        cli = OfficialCli(server.url, "proto", server.workspace, CONTEXT)
        try:
            turn = await cli.run(three_forms(cli), "m")
        finally:
            await cli.close()
        received = server.provider.received
    clean(turn)
    body = check_request(model.api, received[0].body, model.model)
    assert b"image_url" not in received[0].body
    assert _chat_user(body) == [("text", TEXT_ONLY_NOTE)] * 3 + [("text", "What is in these?")]


async def test_the_checkpoint_names_each_image_by_blob_id_and_stores_it_first(
    tmp_path: Path,
) -> None:
    """As the official server does: the turn's user message in the client's
    KV store names its images by blob id (the SHA-256 of the bytes) and
    the image itself is `set_blob` first, so a client rebuilding the chat
    finds it, and the message blob does not carry the bytes again."""
    picture = png(8, 8, noise=True)
    async with rig(tmp_path, "proto", [answer("Seen.")]) as r:
        ide_id = sha256(GIF).digest()
        turn = await r.cli.run(
            with_images(
                pb.SelectedImage(data=picture, mime_type="image/jpeg"),
                pb.SelectedImage(
                    blob_id_with_data=pb.SelectedImage.BlobIdWithData(blob_id=ide_id, data=GIF),
                    uuid="img-2",
                ),
            ),
            "sonnet",
        )
        blobs = r.cli.blobs
    clean(turn)
    assert turn.checkpoints
    [turn_id] = turn.checkpoints[-1].turns
    structure = pb.ConversationTurnStructure.FromString(blobs[turn_id]).agent_conversation_turn
    user = pb.UserMessage.FromString(blobs[structure.user_message])
    images = user.selected_context.selected_images
    assert [i.WhichOneof("data_or_blob_id") for i in images] == ["blob_id", "blob_id"]
    assert images[0].blob_id == sha256(picture).digest()
    assert images[1].blob_id == ide_id and images[1].uuid == "img-2"
    assert blobs[sha256(picture).digest()] == picture  # stored for the client
    assert ide_id not in blobs  # the IDE already holds its own
    assert user.text == "What is in these?"


async def test_a_blob_answer_is_a_kv_answer_the_end_of_the_stream_does_not_wait_for(
    tmp_path: Path,
) -> None:
    """The end of a stream waits for the client's answers to its KV
    requests; the answer to `get_blob` is one of them, and is counted so."""
    async with kv_rig(tmp_path, [answer("A dot.")]) as r:
        cli = r.cli("at once")
        cli.blobs[sha256(GIF).digest()] = GIF
        try:
            turn = await cli.run(
                with_images(pb.SelectedImage(blob_id=sha256(GIF).digest())), "sonnet"
            )
        finally:
            await cli.close()
        counters = r.service.hub.counters
    clean(turn)
    assert turn.blobs_asked == [sha256(GIF).digest()]
    assert counters.kv_unanswered == 0 and counters.late_kv_answers == 0
