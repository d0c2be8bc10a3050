"""The RPCs a client makes around a run, and the less common ways of sending
an append (binary data field, gzip bodies, JSON codec)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from google.protobuf import json_format

from cursor_byok.client.client import CursorClient, End, run_request
from cursor_byok.llm.types import TextContent, UserMessage
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.aux_rpcs import ModelEntry
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2, models_pb2, server_config_pb2
from tests.factories import assistant, stream_of
from tests.fakes import ScriptedLLM
from tests.transport.shared_fixtures import load_cursor_fixture

MODELS = [ModelEntry("claude-sonnet-4-6", 200_000, True), ModelEntry("gpt-5.1", 400_000)]


async def test_model_lists_and_server_config_answer_like_the_real_service(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(
        store, ScriptedLLM([]), models=lambda: MODELS, default_model=lambda: "gpt-5.1"
    )
    proto = {"content-type": "application/proto"}
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            post = client.post
            available = await post(
                "/aiserver.v1.AiService/AvailableModels", body=b"", headers=proto
            )
            usable = await post("/agent.v1.AgentService/GetUsableModels", body=b"", headers=proto)
            default = await post(
                "/agent.v1.AgentService/GetDefaultModelForCli", body=b"", headers=proto
            )
            config = await post(
                "/aiserver.v1.ServerConfigService/GetServerConfig", body=b"", headers=proto
            )
            connected = await post(
                "/aiserver.v1.NetworkService/IsConnected",
                body=b"{}",
                headers={"content-type": "application/json"},
            )
        finally:
            await client.close()
    store.close()
    models = models_pb2.AvailableModelsResponse.FromString(available.body)
    assert [m.name for m in models.models] == ["claude-sonnet-4-6", "gpt-5.1"]
    assert models.models[0].supports_thinking
    assert "200k context window" in models.models[0].tooltip_data.markdown_content
    ours = json_format.MessageToDict(models.models[0])
    real = load_cursor_fixture("available_models_response.json")["models"]
    real_fields = set().union(*(set(m) for m in real))
    assert set(ours) <= real_fields, set(ours) - real_fields
    assert [m.model_id for m in pb.GetUsableModelsResponse.FromString(usable.body).models] == [
        "claude-sonnet-4-6",
        "gpt-5.1",
    ]
    assert pb.GetDefaultModelForCliResponse.FromString(default.body).model.model_id == "gpt-5.1"
    server_config = server_config_pb2.GetServerConfigResponse.FromString(config.body)
    assert server_config.http2_config == server_config_pb2.HTTP2_CONFIG_FORCE_ALL_ENABLED
    assert connected.status == 200 and connected.json() == {}


async def test_binary_and_gzip_appends_and_a_gzip_runsse_body_work(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(assistant(TextContent("fine")))])
    service = build_service(store, llm)
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            stream = await client.open("r")
            request = bidi_pb2.BidiAppendRequest(
                data_binary=run_request("binary please").SerializeToString(),
                request_id=bidi_pb2.BidiRequestId(request_id="r"),
                append_seqno=0,
            )
            reply = await client.post(
                "/aiserver.v1.BidiService/BidiAppend",
                body=gzip.compress(request.SerializeToString()),
                headers={"content-type": "application/proto", "content-encoding": "gzip"},
            )
            assert reply.status == 200 and reply.body == b""
            end = await stream.until(lambda i: isinstance(i, End))
            assert isinstance(end, End) and end.error is None
        finally:
            await client.close()
    loaded = store.load("conv-1")
    store.close()
    assert loaded is not None
    first = loaded.state.messages[0]
    assert isinstance(first, UserMessage) and first.content == "binary please"
    assert stream.text() == "fine"


async def test_a_json_codec_append_takes_the_seqno_as_a_string(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    llm = ScriptedLLM([stream_of(assistant(TextContent("json ok")))])
    service = build_service(store, llm)
    async with serving(service) as url:
        client = CursorClient(url, codec="json")
        try:
            stream = await client.open("rj")
            body = {
                "requestId": {"requestId": "rj"},
                "appendSeqno": "0",
                "data": run_request("via json").SerializeToString().hex(),
            }
            reply = await client.post(
                "/aiserver.v1.BidiService/BidiAppend",
                body=json.dumps(body).encode(),
                headers={"content-type": "application/json"},
            )
            assert reply.status == 200 and reply.json() == {}
            end = await stream.until(lambda i: isinstance(i, End))
            assert isinstance(end, End) and end.error is None
            assert stream.content_type.startswith("application/connect+json")
        finally:
            await client.close()
    store.close()


async def test_name_agent_and_the_cli_model_calls_answer_under_both_services(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]), models=lambda: MODELS)
    as_json = {"content-type": "application/json"}
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            post = client.post
            question = json.dumps({"userMessage": "why does the build fail?"})
            titles = [
                await post(f"/{service_name}/NameAgent", headers=as_json, body=question.encode())
                for service_name in ("aiserver.v1.AiService", "agent.v1.AgentService")
            ]
            broken = await post(
                "/aiserver.v1.AiService/NameAgent", body=b"{not json", headers=as_json
            )
            defaults = [
                await post(f"/{service_name}/GetDefaultModelForCli", body=b"{}", headers=as_json)
                for service_name in ("aiserver.v1.AiService", "agent.v1.AgentService")
            ]
        finally:
            await client.close()
    store.close()
    assert [t.json() for t in titles] == [{"name": "Why does the build fail?"}] * 2
    assert broken.status == 200 and broken.json() == {"name": "New Agent"}
    # No default configured: the first model, so a fresh CLI install still finds one.
    assert [d.json()["model"]["modelId"] for d in defaults] == ["claude-sonnet-4-6"] * 2
