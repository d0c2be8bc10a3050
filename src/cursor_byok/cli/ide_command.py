"""`cursor-byok ide setup | undo | status`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO, TypeVar

from cursor_byok.cli.base import EXIT_FAILED, EXIT_OK, fail
from cursor_byok.ide import PROBE_HOST
from cursor_byok.ide.proxy import DEFAULT_PROXY_PORT

DEFAULT_PROXY_URL = f"http://127.0.0.1:{DEFAULT_PROXY_PORT}"
SETTINGS_HELP = "Cursor's settings.json (default: the one of this user and platform)"

ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


def run_ide(args: argparse.Namespace, out: TextIO) -> int:
    from cursor_byok.config.local_secret import (  # noqa: PLC0415 (--help does not load it)
        LocalSecretError,
        proxy_auth,
    )
    from cursor_byok.ide.settings import (  # noqa: PLC0415
        SettingsError,
        cursor_settings_path,
        setup,
        undo,
    )

    settings = args.settings or cursor_settings_path()
    shown = f"{settings} (a link to {settings.resolve()})" if settings.is_symlink() else settings
    try:
        match args.ide_command:
            case "setup":
                # The proxy's own credentials: it refuses every client without them.
                changed = setup(settings, args.proxy_url, credentials=proxy_auth)
                done = "wrote the proxy settings to" if changed else "already set in"
                print(f"{done} {shown}; 'cursor-byok ide undo' puts the file back", file=out)
                print("Restart Cursor (quit it fully) for the settings to apply.", file=out)
            case "undo":
                undo(settings, force=args.force)
                print(f"restored {shown} as it was before 'ide setup'", file=out)
            case _:
                return _status(args, settings, out)
    except (SettingsError, LocalSecretError) as error:
        return fail(str(error), EXIT_FAILED)
    return EXIT_OK


def _status(args: argparse.Namespace, settings: Path, out: TextIO) -> int:
    from cursor_byok.config.local_secret import (  # noqa: PLC0415
        PROXY_PASSWORD,
        PROXY_USER,
        LocalSecretError,
        read_secret,
    )
    from cursor_byok.ide.proxy.ca import CAFiles, default_ca_dir  # noqa: PLC0415
    from cursor_byok.ide.status import (  # noqa: PLC0415
        Check,
        ca_check,
        check_settings,
        probe,
        render,
        routing_note,
        trust_note,
    )

    try:
        password = read_secret(PROXY_PASSWORD)
    except LocalSecretError as error:
        print(*render([Check(False, str(error))]), file=out)
        password = None
    auth = f"{PROXY_USER}:{password.reveal()}" if password else None
    checks, proxy_url = check_settings(settings, auth)
    ca = CAFiles(default_ca_dir())
    if (validity := ca_check(ca.certificate, args.probe_host)) is not None:
        checks.append(validity)
    checks.append(probe(proxy_url or DEFAULT_PROXY_URL, ca.certificate, args.probe_host))
    checks.append(trust_note(ca.certificate, os.environ))
    checks.append(routing_note())
    for line in render(checks):
        print(line, file=out)
    return EXIT_OK if all(check.ok is not False for check in checks) else EXIT_FAILED


def add_ide_parser(commands: argparse._SubParsersAction[ParserT]) -> None:
    ide = commands.add_parser(
        "ide",
        help="point the Cursor IDE at 'cursor-byok proxy' (setup, undo, status)",
        description=(
            "Write, undo or check the few Cursor user settings that send its traffic through "
            "'cursor-byok proxy'. Only Cursor's settings.json is touched, after a backup; "
            "never its state database or application files."
        ),
    )
    actions = ide.add_subparsers(dest="ide_command", metavar="ACTION", required=True)
    setup_ = actions.add_parser("setup", help="write the proxy settings (after a backup)")
    setup_.add_argument(
        "--proxy-url",
        default=DEFAULT_PROXY_URL,
        help=f"the proxy Cursor should use (default {DEFAULT_PROXY_URL}); its credentials "
        "are added",
    )
    setup_.add_argument("--settings", type=Path, metavar="FILE", help=SETTINGS_HELP)
    undo_ = actions.add_parser("undo", help="restore settings.json as it was before setup")
    undo_.add_argument("--settings", type=Path, metavar="FILE", help=SETTINGS_HELP)
    undo_.add_argument(
        "--force",
        action="store_true",
        help="restore even if the file changed after setup (loses those changes)",
    )
    status = actions.add_parser(
        "status", help="show the settings and test the path Cursor -> proxy -> cursor-byok"
    )
    status.add_argument("--settings", type=Path, metavar="FILE", help=SETTINGS_HELP)
    status.add_argument(
        "--probe-host",
        default=PROBE_HOST,
        metavar="HOST",
        help=f"Cursor host to request through the proxy (default {PROBE_HOST})",
    )
