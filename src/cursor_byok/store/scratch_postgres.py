"""A throwaway PostgreSQL server for the tests and benchmarks: `initdb` and
`pg_ctl` from the machine's PostgreSQL in a temporary directory, listening on
a unix socket there and on no TCP port, so it clashes with nothing else on
the machine. Nothing in the server imports this module.

`fsync=off`: the tests kill our processes, never the database's host, so what
they check does not depend on PostgreSQL flushing to disk, and they run
faster. PostgreSQL refuses to run as root; as root, the server runs as the
`postgres` user (or `nobody`).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg

from cursor_byok.store.database import PostgresURL

MISSING = (
    "PostgreSQL's initdb and pg_ctl were found neither on PATH nor under /usr/lib/postgresql/*/bin"
)


def find_binaries() -> Path | None:
    """The directory holding initdb and pg_ctl: PATH first, then Debian's layout
    (newest version)."""
    initdb = shutil.which("initdb")
    if initdb is not None and shutil.which("pg_ctl") is not None:
        return Path(initdb).resolve().parent

    def version(path: str) -> int:
        found = re.search(r"/postgresql/(\d+)/", path)
        return int(found.group(1)) if found else 0

    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    return Path(candidates[-1]).parent if candidates else None


def _server_user() -> str | None:
    """Whom to run the server as: None for ourselves, unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as")


class PostgresServer:
    """One running server; `new_database()` gives each test a database of its own."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.user = _server_user()
        # Not under pytest's temp root: it is private to us, and the server's
        # user must reach its data directory and socket.
        self.root = Path(tempfile.mkdtemp(prefix="cursor-byok-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._names = itertools.count()
        if self.user is not None:
            shutil.chown(self.root, self.user)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-locale",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = f"-c listen_addresses='' -k {self.root} -c fsync=off -c full_page_writes=off"
        try:
            self._pg_ctl("-o", options, "start")
        except RuntimeError as error:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{error}\nserver log:\n{log}") from error

    def _run(self, program: str, *args: str) -> None:
        extra: dict[str, Any] = {}
        if self.user is not None:
            extra = {"user": self.user, "group": pwd.getpwnam(self.user).pw_gid, "extra_groups": []}
        done = subprocess.run(
            [str(self.binaries / program), *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            **extra,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr}{done.stdout}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.root}"

    def admin(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url(), autocommit=True)

    def new_database(self) -> PostgresURL:
        """An empty database (file copy of template0: a few tens of ms)."""
        name = f"test_{next(self._names)}"
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 STRATEGY FILE_COPY")
        return PostgresURL(self.url(name))

    def restart(self) -> None:
        """Stop (cutting every connection) and start again with the same settings."""
        self._pg_ctl("-m", "fast", "restart")

    def _pg_ctl(self, *args: str) -> None:
        """pg_ctl on our data directory and log, waiting up to a minute."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", *args)

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
