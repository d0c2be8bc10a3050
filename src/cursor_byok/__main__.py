"""Command-line entry point (`cursor-byok`, `python -m cursor_byok`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cursor-byok",
        description="Serve the Cursor agent protocol with your own LLM provider keys.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("serve", help="run the server (not available yet in this version)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        print(
            "cursor-byok: the server is not built yet; this version ships the core loop "
            "and its tests only.",
            file=sys.stderr,
        )
        return 2
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
