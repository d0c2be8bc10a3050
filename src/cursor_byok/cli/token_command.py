"""`cursor-byok token`: the access token this installation made for itself.

A loopback server with no token configured asks for this one where it
cannot tell its own user's connections from others' (macOS, Windows, TLS on
loopback); this user's clients read it from a file only they can read.
`cursor-agent` takes it as `CURSOR_AUTH_TOKEN`.
"""

from __future__ import annotations

import argparse
from typing import TextIO, TypeVar

from cursor_byok.cli.base import EXIT_FAILED, EXIT_OK, fail

ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


def add_token_parser(commands: argparse._SubParsersAction[ParserT]) -> None:
    commands.add_parser(
        "token",
        help="print this installation's local access token (made on first use)",
        description=(
            "Print the access token a server on 127.0.0.1 asks this machine's clients for "
            "when none is configured and it cannot tell your connections from other users' "
            "(macOS, Windows, TLS on loopback; on Linux it answers your user only and needs "
            "none). It lives in your data folder, readable by you alone; this command, the "
            "proxy and 'ide setup' read it from there."
        ),
        epilog='Example: CURSOR_AUTH_TOKEN="$(cursor-byok token)" cursor-agent '
        "-e http://127.0.0.1:8417",
    )


def run_token(out: TextIO) -> int:
    from cursor_byok.config.local_secret import (  # noqa: PLC0415
        ACCESS_TOKEN,
        LocalSecretError,
        ensure_secret,
    )

    try:
        print(ensure_secret(ACCESS_TOKEN).reveal(), file=out)
    except LocalSecretError as error:
        return fail(str(error), EXIT_FAILED)
    return EXIT_OK
