"""`ide setup` / `ide undo` on a temporary home: exact bytes back, idempotent,
refusals that change nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cursor_byok.cli.main import main
from cursor_byok.config.local_secret import proxy_auth
from cursor_byok.ide.jsonc import loads
from cursor_byok.ide.settings import cursor_settings_path, wanted_settings

USER_FILE = (
    b'{\n\t// my settings\n\t"editor.fontSize": 14, /* keep */\n'
    b'\t"http.proxy": "http://corp:3128",\n\t"files.exclude": {"**/.git": true,},\n}\n'
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own: Cursor's settings and our saved copy live under it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr("platform.system", lambda: "Linux")
    return tmp_path


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def settings_file(home: Path, content: bytes | None = USER_FILE) -> Path:
    path = home / "config" / "Cursor" / "User" / "settings.json"
    assert cursor_settings_path() == path
    if content is not None:
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
    return path


def test_setup_then_undo_restores_the_exact_bytes(home: Path) -> None:
    path = settings_file(home)
    path.chmod(0o740)
    code, out = run("ide", "setup")
    assert code == 0 and "wrote the proxy settings" in out
    written = path.read_bytes()
    document = loads(written.decode())
    auth = proxy_auth()  # made by setup, in this home's data folder
    for key, value in wanted_settings(f"http://{auth}@127.0.0.1:8418").items():
        assert document[key] == value
    assert document["editor.fontSize"] == 14
    assert b"// my settings" in written and b"/* keep */" in written
    # It now holds the proxy's password: the owner's bits kept, no one else's.
    assert path.stat().st_mode & 0o777 == 0o700
    path.chmod(0o744)  # opened up again since
    code, out = run("ide", "setup")  # idempotent: same bytes, backup kept
    assert code == 0 and "already set" in out
    assert path.read_bytes() == written
    assert path.stat().st_mode & 0o777 == 0o700
    code, _ = run("ide", "setup", "--proxy-url", "http://127.0.0.1:9999")
    assert code == 0 and loads(path.read_text())["http.proxy"] == f"http://{auth}@127.0.0.1:9999"
    code, out = run("ide", "undo")
    assert code == 0 and "restored" in out
    assert path.read_bytes() == USER_FILE  # the original, not an intermediate state
    assert path.stat().st_mode & 0o777 == 0o740  # and its mode
    code, _ = run("ide", "undo")
    assert code == 1  # nothing left to undo


def test_setup_creates_a_missing_file_and_undo_removes_it(home: Path) -> None:
    path = settings_file(home, content=None)
    assert run("ide", "setup")[0] == 0
    assert "cursor.general.disableHttp2" not in loads(path.read_text())  # HTTP/2 stays on
    assert run("ide", "undo")[0] == 0
    assert not path.exists()


def test_setup_over_an_earlier_one_turns_http2_back_on_and_undo_restores_the_bytes(
    home: Path,
) -> None:
    """An earlier `ide setup` turned Cursor's HTTP/2 off (the proxy could not
    carry `Run` then); setup now turns it back on, a user's own choice of it
    stays, and undo still puts back the file from before the first setup."""
    path = settings_file(home)
    assert run("ide", "setup")[0] == 0
    earlier = loads(path.read_text())
    earlier["cursor.general.disableHttp2"] = True  # as the earlier version wrote it
    path.write_text(json.dumps(earlier))
    assert run("ide", "setup")[0] == 0
    assert loads(path.read_text())["cursor.general.disableHttp2"] is False
    assert run("ide", "undo")[0] == 0
    assert path.read_bytes() == USER_FILE
    own = USER_FILE.replace(b"{\n", b'{\n\t"cursor.general.disableHttp2": true,\n', 1)
    path.write_bytes(own)  # the user's own choice, before any setup
    assert run("ide", "setup")[0] == 0
    assert run("ide", "setup")[0] == 0
    assert loads(path.read_text())["cursor.general.disableHttp2"] is True
    assert run("ide", "undo")[0] == 0
    assert path.read_bytes() == own


def test_an_unparseable_file_is_refused_and_left_alone(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = b'{\n  "a": 1,\n  "b": \n}\n'
    path = settings_file(home, broken)
    code, _ = run("ide", "setup")
    assert code == 1
    error = capsys.readouterr().err
    assert "cannot parse" in error and "line 4" in error and "nothing was changed" in error
    assert path.read_bytes() == broken
    assert not (home / "data").exists()  # no backup of a file we did not touch


def test_a_file_that_is_not_utf8_is_refused(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = settings_file(home, b'{"a": "\xff"}')
    assert run("ide", "setup")[0] == 1
    assert "not UTF-8" in capsys.readouterr().err
    assert path.read_bytes() == b'{"a": "\xff"}'


def test_undo_refuses_to_drop_later_edits_unless_forced(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(home)
    assert run("ide", "setup")[0] == 0
    edited = path.read_bytes().replace(b"14", b"16")
    path.write_bytes(edited)
    assert run("ide", "undo")[0] == 1
    assert "changed after" in capsys.readouterr().err
    assert path.read_bytes() == edited
    assert run("ide", "undo", "--force")[0] == 0
    assert path.read_bytes() == USER_FILE


def test_an_explicit_settings_path(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "portable" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(USER_FILE)
    assert run("ide", "setup", "--settings", str(path))[0] == 0
    assert loads(path.read_text())["http.proxy"] == f"http://{proxy_auth()}@127.0.0.1:8418"
    assert run("ide", "undo", "--settings", str(path))[0] == 0
    assert path.read_bytes() == USER_FILE


@pytest.mark.parametrize(
    ("system", "env", "expected"),
    [
        ("Linux", {}, "home/.config/Cursor/User/settings.json"),
        ("Linux", {"XDG_CONFIG_HOME": "/x"}, "/x/Cursor/User/settings.json"),
        ("Darwin", {}, "home/Library/Application Support/Cursor/User/settings.json"),
        ("Windows", {"APPDATA": "/r"}, "/r/Cursor/User/settings.json"),
        ("Windows", {}, "home/AppData/Roaming/Cursor/User/settings.json"),
    ],
)
def test_settings_path_per_platform(system: str, env: dict[str, str], expected: str) -> None:
    assert cursor_settings_path(system, env, Path("home")) == Path(expected)


@pytest.mark.parametrize(
    "url", ["127.0.0.1:8418", "socks5://127.0.0.1:1080", "http://", "http://h/p"]
)
def test_a_bad_proxy_url_is_refused_before_anything_is_written(
    home: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(home)
    assert run("ide", "setup", "--proxy-url", url)[0] == 1
    assert "expected a proxy URL like http://127.0.0.1:8418" in capsys.readouterr().err
    assert path.read_bytes() == USER_FILE
    assert not (home / "data").exists()


def test_a_symlinked_settings_file_is_written_through_and_undone(home: Path) -> None:
    """Dotfiles: Cursor's settings.json is a link to a file kept elsewhere.
    The file it points to is what changes, and what undo puts back; the link
    stays a link."""
    dotfiles = home / "dotfiles" / "cursor-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_bytes(USER_FILE)
    dotfiles.chmod(0o600)
    path = settings_file(home, content=None)
    path.parent.mkdir(parents=True)
    path.symlink_to(dotfiles)
    code, out = run("ide", "setup")
    assert code == 0 and f"wrote the proxy settings to {path} (a link to {dotfiles})" in out
    assert path.is_symlink() and path.readlink() == dotfiles
    assert loads(dotfiles.read_text())["http.proxy"] == f"http://{proxy_auth()}@127.0.0.1:8418"
    assert dotfiles.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in dotfiles.parent.iterdir()] == [dotfiles.name]  # no temp file left
    code, out = run("ide", "undo")
    assert code == 0 and "restored" in out
    assert path.is_symlink() and path.readlink() == dotfiles
    assert dotfiles.read_bytes() == USER_FILE
    assert dotfiles.stat().st_mode & 0o777 == 0o600


def test_a_link_to_a_missing_file_stays_a_link(home: Path) -> None:
    dotfiles = home / "dotfiles" / "cursor-settings.json"
    dotfiles.parent.mkdir()
    path = settings_file(home, content=None)
    path.parent.mkdir(parents=True)
    path.symlink_to(dotfiles)
    assert run("ide", "setup")[0] == 0
    assert path.is_symlink() and loads(dotfiles.read_text())["http.proxySupport"] == "override"
    assert run("ide", "undo")[0] == 0
    assert path.is_symlink() and not dotfiles.exists()


def test_the_saved_copy_is_as_private_as_the_original(home: Path) -> None:
    path = settings_file(home)
    path.chmod(0o600)
    assert run("ide", "setup")[0] == 0
    [backup] = (home / "data").rglob("*.backup")
    assert backup.read_bytes() == USER_FILE
    assert backup.stat().st_mode & 0o777 == 0o600
    assert path.stat().st_mode & 0o777 == 0o600
