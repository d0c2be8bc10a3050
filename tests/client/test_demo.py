"""`cursor-byok demo`: a whole tool-using turn with no key and no network.

The real command runs as a process with every key variable removed; the
in-process tests show that the demo's verdict can fail."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from cursor_byok.client import demo
from cursor_byok.client.demo import run_demo
from cursor_byok.client.replay_provider import ReplayProvider, Reply
from cursor_byok.transport.sessions import kv_answers

ROOT = Path(__file__).resolve().parents[2]


def keyless_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY")
        and k not in ("OPENAI_BASE_URL", "CURSOR_BYOK_CONFIG", "CURSOR_BYOK_TOKEN")
    }
    return {**env, "XDG_CONFIG_HOME": "/nonexistent", **extra}


def test_the_demo_command_runs_a_tool_using_turn_without_keys() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cursor_byok", "demo", "--pace", "0"],
        cwd=ROOT,
        env=keyless_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("thinking") and "I will read it" in line for line in lines)
    assert 'tool call    read {"path": "NOTES.md"}' in lines
    assert "client runs  read NOTES.md" in lines
    assert "             | - Version 1.4 ships on Friday." in lines  # the tool's result
    assert "tool done    read: success" in lines
    answer = (
        "According to NOTES.md, version 1.4 ships on Friday, once the last flaky test is fixed."
    )
    assert f"assistant    {answer}" in lines
    assert any(line.startswith("turn ended   input 1,274 tokens, output 95") for line in lines)
    assert "stored       4 messages in SQLite: User, Assistant, ToolResult, Assistant" in lines
    assert lines[-2].startswith("demo ok") and "cursor-byok check" in lines[-1]
    assert "Traceback" not in done.stderr


def test_the_demo_ignores_a_broken_user_configuration(tmp_path: Path) -> None:
    broken = tmp_path / "config.toml"
    broken.write_text("this is not toml = =\n")
    done = subprocess.run(
        [sys.executable, "-m", "cursor_byok", "demo", "--pace", "0"],
        cwd=ROOT,
        env=keyless_env(CURSOR_BYOK_CONFIG=str(broken)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


async def test_the_demo_fails_when_the_model_would_not_see_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The client reads a different file content; the recorded answer no longer
    # fits, so the stand-in provider refuses and the demo must say it failed.
    monkeypatch.setattr(demo, "NOTES", "# Project notes\n\nNothing planned.\n")
    out = io.StringIO()
    assert await run_demo(out, pace_s=0) is False
    text = out.getvalue()
    assert "Nothing planned." in text
    assert "demo FAILED" in text and "the tool result does not hold NOTES.md" in text
    assert "demo ok" not in text


async def post_json(url: str, document: object) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.post(url, json=document) as got:
        return got.status, await got.text()


async def test_the_replay_provider_answers_an_unexpected_request_with_an_error() -> None:
    replies = [Reply(b"event: ping\ndata: {}\n\n", expect=lambda _: "wrong")]
    async with ReplayProvider(replies) as fake:
        refused = await post_json(f"{fake.base_url}/v1/messages", {"messages": []})
        exhausted = await post_json(f"{fake.base_url}/v1/messages", {})
    assert refused[0] == 400
    assert json.loads(refused[1])["error"]["message"] == "demo: wrong"
    assert exhausted[0] == 400
    assert "no recorded reply is left" in exhausted[1]
    assert fake.requests == [{"messages": []}, {}]


def test_demo_help_says_what_it_does() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cursor_byok", "demo", "--help"],
        cwd=ROOT,
        env=keyless_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    flat = " ".join(done.stdout.split())
    assert "no key and no configuration" in flat.lower()
    assert "read_file" in flat


def test_the_main_help_points_new_users_at_demo_and_check() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cursor_byok", "--help"],
        cwd=ROOT,
        env=keyless_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    flat = " ".join(done.stdout.split())
    assert "'cursor-byok demo' shows a whole turn without any key" in flat
    assert "'cursor-byok check' tests your keys" in flat


async def test_the_demo_client_answers_the_kv_requests_so_its_turn_ends_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server ends a turn's stream once its KV requests are answered, or
    after its bound: the demo plays Cursor's part and answers them, so it
    never waits for the bound (made far longer than the demo here)."""
    monkeypatch.setattr(kv_answers, "KV_ANSWER_WAIT_S", 600.0)
    out = io.StringIO()
    async with asyncio.timeout(60):
        assert await run_demo(out, pace_s=0) is True, out.getvalue()
