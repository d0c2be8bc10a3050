"""Graceful shutdown and restart with a real `serve` process: SIGTERM ends
the open stream with a retryable error and exits 0; the restarted server
resumes the model call from the stored request, byte for byte, and a client
that resumes gets the rest of the turn."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from cursor_byok.client.client import CursorClient, End, kind, run_request
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.llm.loopback import LoopbackServer, Reply, recording

RECORDED = recording("anthropic/text-usage.sse")  # tests/recordings
CUT = RECORDED.index(b"event: message_delta")  # the answer so far, without its end


def start_serve(config: Path, database: Path | PostgresURL, port: int) -> subprocess.Popen[str]:
    """`cursor-byok serve` in a process of its own, once it accepts connections."""
    where = database.url if isinstance(database, PostgresURL) else str(database)
    command = [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--database", where],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_port(port, process)
    return process


def resume_request() -> pb.AgentClientMessage:
    message = run_request("", conversation_id="conv-1", model="claude")
    message.run_request.action.ClearField("user_message_action")
    message.run_request.action.resume_action.SetInParent()
    return message


async def test_sigterm_mid_turn_then_restart_resumes_the_same_call(tmp_path: Path) -> None:
    provider = LoopbackServer()
    await provider.start()
    provider.replies = [Reply(RECORDED[:CUT], hang=True), Reply(RECORDED)]
    config = tmp_path / "config.toml"
    config.write_text(
        f'default_model = "claude"\n[providers.a]\napi = "anthropic"\n'
        f'base_url = "{provider.base_url}"\napi_key = "sk-ant-test"\n'
        f'[models.claude]\nprovider = "a"\nmodel = "claude-haiku-4-5"\n'
    )
    database = tmp_path / "state.sqlite3"
    port = free_port()
    first = start_serve(config, database, port)
    try:
        client = CursorClient(f"http://127.0.0.1:{port}")
        stream = await client.open("r-1")
        await client.append("r-1", 0, run_request("hello", model="claude"))
        await stream.until(lambda i: kind(i) == "text_delta", within=20)
        first.send_signal(signal.SIGTERM)
        end = await stream.until(lambda i: isinstance(i, End), within=20)
        await client.close()
        _, stderr = first.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    assert isinstance(end, End) and end.error is not None
    assert end.error["code"] == "unavailable" and "shutting down" in str(end.error["message"])
    assert first.returncode == 0, stderr
    interrupted = SQLiteStore(database)
    loaded = interrupted.load("conv-1")
    assert loaded is not None and loaded.state.status.value == "waiting_llm"
    assert len(loaded.state.messages) == 1  # the half-streamed answer never entered history
    interrupted.close()

    second = start_serve(config, database, port)
    try:
        client = CursorClient(f"http://127.0.0.1:{port}")
        stream = await client.open("r-2")
        await client.append("r-2", 0, resume_request())
        end = await stream.until(lambda i: isinstance(i, End), within=30)
        await client.close()
    finally:
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=30)
        await provider.stop()
    assert isinstance(end, End) and end.error is None
    assert "turn_ended" in [kind(i) for i in stream.received]
    assert len(provider.received) == 2
    a, b = provider.received[0].body, provider.received[1].body
    assert a == b  # the same call, same bytes
    store = SQLiteStore(database)
    loaded = store.load("conv-1")
    store.close()
    assert loaded is not None and loaded.state.status.value == "final"
    assert [type(m).__name__ for m in loaded.state.messages] == ["UserMessage", "AssistantMessage"]
