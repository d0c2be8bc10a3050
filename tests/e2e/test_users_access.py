"""A user's token on one server (SQLite, one process): the models they may
use are all they see and all they can start a turn with; `users revoke` and
`users rotate`, run as commands against the database while the server runs,
stop the old token at its next request; a token in the URL is refused."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from cursor_byok.cli.main import main
from cursor_byok.client.client import CursorClient, End, kind, run_request
from cursor_byok.llm.types import TextContent
from cursor_byok.transport.http.aux_rpcs import ModelEntry
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2, models_pb2
from tests.e2e.users import ADMIN_TOKEN, add_member, shown, team, to_the_end
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM

MODELS = [ModelEntry("model-a", 100_000), ModelEntry("model-b", 200_000)]
PROTO = {"content-type": "application/proto"}


def answers(count: int) -> ScriptedLLM:
    return ScriptedLLM([stream_of(assistant(TextContent(f"answer {n}"))) for n in range(count)])


async def model_names(client: CursorClient) -> tuple[list[str], list[str], str]:
    available = await client.post("/aiserver.v1.AiService/AvailableModels", b"", PROTO)
    usable = await client.post("/agent.v1.AgentService/GetUsableModels", b"", PROTO)
    default = await client.post("/agent.v1.AgentService/GetDefaultModelForCli", b"", PROTO)
    assert available.status == usable.status == default.status == 200
    return (
        [m.name for m in models_pb2.AvailableModelsResponse.FromString(available.body).models],
        [m.model_id for m in pb.GetUsableModelsResponse.FromString(usable.body).models],
        pb.GetDefaultModelForCliResponse.FromString(default.body).model.model_id,
    )


async def test_a_user_sees_and_uses_only_the_models_allowed_to_them(tmp_path: Path) -> None:
    options = {"models": lambda: MODELS, "default_model": lambda: "model-b"}
    async with team(tmp_path, answers(2), **options) as t:
        carl = add_member(t.store, t.url, "carl", models=("model-a",))
        try:
            assert await model_names(carl.client) == (["model-a"], ["model-a"], "model-a")
            assert await model_names(t.ana.client) == (
                ["model-a", "model-b"],
                ["model-a", "model-b"],
                "model-b",
            )
            refused = await carl.client.open("req-1")
            message = run_request("hi", "conv-1", model="model-b")
            await carl.client.append("req-1", 0, message)
            (end,) = [item for item in await to_the_end(refused) if isinstance(item, End)]
            served = await carl.client.open("req-2")
            await carl.client.append("req-2", 0, run_request("hi", "conv-2", model="model-a"))
            served_items = shown(await to_the_end(served))
        finally:
            await carl.client.close()
        assert [model for model, _ in t.llm.requests] == ["model-a"]
    assert end.error is not None and end.error["code"] == "permission_denied"
    text = str(end.error["message"])
    assert "'model-b' is not allowed for user carl" in text and "allowed: model-a" in text
    details = end.error["details"]
    assert isinstance(details, list) and len(details) == 1
    detail: dict[str, str] = details[0]
    assert detail["type"] == "aiserver.v1.ErrorDetails"
    card = error_details_pb2.ErrorDetails.FromString(_unpadded(detail["value"]))
    assert card.details.title == "Model not allowed" and "model-a" in card.details.detail
    assert served_items[-1] == ("end", None) and "turn_ended" in served_items


def _unpadded(value: object) -> bytes:
    text = str(value)
    return base64.b64decode(text + "=" * (-len(text) % 4))


async def test_revoke_and_rotate_stop_the_old_token_at_its_next_request(tmp_path: Path) -> None:
    async with team(tmp_path, answers(2)) as t:
        database = str(tmp_path / "team.sqlite3")
        first = await t.bob.client.open("req-1")
        await t.bob.client.append("req-1", 0, run_request("hi", "conv-1"))
        assert shown(await to_the_end(first))[-1] == ("end", None)
        assert main(["users", "revoke", "bob", "--database", database], io.StringIO()) == 0
        refused = await t.bob.client.post("/aiserver.v1.AiService/AvailableModels", b"", PROTO)
        assert refused.status == 401 and "missing or wrong access token" in refused.text
        out = io.StringIO()
        assert main(["users", "rotate", "bob", "--database", database], out) == 0
        new_token = out.getvalue().strip()
        again = await t.bob.client.post("/aiserver.v1.AiService/AvailableModels", b"", PROTO)
        assert again.status == 401  # the old token stays dead
        renewed = CursorClient(t.url, token=new_token)
        try:
            stream = await renewed.open("req-2")
            await renewed.append("req-2", 0, run_request("hello again", "conv-1"))
            assert shown(await to_the_end(stream))[-1] == ("end", None)
        finally:
            await renewed.close()
        loaded = t.store.load(t.key(t.bob, "conv-1"))
        assert loaded is not None and len(loaded.state.messages) == 4  # still Bob's conversation
        users = {u.name: u for u in t.store.users()}
        assert users["bob"].last_used_at_ms is not None and users["ana"].last_used_at_ms is None


async def test_a_token_in_the_url_is_refused(tmp_path: Path) -> None:
    async with team(tmp_path, answers(0)) as t:
        anonymous = CursorClient(t.url)
        try:
            for query in (f"?access_token={t.ana.token}", f"?token={ADMIN_TOKEN}"):
                path = "/aiserver.v1.AiService/AvailableModels" + query
                refused = await anonymous.post(path, b"", PROTO)
                assert refused.status == 401 and "Authorization header" in refused.text
                both = await t.ana.client.post(path, b"", PROTO)
                assert both.status == 401
        finally:
            await anonymous.close()


async def test_the_administrators_token_is_still_served(tmp_path: Path) -> None:
    async with team(tmp_path, answers(1)) as t:
        admin = CursorClient(t.url, token=ADMIN_TOKEN)
        try:
            stream = await admin.open("req-1")
            await admin.append("req-1", 0, run_request("hi", "conv-1"))
            items = await to_the_end(stream)
        finally:
            await admin.close()
        assert "turn_ended" in [kind(item) for item in items]
        loaded = t.store.load("conv-1")  # the administrator's ids are stored as they come
        assert loaded is not None and len(loaded.state.messages) == 2
