"""`cursor-byok check` against loopback providers replaying recorded bodies:
one answers, one refuses the key, one has no key, one never finishes."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cursor_byok.cli.check import CHECK_MAX_OUTPUT, check_all, render
from cursor_byok.config.settings import load_config
from tests.llm.loopback import LoopbackServer, Reply, fixture_bytes

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "sk-ant-planted-good-key-1234"
BAD_KEY = "sk-ant-planted-bad-key-5678"


def ok_reply() -> Reply:
    return Reply(fixture_bytes("anthropic/text-usage.sse"))


def auth_error() -> Reply:
    return Reply(
        fixture_bytes("anthropic/error-401-auth.response.json"),
        status=401,
        content_type="application/json",
    )


@pytest.fixture
async def providers() -> AsyncIterator[tuple[LoopbackServer, LoopbackServer]]:
    good, bad = LoopbackServer(), LoopbackServer()
    await good.start()
    await bad.start()
    yield good, bad
    await good.stop()
    await bad.stop()


def write_config(path: Path, good: LoopbackServer, bad: LoopbackServer) -> Path:
    path.write_text(
        f"""
default_model = "claude"
[providers.main]
api = "anthropic"
base_url = "{good.base_url}"
api_key = "{GOOD_KEY}"
[providers.spare]
api = "anthropic"
base_url = "{bad.base_url}"
api_key = "{BAD_KEY}"
[models.claude]
provider = "main"
model = "claude-haiku-4-5"
thinking = "high"
thinking_budget = 4096
[models.backup]
provider = "spare"
model = "claude-sonnet-4-6"
"""
    )
    return path


async def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The real command as a process; awaited so the loopback servers keep serving."""
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name in ("OPENAI_BASE_URL", "CURSOR_BYOK_CONFIG"):
        clean.pop(name, None)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cursor_byok",
        *args,
        cwd=ROOT,
        env={**clean, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_check_reports_latency_and_the_exact_error_and_exits_1(
    providers: tuple[LoopbackServer, LoopbackServer], tmp_path: Path
) -> None:
    good, bad = providers
    good.replies = [ok_reply()]
    bad.replies = [auth_error()]
    config = write_config(tmp_path / "config.toml", good, bad)
    code, out, err = await cli("--config", str(config), "check")
    assert code == 1, out + err
    lines = out.splitlines()
    main = next(line for line in lines if line.startswith("main "))
    assert "claude-haiku-4-5" in main and " ok " in main
    assert "first event" in main and "total" in main and "'Hello'" in main
    spare = next(line for line in lines if line.startswith("spare "))
    assert "claude-sonnet-4-6" in spare
    assert "FAILED  HTTP 401: invalid x-api-key" in spare
    assert lines[-1] == "1 of 2 providers failed"
    assert "planted" not in out + err
    # The request was the tiny one, sent with the provider's key by the real adapter.
    sent = good.received[0]
    assert sent.path == "/v1/messages" and sent.headers["x-api-key"] == GOOD_KEY
    body = sent.json()
    assert body["max_tokens"] == CHECK_MAX_OUTPUT and "thinking" not in body
    assert len(body["messages"]) == 1
    assert bad.received[0].headers["x-api-key"] == BAD_KEY


async def test_check_exits_0_when_every_provider_answers(
    providers: tuple[LoopbackServer, LoopbackServer], tmp_path: Path
) -> None:
    good, bad = providers
    good.replies = [ok_reply()]
    bad.replies = [ok_reply()]
    config = write_config(tmp_path / "config.toml", good, bad)
    code, out, _ = await cli("--config", str(config), "check")
    assert code == 0, out
    assert out.splitlines()[-1] == "2 providers answered"


async def test_a_missing_key_names_the_variable_and_fails(
    providers: tuple[LoopbackServer, LoopbackServer], tmp_path: Path
) -> None:
    good, _ = providers
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        f"""
[providers.main]
api = "anthropic"
base_url = "{good.base_url}"
api_key_env = "CHECK_TEST_ANTHROPIC_KEY"
[models.claude]
provider = "main"
model = "claude-haiku-4-5"
"""
    )
    results = await check_all(load_config(config_file, env={}), env={})
    assert [r.ok for r in results] == [False]
    assert "no API key: set CHECK_TEST_ANTHROPIC_KEY" in results[0].detail
    assert good.received == []  # nothing was sent without a key
    good.replies = [ok_reply()]
    results = await check_all(
        load_config(config_file, env={}), env={"CHECK_TEST_ANTHROPIC_KEY": GOOD_KEY}
    )
    assert [r.ok for r in results] == [True]
    assert good.received[0].headers["x-api-key"] == GOOD_KEY


async def test_a_provider_that_never_finishes_times_out(
    providers: tuple[LoopbackServer, LoopbackServer], tmp_path: Path
) -> None:
    good, bad = providers
    good.replies = [ok_reply()]
    head = fixture_bytes("anthropic/text-usage.sse").split(b"\n\n")[0] + b"\n\n"
    bad.replies = [Reply(head, hang=True)]
    config = load_config(write_config(tmp_path / "config.toml", good, bad), env={})
    results = await check_all(config, env={}, timeout=0.5)
    assert [r.ok for r in results] == [True, False]
    assert results[1].detail == "no answer within 0.5 s"
    lines = render(results)
    assert lines[-1] == "1 of 2 providers failed"


async def test_an_error_that_echoes_the_key_is_scrubbed(
    providers: tuple[LoopbackServer, LoopbackServer], tmp_path: Path
) -> None:
    good, bad = providers
    good.replies = [ok_reply()]
    echo = b'{"type":"error","error":{"type":"authentication_error","message":"bad key ' + (
        BAD_KEY.encode() + b'"}}'
    )
    bad.replies = [Reply(echo, status=401, content_type="application/json")]
    config = load_config(write_config(tmp_path / "config.toml", good, bad), env={})
    results = await check_all(config, env={})
    assert results[1].detail == "HTTP 401: bad key ***"
    assert BAD_KEY not in "\n".join(render(results))


async def test_a_bad_configuration_exits_2(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[providers.x]\napi = "nope"\nbase_url = "http://127.0.0.1:9"\n')
    code, _, err = await cli("--config", str(config), "check")
    assert code == 2
    assert "providers.x.api" in err


async def test_no_providers_at_all_fails_with_what_to_set(tmp_path: Path) -> None:
    code, out, _ = await cli("check", env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert code == 1
    assert "ANTHROPIC_API_KEY" in out


async def test_help_explains_the_command() -> None:
    code, out, _ = await cli("check", "--help")
    assert code == 0
    assert "every configured provider" in " ".join(out.split())
    assert "--timeout" in out
