"""Secrets this installation makes for itself, one file each in the user's
data folder, readable by the user alone: the access token a loopback server
asks for where it cannot tell its own user's connections from others' (and
that this user's clients read from the file), and the password of the IDE
proxy (which `ide setup` writes into Cursor's settings).

Made on first use, never shared, never printed unless asked for.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

import platformdirs

from cursor_byok.config.secret import Secret
from cursor_byok.config.server import APP_NAME

ACCESS_TOKEN = "access-token"
PROXY_PASSWORD = "proxy-password"
PROXY_USER = "cursor-byok"
"""The user name in the proxy's credentials (the password is what counts)."""


class LocalSecretError(Exception):
    """A secret file that cannot be made, read, or is not private."""


def default_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME))


def secret_path(name: str, directory: Path | None = None) -> Path:
    return (directory or default_dir()) / name


def read_secret(name: str, directory: Path | None = None) -> Secret | None:
    """The secret if its file exists; LocalSecretError if it is not private
    or empty."""
    path = secret_path(name, directory)
    try:
        with path.open(encoding="utf-8") as file:
            mode = stat.S_IMODE(os.fstat(file.fileno()).st_mode)
            value = file.read().strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise LocalSecretError(f"cannot read {path}: {error}") from error
    if os.name == "posix" and mode & 0o077:
        raise LocalSecretError(
            f"{path} is readable by other users (mode {mode:o}); run 'chmod 600 {path}', "
            "or delete it to make a new one"
        )
    if not value:
        raise LocalSecretError(f"{path} is empty; delete it to make a new one")
    return Secret(value)


def ensure_secret(name: str, directory: Path | None = None) -> Secret:
    """The secret, made now (random, 256 bits) if its file does not exist."""
    found = read_secret(name, directory)
    if found is not None:
        return found
    path = secret_path(name, directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Written whole under another name (mkstemp: mode 0600), then linked
        # into place: a process starting at the same moment reads either no
        # file or the whole one, and the first link wins.
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(secrets.token_urlsafe(32) + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(partial, path)
        finally:
            os.unlink(partial)
    except OSError as error:
        raise LocalSecretError(f"cannot create {path}: {error}") from error
    made = read_secret(name, directory)
    if made is None:
        raise LocalSecretError(f"{path} vanished just after it was created")
    return made


def proxy_auth(directory: Path | None = None) -> str:
    """`user:password` of the IDE proxy, made on first use."""
    return f"{PROXY_USER}:{ensure_secret(PROXY_PASSWORD, directory).reveal()}"
