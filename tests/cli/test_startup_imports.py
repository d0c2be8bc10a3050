"""`cursor-byok --help` and every command's start-up pay only for the modules
that command uses: importing the CLI must not load the server stack, protobuf,
the HTTP client, asyncio, the loop or the store. Checked through `sys.modules`
in a fresh interpreter (the speed itself is bench/startup.py's job)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "google.protobuf",
    "hypercorn",
    "httpx2",
    "aiohttp",
    "cursor_byok.transport.http.server",
    # the help text needs none of these either
    "asyncio",
    "sqlite3",
    "cursor_byok.loop",
    "cursor_byok.llm",
    "cursor_byok.store.base",
)

PROBE = """
import contextlib, io, json, sys
import cursor_byok.cli.main as cli
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    cli.main(["--help"])
print(json.dumps(sorted(name for name in sys.modules if name.startswith(tuple({heavy!r})))))
"""


def loaded_after(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_the_cli_and_printing_help_loads_no_server_stack() -> None:
    assert loaded_after(PROBE.format(heavy=HEAVY)) == []


def test_the_probe_sees_a_heavy_module_when_one_is_loaded() -> None:
    """The check above can fail: a command that does load the server is seen."""
    code = "import cursor_byok.config.routing\n" + PROBE.format(heavy=HEAVY)
    assert "google.protobuf" in loaded_after(code)
