"""`ide setup` and `ide undo`: the few user settings that send Cursor through
the proxy, written after a backup that `undo` puts back byte for byte.

A settings.json that is a link (to a dotfiles checkout) stays a link: the file
it points to is rewritten, and the backup keeps that file's permissions."""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import platformdirs

from cursor_byok.config.files import replace_whole
from cursor_byok.config.settings import APP_NAME
from cursor_byok.ide.jsonc import JsoncError, loads, set_values


class SettingsError(Exception):
    """The settings file cannot be changed safely; nothing was written."""


def with_credentials(proxy_url: str, auth: str) -> str:
    """The URL with `auth` (`user:password`) as its user info, in place of
    any it had: the proxy takes its own credentials and no others."""
    parts = urlsplit(proxy_url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{auth}@{host}"))


def redacted(url: str) -> str:
    """The URL as it may be shown: its password replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{userinfo.partition(':')[0]}:***@{host}"))


def wanted_settings(proxy_url: str) -> dict[str, Any]:
    """The keys `ide setup` writes, and nothing else."""
    return {
        "http.proxy": proxy_url,
        "http.proxySupport": "override",
        # Trust certificates from the system store (where the proxy's CA goes).
        "http.experimental.systemCertificatesV2": True,
    }


HTTP2_OFF = "cursor.general.disableHttp2"
"""Set to true by `setup` while the proxy could not carry Cursor's HTTP/2
`Run` stream; it now can, and Cursor's HTTP/2 stays as the user has it."""


def _earlier_http2_off(saved: Saved, text: str) -> dict[str, Any]:
    """HTTP/2 turned back on (the setting false) where an earlier `setup`
    turned it off: the file has it true, its copy from before the first
    `setup` did not. Nothing if the user had it so."""
    if saved.read() is None or _value(text, HTTP2_OFF) is not True:
        return {}
    own = _read(saved.backup)
    try:
        theirs = _value(own.decode("utf-8"), HTTP2_OFF) if own else None
    except (UnicodeDecodeError, JsoncError):
        return {}
    return {} if theirs is True else {HTTP2_OFF: False}


def _value(text: str, key: str) -> Any:
    """A top-level key's value in a settings text (None if none)."""
    document = loads(text) if text.strip() else {}
    return document.get(key) if isinstance(document, dict) else None


def cursor_settings_path(
    system: str | None = None, env: Mapping[str, str] | None = None, home: Path | None = None
) -> Path:
    """Cursor's user `settings.json` on this platform (Cursor is a VS Code fork)."""
    system = system or platform.system()
    env = os.environ if env is None else env
    home = home or Path.home()
    if system == "Windows":
        base = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    elif system == "Darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return base / "Cursor" / "User" / "settings.json"


def default_state_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "ide"


@dataclass(frozen=True, slots=True)
class Saved:
    """What `setup` saved about one settings file, for `undo`."""

    manifest: Path
    backup: Path

    @classmethod
    def of(cls, settings: Path, state_dir: Path) -> Saved:
        """Keyed on the path as given (made absolute, links not followed):
        a link the first `setup` would have replaced must not change the key."""
        name = hashlib.sha256(os.path.abspath(settings).encode()).hexdigest()[:16]
        return cls(state_dir / f"{name}.json", state_dir / f"{name}.backup")

    def read(self) -> dict[str, Any] | None:
        if not self.manifest.exists():
            return None
        data: dict[str, Any] = json.loads(self.manifest.read_text(encoding="utf-8"))
        return data


def _digest(data: bytes | None) -> str:
    return "absent" if data is None else hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SettingsError(f"cannot read {path}: {error.strerror}") from error


def _mode(path: Path) -> int | None:
    """The permission bits of the file `path` names (through links), if any."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return None


def _write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Whole or not at all: a crash mid-write must not leave half a file.
    Written beside the file a link points to, then renamed over it, so a
    link (a dotfiles checkout) stays a link and its target changes. The file
    gets `mode`, else the mode it had; the copy is never more readable."""
    target = path.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_whole(target, data, mode if mode is not None else _mode(target))


def setup(
    settings: Path,
    proxy_url: str,
    state_dir: Path | None = None,
    credentials: Callable[[], str] | None = None,
) -> bool:
    """Writes the proxy settings; returns False when they were already set.
    `credentials` gives the proxy's `user:password`, asked for (and so made)
    only once the file is known to take the settings."""
    parts = urlsplit(proxy_url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        shown = redacted(proxy_url)
        raise SettingsError(f"expected a proxy URL like http://127.0.0.1:8418, got {shown!r}")
    original = _read(settings)
    saved = Saved.of(settings, state_dir or default_state_dir())
    try:
        text = (original or b"").decode("utf-8")
        again = _earlier_http2_off(saved, text)
        updated = set_values(text, {**wanted_settings(proxy_url), **again}).encode("utf-8")
        if credentials is not None:
            proxy_url = with_credentials(proxy_url, credentials())
            parts = urlsplit(proxy_url)
            updated = set_values(text, {**wanted_settings(proxy_url), **again}).encode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsError(f"{settings} is not UTF-8 text ({error.reason})") from error
    except JsoncError as error:
        raise SettingsError(
            f"cannot parse {settings}: {error}. Fix it in Cursor (Preferences: Open User "
            "Settings (JSON)) and run 'cursor-byok ide setup' again; nothing was changed"
        ) from error
    manifest = saved.read()
    if manifest is None:  # the first setup keeps the user's own file
        saved.manifest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if original is not None:
            _write(saved.backup, original, _mode(settings))
        manifest = {"settings": str(settings), "existed": original is not None}
    # With the proxy's password in it, the file is the user's alone: its own
    # bits kept, others' taken away (also when the text is already there).
    mode = _mode(settings)
    private = parts.password is not None and mode is not None and os.name == "posix"
    if updated == original and not (private and mode is not None and mode & 0o077):
        changed = False
    else:
        _write(settings, updated, mode & ~0o077 if private and mode is not None else None)
        changed = updated != original
    manifest["written"] = _digest(updated)
    _write(saved.manifest, json.dumps(manifest, indent=2).encode())
    return changed


def undo(settings: Path, state_dir: Path | None = None, force: bool = False) -> None:
    """Puts back the file as it was before the first `setup`."""
    saved = Saved.of(settings, state_dir or default_state_dir())
    manifest = saved.read()
    if manifest is None:
        raise SettingsError(f"nothing to undo: 'cursor-byok ide setup' has not changed {settings}")
    if _digest(_read(settings)) != manifest["written"] and not force:
        raise SettingsError(
            f"{settings} changed after 'cursor-byok ide setup' wrote it. Undoing would lose "
            "those changes: remove the proxy keys by hand, or run 'cursor-byok ide undo "
            "--force' to restore the saved copy anyway"
        )
    if manifest["existed"]:
        _write(settings, saved.backup.read_bytes(), _mode(saved.backup))
        saved.backup.unlink()
    else:
        settings.resolve().unlink(missing_ok=True)  # a link stays, as it was
    saved.manifest.unlink()
