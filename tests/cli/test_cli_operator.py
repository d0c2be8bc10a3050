"""An operator's first hour with the command: every mistake is one line
naming the bad value with a documented exit code; colour and a live line
on a terminal only."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cursor_byok.store.sqlite import SQLiteStore
from tests.cli.test_cli import ROOT, cli
from tests.factories import fresh

COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-8]|9[0-7])[0-9;]*m")


def one_line_error(done: subprocess.CompletedProcess[str], code: int, *named: str) -> str:
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stderr
    for value in named:
        assert value in lines[0]
    return lines[0]


def test_a_port_out_of_range_is_one_line_naming_it() -> None:
    line = one_line_error(cli("serve", "--port", "99999"), 2, "'99999'", "--port")
    assert line.startswith("cursor-byok: serve: argument --port: expected a port from 1 to 65535")


def test_a_database_url_is_refused_by_its_scheme(tmp_path: Path) -> None:
    url = "mysql://localhost/cursor"
    line = one_line_error(cli("serve", "--database", url), 2, url, "mysql://")
    assert "SQLite file or a postgresql:// URL" in line


def test_a_database_that_is_not_sqlite_is_named(tmp_path: Path) -> None:
    text_file = tmp_path / "passwd"
    text_file.write_text("root:x:0:0:root:/root:/bin/bash\n" * 50)
    for command in ("serve", "conversations"):
        line = one_line_error(cli(command, "--database", str(text_file)), 2, str(text_file))
        assert "not a" in line or "cannot read" in line
    assert text_file.read_text().startswith("root:x")  # left as it was


def test_a_database_folder_that_cannot_be_created_is_blamed_not_the_address(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "file" / "state.sqlite3"
    line = one_line_error(cli("serve", "--database", str(bad)), 2, str(tmp_path / "file"))
    assert "cannot create the database folder" in line and "127.0.0.1" not in line


def test_a_port_in_use_exits_4_before_saying_listening(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = cli("serve", "--port", port, "--database", str(tmp_path / "db.sqlite3"))
    line = one_line_error(done, 4, port, "already in use")
    assert line.startswith("cursor-byok: port")
    assert "4 the port to serve on is in use" in " ".join(cli("serve", "--help").stdout.split())


def test_conversations_says_when_there_are_none(tmp_path: Path) -> None:
    database = tmp_path / "state.sqlite3"
    created = cli("serve", "--port", "99999", "--database", str(database))
    assert created.returncode == 2 and not database.exists()  # refused before creating it
    SQLiteStore(database).close()
    done = cli("conversations", "--database", str(database))
    assert done.returncode == 0
    assert done.stdout == f"No conversations in {database} yet.\n"


def test_help_does_not_import_rich() -> None:
    probe = (
        "import sys\nfrom cursor_byok.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('rich loaded' if 'rich' in sys.modules else 'rich not loaded')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().endswith("rich not loaded")


def in_terminal(*args: str, env: dict[str, str], stop_when: str | None = None) -> str:
    """Run the command with a pseudo-terminal as stdout and stderr; send it
    SIGTERM once `stop_when` has been shown."""
    main, child = pty.openpty()
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    clean = {k: v for k, v in clean.items() if k not in ("NO_COLOR", "CURSOR_BYOK_CONFIG")}
    process = subprocess.Popen(
        [sys.executable, "-m", "cursor_byok", *args],
        cwd=ROOT,
        stdin=child,
        stdout=child,
        stderr=child,
        env={**clean, "TERM": "xterm-256color", "COLUMNS": "120", **env},
    )
    os.close(child)
    output = b""
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the child closed its side
                    break
                if not chunk:
                    break
                output += chunk
                if stop_when is not None and stop_when.encode() in output:
                    process.send_signal(signal.SIGTERM)
                    stop_when = None
            elif process.poll() is not None:
                break
    finally:
        process.wait(timeout=30)
        os.close(main)
    return output.decode("utf-8", "replace")


def test_models_are_coloured_on_a_terminal_and_plain_otherwise() -> None:
    key = {"ANTHROPIC_API_KEY": "sk-ant-x"}
    coloured = in_terminal("models", env=key)
    assert "claude-sonnet-4-6" in coloured and COLOUR.search(coloured)
    no_colour = in_terminal("models", env={**key, "NO_COLOR": "1"})
    assert "claude-sonnet-4-6" in no_colour and not COLOUR.search(no_colour)
    piped = cli("models", env=key)
    assert "claude-sonnet-4-6" in piped.stdout and "\x1b" not in piped.stdout


@pytest.mark.timeout(60)
def test_check_shows_a_live_line_while_it_waits_on_a_terminal(tmp_path: Path) -> None:
    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        config = tmp_path / "c.toml"
        config.write_text(
            f'[providers.p]\napi = "anthropic"\nbase_url = "http://127.0.0.1:{silent.getsockname()[1]}"\n'
            'api_key = "sk-k"\n[models.m]\nprovider = "p"\n'
        )
        shown = in_terminal("--config", str(config), "check", "--timeout", "1.5", env={})
        piped = cli("--config", str(config), "check", "--timeout", "1.5")
    assert "waiting for 1 provider(s), up to 1.5 s" in shown
    assert "1 of 1 provider failed" in shown and COLOUR.search(shown)
    assert "waiting for" not in piped.stdout and "\x1b" not in piped.stdout


def test_stored_ids_with_control_characters_are_shown_escaped(tmp_path: Path) -> None:
    """Ids are validated where they enter; a database written before that
    still cannot put escape codes on the terminal or forge a line."""
    database = tmp_path / "state.sqlite3"
    store = SQLiteStore(database)
    store.commit_input("in-1", 0, fresh("c1\x1b[2J\nforged 0 messages").committed, None)
    store.close()
    listing = cli("conversations", "--database", str(database))
    assert listing.returncode == 0 and "\x1b" not in listing.stdout
    assert listing.stdout.count("\n") == 1 and "c1\\x1b[2J\\nforged" in listing.stdout


def test_serve_keeps_a_live_status_line_on_a_terminal(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    database = tmp_path / "db.sqlite3"
    shown = in_terminal(
        "serve",
        "--port",
        str(port),
        "--database",
        str(database),
        env={},
        stop_when="0 open streams",
    )
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)  # the words, without the styling
    assert f"serving on http://127.0.0.1:{port} · 0 open streams" in text
    assert "listening on" in text and COLOUR.search(shown)
    assert "default: None" not in text  # a name, or "none", never Python's None
    assert "shutting down: ended 0 open streams" in text


def test_serve_cuts_the_password_of_a_database_named_on_the_command_line() -> None:
    """`--database` may name another database than the configuration's: its
    password is cut from the log lines all the same."""
    script = (
        "import io, logging\n"
        "from cursor_byok.cli.serve import _log_to\n"
        "from cursor_byok.cli.terminal import Printer\n"
        "from cursor_byok.config.settings import load_config\n"
        "from cursor_byok.store.database import PostgresURL\n"
        "database = PostgresURL('postgresql://byok:cl%3Apw-planted@db/byok')\n"
        "_log_to(Printer(io.StringIO()), load_config(None, env={}), database)\n"
        "logging.getLogger('cursor_byok').error('libpq said: bad password cl:pw-planted')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "libpq said: bad password ***" in done.stderr and "planted" not in done.stderr
