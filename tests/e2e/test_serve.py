"""The real command: `cursor-byok serve` as a process, and the whole stack
(router, real adapter, runner, store, transport) against a loopback provider
replaying a recorded stream."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cursor_byok.client.client import CursorClient, End, kind, run_request
from cursor_byok.client.run_client import H2Client
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.http.http_server import free_port
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY")
        and k not in ("OPENAI_BASE_URL", "CURSOR_BYOK_CONFIG", "CURSOR_BYOK_TOKEN")
    }
    env["XDG_CONFIG_HOME"] = extra.pop("XDG_CONFIG_HOME", "/nonexistent")
    return {**env, **extra}


def wait_for_port(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"serve exited early: {process.stderr.read() if process.stderr else ''}"
            )
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("serve did not open its port")


@pytest.fixture
def serve_without_keys(tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen[str]]]:
    port = free_port()
    database = tmp_path / "data" / "state.sqlite3"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cursor_byok",
            "serve",
            "--port",
            str(port),
            "--database",
            str(database),
        ],
        cwd=ROOT,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}", database, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)  # waits, and closes the pipes


PLANTED_KEY = "sk-ant-planted-0123456789abcdef"
"""A provider key serve is given in its environment."""


@pytest.fixture
def serve_with_a_key(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cursor_byok",
            "serve",
            "--port",
            str(port),
            "--database",
            str(tmp_path / "state.sqlite3"),
        ],
        cwd=ROOT,
        env=clean_env(ANTHROPIC_API_KEY=PLANTED_KEY),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        yield port, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)


async def test_serve_cuts_its_provider_keys_out_of_every_log_line(
    serve_with_a_key: tuple[int, subprocess.Popen[str]],
) -> None:
    """Whatever a log line quotes (here a request id a client made of the
    key), the key serve holds is not written to its log."""
    port, process = serve_with_a_key
    client = CursorClient(f"http://127.0.0.1:{port}")
    try:
        junk = await client.append_raw(f"r-{PLANTED_KEY}", 0, b"\xff not a message")
    finally:
        await client.close()
    assert junk.status == 200
    process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.to_thread(process.communicate, timeout=20)
    assert process.returncode == 0
    assert PLANTED_KEY not in stderr
    assert "request r-***: append 0 does not decode; ignored" in stderr  # the line was written


async def http_status(port: int, host_header: str) -> int:
    """The status serve answers a GET /healthz with this `Host`."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET /healthz HTTP/1.1\r\nHost: {host_header}\r\n\r\n".encode())
        await writer.drain()
        return int((await asyncio.wait_for(reader.readline(), 10)).split()[1])
    finally:
        writer.close()


async def test_serve_on_loopback_answers_only_loopback_host_names(
    serve_with_a_key: tuple[int, subprocess.Popen[str]],
) -> None:
    """A web page that rebinds its own DNS name to 127.0.0.1 reaches the
    port, but sends its own name: refused. Loopback names are served."""
    port, _process = serve_with_a_key
    assert await http_status(port, "evil.example") == 421
    assert await http_status(port, f"evil.example:{port}") == 421
    assert await http_status(port, f"127.0.0.1:{port}") == 200
    assert await http_status(port, f"localhost:{port}") == 200


async def test_serve_with_no_key_answers_a_turn_with_what_to_set(
    serve_without_keys: tuple[str, Path, subprocess.Popen[str]],
) -> None:
    url, database, process = serve_without_keys
    client = CursorClient(url)
    try:
        stream = await client.open("r-1")
        await client.append("r-1", 0, run_request("hello"))
        end = await stream.until(lambda item: isinstance(item, End), within=20)
    finally:
        await client.close()
    assert isinstance(end, End) and end.error is None  # a normal end, not a crash
    text = stream.text()
    assert "ANTHROPIC_API_KEY" in text and "OPENAI_API_KEY" in text
    assert "turn_ended" in [kind(i) for i in stream.received]
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0


async def test_serve_with_its_defaults_answers_run_over_h2c(
    serve_without_keys: tuple[str, Path, subprocess.Popen[str]],
) -> None:
    url, _database, process = serve_without_keys
    client = await H2Client.connect(url)
    try:
        stream = await client.open("proto")
        await stream.send(run_request("hello"))
        end = await stream.until(lambda item: isinstance(item, End), within=20)
    finally:
        await client.close()
    assert isinstance(end, End) and end.error is None
    assert stream.content_type == "application/connect+proto"
    assert "ANTHROPIC_API_KEY" in stream.text()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0


def test_serve_refuses_a_tls_certificate_it_cannot_read(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    missing = tmp_path / "nope.pem"
    config.write_text(f'[server]\ntls_cert = "{missing}"\ntls_key = "{missing}"\n')
    done = subprocess.run(
        [sys.executable, "-m", "cursor_byok", "--config", str(config), "serve"],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert f"cannot use the TLS certificate {missing}" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


async def test_shutdown_counts_open_streams_not_sessions(
    serve_without_keys: tuple[str, Path, subprocess.Popen[str]],
) -> None:
    url, _database, process = serve_without_keys
    client = CursorClient(url)
    try:
        stream = await client.open("r-open")  # a reader, waiting for its run request
        for n in range(3):  # sessions without a reader: appends ahead of seqno 0
            await client.append(f"r-buffered-{n}", 3, run_request("later"))
        process.send_signal(signal.SIGTERM)
        end = await stream.until(lambda item: isinstance(item, End), within=20)
    finally:
        await client.close()
    assert isinstance(end, End) and end.error is not None and end.error["code"] == "unavailable"
    _, stderr = process.communicate(timeout=20)
    assert "shutting down: ended 1 open stream with a retryable error" in stderr


async def test_shutdown_does_not_wait_for_idle_connections_of_either_protocol(
    serve_without_keys: tuple[str, Path, subprocess.Popen[str]],
) -> None:
    """An idle HTTP/1.1 keep-alive connection and an HTTP/2 one with no
    stream open are closed at once: SIGTERM exits well inside the grace
    period (10 s)."""
    url, _database, process = serve_without_keys
    port = int(url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await writer.drain()
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200 ")
    idle_h2 = await H2Client.connect(url)
    try:
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.to_thread(process.communicate, timeout=20)
        took = time.monotonic() - started
    finally:
        await idle_h2.close()
        writer.close()
    assert process.returncode == 0 and took < 5, (took, stderr)


def test_serve_refuses_a_public_address_without_a_token(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cursor_byok",
            "serve",
            "--host",
            "0.0.0.0",
            "--database",
            str(tmp_path / "db.sqlite3"),
        ],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "access token" in done.stderr


async def test_the_whole_stack_against_a_recorded_anthropic_stream(tmp_path: Path) -> None:
    replies = [  # read first: without ../shared the test skips before a socket is open
        Reply(fixture_bytes("anthropic/thinking-then-tool-use.sse")),
        Reply(fixture_bytes("anthropic/thinking-then-tool-use-followup.sse")),
    ]
    provider = LoopbackServer(replies)
    await provider.start()
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        f"""
default_model = "claude"
[providers.anthropic]
api = "anthropic"
base_url = "{provider.base_url}"
api_key = "sk-ant-test-planted-key"
[models.claude]
provider = "anthropic"
model = "claude-haiku-4-5"
"""
    )
    config = load_config(config_file, env={})
    router = Router(config, env={})
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, router, models=router.entries, default_model=lambda: "claude")
    try:
        async with serving(service) as url:
            client = CursorClient(url)
            try:
                stream = await client.open("r-1")
                await client.append("r-1", 0, run_request("What version?", model="claude"))
                end = await stream.until(lambda item: isinstance(item, End), within=20)
            finally:
                await client.close()
    finally:
        await router.aclose()
        await provider.stop()
    assert isinstance(end, End) and end.error is None
    kinds = [kind(i) for i in stream.received]
    assert "thinking_delta" in kinds and "tool_call_completed" not in kinds
    text = stream.text()
    assert "0.32a0" in text
    # The model asked for a tool we do not offer: it got an error result, not a hang.
    second = provider.received[1].json()
    blocks = [b for m in second["messages"] if isinstance(m["content"], list) for b in m["content"]]
    results = [b for b in blocks if b.get("type") == "tool_result"]
    assert results and results[0]["is_error"] is True
    assert "Unknown tool" in str(results[0]["content"])
    assert provider.received[0].headers["x-api-key"] == "sk-ant-test-planted-key"
    loaded = store.load("conv-1")
    assert loaded is not None and len(loaded.state.messages) == 4
    store.close()
    turn = next(i for i in stream.received if kind(i) == "turn_ended")
    assert isinstance(turn, pb.AgentServerMessage)
    assert turn.interaction_update.turn_ended.output_tokens > 0
