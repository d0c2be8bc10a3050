"""The routing table: what is answered here, what goes to Cursor."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mitmproxy", reason="the proxy needs mitmproxy 12 (Python 3.12+)")

from cursor_byok.cli.main import main
from cursor_byok.ide.proxy.addon import Target
from cursor_byok.ide.proxy.ca import ensure_ca
from cursor_byok.ide.proxy.routes import (
    ANSWERED_PATHS,
    CURSOR_DOMAINS,
    Route,
    RoutingTable,
    check_domains,
)
from cursor_byok.ide.proxy.runner import (
    ProxyError,
    ProxySettings,
    ProxyThread,
    build_master,
    unhook_logging,
)
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service
from cursor_byok.transport.http.run_stream import RUN
from cursor_byok.transport.http.server import BIDI_APPEND, RUN_SSE
from tests.fakes import ScriptedLLM


@pytest.mark.parametrize(
    ("host", "port", "path", "route"),
    [
        ("api2.cursor.sh", 443, "/agent.v1.AgentService/RunSSE", Route.LOCAL),
        ("agentn.api5.cursor.sh", 443, "/aiserver.v1.BidiService/BidiAppend", Route.LOCAL),
        ("API2.Cursor.sh", 443, "/aiserver.v1.AiService/AvailableModels?x=1", Route.LOCAL),
        ("api2.cursor.sh", 443, "/aiserver.v1.AiService/GetUsableModels", Route.LOCAL),
        ("api2.cursor.sh", 443, "/aiserver.v1.AiService/GetDefaultModelForCli", Route.LOCAL),
        ("api2.cursor.sh", 443, "/aiserver.v1.AiService/NameAgent", Route.LOCAL),
        ("api2.cursor.sh", 443, "/agent.v1.AgentService/NameAgent", Route.LOCAL),
        ("api2.cursor.sh", 443, "/auth/full_stripe_profile", Route.CURSOR),
        ("api2.cursor.sh", 443, "/agent.v1.AgentService/Run", Route.LOCAL),
        ("api2.cursor.sh", 443, "/aiserver.v1.NetworkService/IsConnected", Route.CURSOR),
        ("cursor.sh", 443, "/agent.v1.AgentService/RunSSE", Route.LOCAL),
        ("cursor.sh.example.com", 443, "/agent.v1.AgentService/RunSSE", Route.OTHER),
        ("notcursor.sh", 443, "/agent.v1.AgentService/RunSSE", Route.OTHER),
        ("github.com", 443, "/agent.v1.AgentService/RunSSE", Route.OTHER),
    ],
)
def test_routes(host: str, port: int, path: str, route: Route) -> None:
    assert RoutingTable.of().route(host, port, path) is route


def test_every_answered_path_is_served_by_the_server(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "db.sqlite3")
    try:
        server = build_service(store, ScriptedLLM([])).server
        served = set(server.unary) | {RUN_SSE, BIDI_APPEND, RUN}
    finally:
        store.close()
    assert ANSWERED_PATHS - served == set()


def test_bad_patterns_and_urls_are_clear_errors() -> None:
    for bad in ("(", r"^a\.b$", "*.cursor.sh", "a..b", "-a.b", "127.0.0.1", "::1", "a.b:443"):
        with pytest.raises(ValueError, match=r"expected a domain name such as cursor\.sh"):
            check_domains([bad])
    assert check_domains(["Cursor.SH.", "localhost"]) == ["cursor.sh", "localhost"]
    for url in ("127.0.0.1:8417", "ftp://x", "http://127.0.0.1:8417/base"):
        with pytest.raises(ValueError, match="server URL"):
            Target.parse(url)
    assert Target.parse("http://127.0.0.1:8417") == Target("http", "127.0.0.1", 8417)
    assert Target.parse("https://byok.example") == Target("https", "byok.example", 443)


def test_without_mitmproxy_the_command_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    loaded = ("mitmproxy", "cursor_byok.ide.proxy.", "cursor_byok.cli.proxy_command")
    for name in [m for m in sys.modules if m.startswith(loaded)]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mitmproxy", None)  # makes `import mitmproxy` fail
    assert main(["proxy", "--ca-path"]) == 1
    assert "install 'cursor-byok[proxy]' on Python 3.12" in capsys.readouterr().err


def test_a_taken_port_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ca, _ = ensure_ca(tmp_path / "ca")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proxy = ProxyThread(ProxySettings("http://127.0.0.1:9", ca, listen_port=port))
        with pytest.raises(ProxyError, match=f"could not listen on 127.0.0.1:{port}"):
            proxy.start()
        proxy.stop()


def test_the_cli_loads_mitmproxy_only_for_the_proxy_command() -> None:
    """`cursor-byok --help` and every other command stay free of its import cost."""
    probe = (
        "import sys, cursor_byok.cli.main;"
        " print(any(m.startswith('mitmproxy') for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_bad_server_url_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = tmp_path / "empty.toml"
    config.write_text("")
    assert main(["--config", str(config), "proxy", "--server", "127.0.0.1:8417"]) == 2
    assert "--server: expected a server URL" in capsys.readouterr().err
    assert main(["--config", str(config), "proxy", "--listen-host", "0.0.0.0"]) == 2
    assert "refusing to run the proxy on 0.0.0.0" in capsys.readouterr().err
    assert main(["--config", str(config), "proxy", "--intercept", "("]) == 2
    assert "expected a domain name such as cursor.sh" in capsys.readouterr().err


async def test_only_our_addon_answers_and_no_connection_is_opened_early(tmp_path: Path) -> None:
    """mitmproxy's onboarding web app is off, and it connects upstream only
    for a flow that needs it (so the answered paths never touch Cursor)."""
    ca, _ = ensure_ca(tmp_path / "ca")
    master = build_master(ProxySettings("http://127.0.0.1:9", ca), None)
    unhook_logging(master)
    assert master.options.onboarding is False
    assert master.options.connection_strategy == "lazy"
    assert master.options.upstream_cert is False
    assert list(master.options.allow_hosts) == list(RoutingTable.of(CURSOR_DOMAINS).patterns())
