"""Metrics and logs after real turns; keys never leak; the access token."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cursor_byok.client.client import (
    CursorClient,
    End,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.types import TextContent
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant, stream_of, tool_call
from tests.fakes import ScriptedLLM
from tests.llm.loopback import LoopbackServer, Reply

ROOT = Path(__file__).resolve().parents[2]
PLANTED = "sk-ant-PLANTED-0123456789abcdef"
PLANTED_HEADER = "org-PLANTED-header-value"


async def test_metrics_and_log_lines_describe_the_turn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cursor_byok")
    first = stream_of(assistant(TextContent("Reading."), tool_call("call_1", "a.txt")))
    llm = ScriptedLLM([first, stream_of(assistant(TextContent("It says hi.")))])
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, llm)
    async with serving(service) as url:
        client = CursorClient(url)
        try:
            stream = await client.open("r")
            await client.append("r", 0, run_request("read a.txt"))
            item = await stream.until(lambda i: kind(i) == "exec")
            assert isinstance(item, pb.AgentServerMessage)
            request = item.exec_server_message
            success = pb.ReadResult(success=pb.ReadSuccess(path="a.txt", content="hi"))
            await client.append("r", 1, exec_reply(request, read_result=success))
            await client.append("r", 2, stream_close(request.id))
            await stream.until(lambda i: isinstance(i, End))
            await client.append_raw("r", 3, b"\xff")  # late and undecodable
            metrics = (await client.get("/metrics")).text
        finally:
            await client.close()
    store.close()
    assert (
        'cursor_byok_requests_total{path="/agent.v1.AgentService/RunSSE",status="200"} 1.0'
        in metrics
    )
    assert 'path="/aiserver.v1.BidiService/BidiAppend",status="200"} 4.0' in metrics
    assert 'cursor_byok_llm_calls_total{model="test-model",outcome="done"} 2.0' in metrics
    assert 'cursor_byok_llm_tokens_total{kind="input",model="test-model"} 20.0' in metrics
    assert 'cursor_byok_llm_ttft_seconds_count{model="test-model"} 2.0' in metrics
    assert "cursor_byok_llm_inter_token_seconds_bucket" in metrics
    assert 'cursor_byok_llm_cache_hit_ratio{model="test-model"} 0.0' in metrics
    assert 'cursor_byok_turns_total{outcome="final"} 1.0' in metrics
    assert "cursor_byok_active_streams 0.0" in metrics
    assert 'cursor_byok_ignored_client_messages{reason="undecodable"} 1.0' in metrics
    lines = [r.getMessage() for r in caplog.records]
    calls = [line for line in lines if line.startswith("llm_call ")]
    assert len(calls) == 2 and all("outcome=done" in line for line in calls)
    assert "conversation=conv-1" in calls[0] and "ttft_ms=" in calls[0] and "input=10" in calls[0]
    turns = [line for line in lines if line.startswith("turn ")]
    assert len(turns) == 1 and "outcome=final" in turns[0] and "model_calls=2" in turns[0]


async def test_a_planted_key_appears_in_no_log_stream_database_or_show_output(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    provider = LoopbackServer()
    await provider.start()
    said = f"invalid x-api-key: {PLANTED} (organization {PLANTED_HEADER})"
    echo = {"error": {"type": "authentication_error", "message": said}}
    provider.replies = [
        Reply(json.dumps(echo).encode(), status=401, content_type="application/json")
    ]
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        f'[providers.a]\napi = "anthropic"\nbase_url = "{provider.base_url}"\n'
        f'api_key = "{PLANTED}"\nheaders = {{ X-Org = "{PLANTED_HEADER}" }}\n'
        '[models.m]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
    )
    router = Router(load_config(config_file, env={}), env={})
    database = tmp_path / "db.sqlite3"
    store = SQLiteStore(database, synchronous="NORMAL")
    service = build_service(store, router, models=router.entries)
    try:
        async with serving(service) as url:
            client = CursorClient(url)
            try:
                stream = await client.open("r")
                await client.append("r", 0, run_request("hi", model="m"))
                end = await stream.until(lambda i: isinstance(i, End))
            finally:
                await client.close()
    finally:
        await router.aclose()
        await provider.stop()
    store.close()
    assert provider.received[0].headers["x-api-key"] == PLANTED  # it was really used
    assert provider.received[0].headers["x-org"] == PLANTED_HEADER
    assert isinstance(end, End) and end.error is not None
    assert "invalid x-api-key: *** (organization ***)" in json.dumps(end.error)
    everything = json.dumps(end.error) + caplog.text
    for path in database.parent.glob("db.sqlite3*"):
        everything += path.read_bytes().decode("latin-1")
    shown = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "cursor_byok", "show", "conv-1", "--database", str(database)],
        cwd=ROOT,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0 and "invalid x-api-key: ***" in shown.stdout
    everything += shown.stdout + shown.stderr
    assert PLANTED not in everything and PLANTED_HEADER not in everything


async def test_an_access_token_is_required_when_configured(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, ScriptedLLM([]), access_token="s3cret-token")
    path = "/aiserver.v1.NetworkService/IsConnected"
    headers = {"content-type": "application/proto"}
    async with serving(service) as url:
        anonymous = CursorClient(url)
        wrong = CursorClient(url, token="s3cret-tokem")
        right = CursorClient(url, token="s3cret-token")
        try:
            denied = await anonymous.post(path, b"", headers)
            assert denied.status == 401 and denied.json()["code"] == "unauthenticated"
            assert (await wrong.post(path, b"", headers)).status == 401
            assert (await right.post(path, b"", headers)).status == 200
            stream_denied = await anonymous.post(
                "/agent.v1.AgentService/RunSSE",
                body=b"",
                headers={"content-type": "application/connect+proto"},
            )
            assert stream_denied.status == 401
        finally:
            for client in (anonymous, wrong, right):
                await client.close()
    store.close()
