"""`server.database` values: a PostgreSQL URL is read as libpq reads it, so
whatever libpq takes for the password is what is hidden, in its form as
written and percent-decoded, and a URL libpq refuses is refused before use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from cursor_byok.store.database import PostgresURL, parse_database
from tests.cli.test_cli import cli
from tests.cli.test_cli_operator import one_line_error

ROOT = Path(__file__).resolve().parents[2]

URLS = [
    # libpq takes a password up to the first '@': '#', '?' and ':' are its own
    ("postgresql://byok:pa#ss@db.internal:5433/byok", "pa#ss", "pa#ss", "db.internal:5433/byok"),
    ("postgresql://byok:pa?ss@db/byok?sslmode=require", "pa?ss", "pa?ss", "sslmode=require"),
    ("postgres://byok:a:b#c?d@/byok?host=/run/pg", "a:b#c?d", "a:b#c?d", "host=/run/pg"),
    ("postgresql://byok:p%23w%3Fx@db/byok", "p%23w%3Fx", "p#w?x", "@db/byok"),
    ("postgresql://byok@/byok?host=/run/pg&password=q#w?e", "q#w?e", "q#w?e", "host=/run/pg"),
    ("postgresql://byok@db/byok?password=p%26q&sslmode=require", "p%26q", "p&q", "sslmode="),
    ("postgresql://byok:one1@db/byok?password=two2", "one1", "two2", "@db/byok"),
]


@pytest.mark.parametrize(("url", "written", "password", "kept"), URLS)
def test_the_password_libpq_reads_is_hidden_as_written_and_decoded(
    url: str, written: str, password: str, kept: str
) -> None:
    database = parse_database(url)
    assert isinstance(database, PostgresURL)
    assert conninfo_to_dict(url)["password"] == password  # the case is libpq's own
    assert written in database.secrets and password in database.secrets
    shown = str(database) + repr(database)
    for secret in database.secrets:
        assert secret not in shown
    assert kept in str(database) and "***" in str(database)
    assert database.password == password


def test_a_url_without_a_password_is_shown_whole() -> None:
    url = "postgresql://byok@/byok?host=/run/pg&sslmode=disable"
    database = parse_database(url)
    assert isinstance(database, PostgresURL)
    assert str(database) == url and database.secrets == () and database.password is None


def test_a_url_libpq_refuses_is_refused_without_its_password() -> None:
    with pytest.raises(ValueError, match="not a PostgreSQL URL libpq can read") as refused:
        parse_database("postgresql://byok:se%zzcret@db/byok")
    assert "se%zzcret" not in str(refused.value) and "cret" not in str(refused.value)


def test_without_psycopg_a_url_is_hidden_whole(tmp_path: Path) -> None:
    """The SQLite install has no psycopg: a PostgreSQL URL is then shown by
    its scheme alone, since nothing can say where libpq's password ends."""
    blocker = tmp_path / "psycopg.py"
    blocker.write_text("raise ImportError('no psycopg here')\n")
    probe = (
        "from cursor_byok.store.database import parse_database\n"
        "db = parse_database('postgresql://byok:pa#ss@db/byok')\n"
        "print(str(db)); print(repr(db)); print(db.secrets)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT / 'src'}"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    shown, representation, secrets = done.stdout.splitlines()
    assert shown == "postgresql://***"
    assert "pa#ss" not in representation and "ss@db" not in representation
    assert "'pa#ss'" in secrets  # the log filter still cuts what libpq's rules give


def test_a_sqlite_path_never_loads_psycopg() -> None:
    """psycopg is the `postgresql` extra: parsing a file path, as every
    SQLite installation does, must not need it or pay for its import."""
    probe = (
        "import sys\n"
        "from cursor_byok.config.server import parse_location\n"
        "parse_location('~/state.sqlite3')\n"
        "print(any(m.startswith('psycopg') for m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("command", ["conversations", "serve"])
def test_an_unreachable_database_never_prints_a_password_with_hash_or_question_mark(
    command: str, tmp_path: Path
) -> None:
    url = f"postgresql://postgres:hun#ter?22@/db?host={tmp_path}/nowhere"
    line = one_line_error(cli(command, "--database", url), 1, "cannot use PostgreSQL")
    assert "hun#ter?22" not in line and "ter?22" not in line and "postgres:***@" in line


def test_a_password_too_short_to_redact_is_refused(tmp_path: Path) -> None:
    url = f"postgresql://postgres:pw@/db?host={tmp_path}"
    line = one_line_error(cli("conversations", "--database", url), 2, "--database")
    assert "too short" in line and "pw@" not in line
