"""What the command line needs before it knows which command runs: exit
codes, the one-line failure, and the defaults `--help` shows.

Kept free of the server, the store, the loop and asyncio, so that
`cursor-byok --help` (and a usage error) loads almost nothing; each command
imports its own modules when it runs.
"""

from __future__ import annotations

import sys

from cursor_byok.cli.terminal import Printer

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_PORT_IN_USE = 0, 1, 2, 3, 4

CHECK_TIMEOUT_S = 30.0
"""How long `cursor-byok check` waits for each provider by default."""


def fail(message: str, code: int, printer: Printer | None = None) -> int:
    """Print the one-line error (red on a terminal) and return its exit code."""
    (printer or Printer(sys.stderr)).line(("cursor-byok: ", None), (message, "red"))
    return code
