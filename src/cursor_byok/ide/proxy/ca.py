"""The proxy's certificate authority: one per installation, made on first use.

A CA key shared by every user lets anyone who has it read everyone's traffic,
so the key is generated here, in the user's config directory, readable by the
user alone, and never leaves this machine. mitmproxy's own certificate store
creates and later reuses it (`confdir`); we only choose the place, the name
shown in certificate stores, and the permissions.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from cursor_byok.config.settings import APP_NAME

BASENAME = "mitmproxy"
"""The file prefix mitmproxy's TLS addon reads from its confdir."""
CA_NAME = "cursor-byok local proxy CA"
KEY_SIZE = 2048


class CAError(Exception):
    """The CA cannot be created or is not private to the user."""


@dataclass(frozen=True, slots=True)
class CAFiles:
    directory: Path

    @property
    def certificate(self) -> Path:
        """The public certificate: what Cursor (or the system) must trust."""
        return self.directory / f"{BASENAME}-ca-cert.pem"

    @property
    def key(self) -> Path:
        """Private key and certificate together: never share this file."""
        return self.directory / f"{BASENAME}-ca.pem"


def default_ca_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / "proxy-ca"


def ensure_ca(directory: Path | None = None) -> tuple[CAFiles, bool]:
    """Returns the CA files, creating them if absent; True when created now."""
    from mitmproxy.certs import CertStore  # noqa: PLC0415 - heavy: on the proxy path only

    files = CAFiles(directory or default_ca_dir())
    created = not files.key.exists()
    try:
        files.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.name == "posix":
            files.directory.chmod(0o700)
        if created:
            CertStore.create_store(
                files.directory, BASENAME, KEY_SIZE, organization=APP_NAME, cn=CA_NAME
            )
    except OSError as error:
        raise CAError(f"cannot create the proxy CA in {files.directory}: {error}") from error
    _check_private(files.key)
    return files, created


def _check_private(key: Path) -> None:
    if os.name != "posix":
        return  # the user profile's ACLs protect it there
    mode = stat.S_IMODE(key.stat().st_mode)
    if mode & 0o077:
        raise CAError(
            f"the proxy CA key {key} is readable by others (mode {mode:o}); "
            f"run 'chmod 600 {key}' or delete the directory to make a new CA"
        )
