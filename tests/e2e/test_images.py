"""Images a user attaches reach the model, in each form a client sends
them: inline (`data`, the CLI), with their blob id (`blob_id_with_data`, the
IDE), or by blob id alone, the bytes then fetched from the client's KV
store with a bounded wait. Over a real socket, with a client that plays the
official CLI."""

from __future__ import annotations

import base64
import time
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import user_message
from tests.e2e.test_official_cli import answer, clean, rig
from tests.image_samples import GIF, png

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
        image(other, "image/gif"),
        image(other, "image/gif"),
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
