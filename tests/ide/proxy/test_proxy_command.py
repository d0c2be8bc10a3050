"""The real command: `cursor-byok proxy` as a process (server and proxy in one),
set up and checked with `ide setup` / `ide status`, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import signal
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cursor_byok.config.local_secret import proxy_auth
from cursor_byok.ide.proxy.ca import CAFiles, default_ca_dir
from cursor_byok.transport.http.http_server import free_port
from tests.e2e.test_serve import ROOT, clean_env, wait_for_port
from tests.ide.test_settings import run


async def test_proxy_command_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server_port, proxy_port, cursor_port = free_port(), free_port(), free_port()
    config = tmp_path / "config.toml"
    config.write_text(f'[server]\nport = {server_port}\ndatabase = "{tmp_path / "db.sqlite3"}"\n')
    home = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    for name, value in home.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("platform.system", lambda: "Linux")
    # Set up by an earlier version: the proxy, which now needs credentials, says what to do.
    cursor_settings = tmp_path / "config" / "Cursor" / "User" / "settings.json"
    cursor_settings.parent.mkdir(parents=True)
    cursor_settings.write_text(f'{{"http.proxy": "http://127.0.0.1:{proxy_port}"}}\n')
    command = [
        sys.executable,
        "-m",
        "cursor_byok",
        "--config",
        str(config),
        "proxy",
        "--port",
        str(proxy_port),
        "--intercept",
        "localhost",
    ]
    process = await asyncio.to_thread(
        subprocess.Popen,
        command,
        cwd=ROOT,
        env=clean_env(**home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        await asyncio.to_thread(wait_for_port, proxy_port, process)
        assert run("ide", "setup", "--proxy-url", f"http://127.0.0.1:{proxy_port}")[0] == 0
        # `localhost:cursor_port` stands for Cursor's host: the probe's path is
        # answered by cursor-byok, so nothing listens there and nothing leaves.
        code, out = await asyncio.to_thread(
            run, "ide", "status", "--probe-host", f"localhost:{cursor_port}"
        )
        assert code == 0, out
        assert "reaches cursor-byok (models: none configured yet)" in out
        counted = 'cursor_byok_proxy_flows_total{destination="cursor-byok"} 1.0'
        async with httpx2.AsyncClient() as client:
            for _ in range(100):
                metrics = (await client.get(f"http://127.0.0.1:{server_port}/metrics")).text
                if counted in metrics:
                    break
                await asyncio.sleep(0.05)
        assert counted in metrics
        # Any other local account reaches the proxy's port too: without the
        # credentials `ide setup` wrote for Cursor it gets no tunnel.
        tls = ssl.create_default_context(cafile=str(CAFiles(default_ca_dir()).certificate))
        models = f"https://localhost:{cursor_port}/agent.v1.AgentService/GetUsableModels"
        stranger = httpx2.Client(
            proxy=f"http://127.0.0.1:{proxy_port}", verify=tls, trust_env=False
        )
        with stranger, pytest.raises(httpx2.ProxyError, match="407"):
            stranger.get(models)
        # Cursor keeps its connections open: the proxy must stop cleanly anyway.
        proxy_url = f"http://{proxy_auth()}@127.0.0.1:{proxy_port}"
        keeper = httpx2.Client(proxy=proxy_url, verify=tls, trust_env=False)
        assert keeper.get(models).status_code == 405  # cursor-byok's answer: POST only
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.to_thread(process.communicate, timeout=30)
    keeper.close()
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "Created this installation's proxy CA" in stdout
    assert "proxy_flow route=cursor-byok method=POST host=localhost " in stderr
    assert "path=/agent.v1.AgentService/GetUsableModels status=200" in stderr
    assert "client connect" not in stderr  # mitmproxy's own chatter stays quiet
    assert "the proxy refused a client without its credentials (1 so far)" in stderr
    assert (
        f"Cursor's http.proxy (http://127.0.0.1:{proxy_port}) has no credentials, and the proxy "
        "now refuses clients without them: run 'cursor-byok ide setup' and restart Cursor"
    ) in stderr


def test_a_taken_proxy_port_stops_the_command_with_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[server]\nport = {free_port()}\ndatabase = "{tmp_path / "db.sqlite3"}"\n')
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "cursor_byok",
                "--config",
                str(config),
                "proxy",
                "--port",
                str(port),
            ],
            check=False,
            cwd=ROOT,
            env=clean_env(
                XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data")
            ),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1
    assert f"the proxy could not listen on 127.0.0.1:{port} (is the port in use?)" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_clear_text_server_off_this_machine_needs_an_explicit_flag(tmp_path: Path) -> None:
    """`--server http://` elsewhere would send the server's token readable
    over the network: refused unless said on purpose (the taken port shows
    that the check was passed: the proxy then fails to listen)."""
    home = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "d")}

    def proxy(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "cursor_byok", "proxy", *argv]
        return subprocess.run(
            command,
            cwd=ROOT,
            env=clean_env(**home),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    refused = proxy("--server", "http://10.9.8.7:8417")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "cursor-byok: --server http://10.9.8.7:8417: the server's access token would cross "
        "the network in clear text; use https://, or add --allow-cleartext if the network "
        "between is yours alone"
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for server in (["http://10.9.8.7:8417", "--allow-cleartext"], ["https://10.9.8.7"]):
            passed = proxy("--server", *server, "--port", port)
            assert passed.returncode == 1, passed.stderr
            assert "the proxy could not listen" in passed.stderr


def test_in_front_of_a_teams_server_the_proxy_sends_the_users_own_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--token-file`, else `CURSOR_AUTH_TOKEN` (as cursor-agent takes it),
    else the configured access token."""
    from cursor_byok.cli.proxy_command import _token_for  # noqa: PLC0415
    from cursor_byok.config.settings import load_config  # noqa: PLC0415

    config_file = tmp_path / "config.toml"
    config_file.write_text('[server]\naccess_token = "the-configured-token-1234"\n')
    config = load_config(config_file)
    token_file = tmp_path / "token"
    token_file.write_text("cbk_from_the_file\n")
    server = "https://team.example:8417"
    monkeypatch.setenv("CURSOR_AUTH_TOKEN", "cbk_from_the_environment")
    assert _token_for(server, config, str(token_file)) == "cbk_from_the_file"
    assert _token_for(server, config) == "cbk_from_the_environment"
    monkeypatch.delenv("CURSOR_AUTH_TOKEN")
    assert _token_for(server, config) == "the-configured-token-1234"
