"""The `cursor-byok` command.

Exit codes scripts can rely on: 0 success, 1 the work failed, 2 bad usage
or configuration, 3 the thing asked for does not exist, 4 the port to
serve on is in use. Every error is one line that names the bad value.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from cursor_byok.cli.base import (
    CHECK_TIMEOUT_S,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    fail,
)
from cursor_byok.cli.conversations_command import list_conversations, show_conversation
from cursor_byok.cli.ide_command import add_ide_parser, run_ide
from cursor_byok.cli.proxy_arguments import add_proxy_parser
from cursor_byok.cli.terminal import Printer
from cursor_byok.cli.token_command import add_token_parser, run_token
from cursor_byok.cli.usage_command import add_usage_parser, run_usage
from cursor_byok.cli.users_command import add_users_parser, run_users
from cursor_byok.config.reader import ConfigError
from cursor_byok.config.server import DEFAULT_HOST, DEFAULT_PORT, parse_location
from cursor_byok.store.database import PostgresURL

# A command imports what it needs when it runs (`--help` must not load the
# server, the store, the loop, asyncio, protobuf or the HTTP client): these
# names are for type hints only.
if TYPE_CHECKING:
    from cursor_byok.cli.serve import Attach
    from cursor_byok.config.settings import Config

DATABASE_HELP = "SQLite file or postgresql:// URL (default: from config)"
EXIT_STATUS = (
    "Exit status: 0 success, 1 the work failed, 2 bad usage or configuration, "
    "3 the thing asked for does not exist, 4 the port to serve on is in use."
)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line naming the bad value (exit 2), not a
    usage block followed by the error."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("cursor-byok").strip()
        fail(f"{command}: {message} (see --help)" if command else f"{message} (see --help)", 2)
        sys.exit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cursor-byok",
        description=(
            "Serve the Cursor agent protocol with your own LLM provider keys "
            "(OpenAI, Anthropic, Gemini, any OpenAI-compatible endpoint)."
        ),
        epilog=(
            "Quick start: export ANTHROPIC_API_KEY=... (or OPENAI_API_KEY / GEMINI_API_KEY), "
            "then run 'cursor-byok serve'. New here? 'cursor-byok demo' shows a whole turn "
            "without any key; 'cursor-byok check' tests your keys. " + EXIT_STATUS
        ),
    )
    parser.add_argument(
        "--config",
        type=Path,
        help="configuration file (default: $CURSOR_BYOK_CONFIG, else the user config dir)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serving = commands.add_parser("serve", help="run the server", epilog=EXIT_STATUS)
    serving.add_argument("--host", help=f"address to bind (default {DEFAULT_HOST})")
    serving.add_argument("--port", type=_port, help=f"port to bind (default {DEFAULT_PORT})")
    serving.add_argument("--database", type=_database, help=DATABASE_HELP)
    serving.add_argument(
        "--workers",
        type=_workers,
        default=1,
        help="server processes sharing the port (default 1; more need a PostgreSQL database)",
    )
    commands.add_parser("models", help="list the configured models and their providers")
    listing = commands.add_parser("conversations", help="list stored conversations")
    listing.add_argument("--database", type=_database, help=DATABASE_HELP)
    listing.add_argument("--user", metavar="NAME", help="that user's conversations alone")
    show = commands.add_parser("show", help="show one conversation: messages, calls, usage")
    show.add_argument("conversation_id")
    show.add_argument("--database", type=_database, help=DATABASE_HELP)
    show.add_argument(
        "--user", metavar="NAME", help="read as that user: ID is the id their client knows"
    )
    show.add_argument("--json", action="store_true", help="print the stored messages as JSON")
    check = commands.add_parser(
        "check",
        help="send one tiny request to each configured provider and report what happened",
        description=(
            "Validate the configuration, then send one short request (a one-line prompt, "
            "at most a few output tokens, thinking off) to every configured provider, "
            "through the same code the server uses. Prints, per provider and model, the "
            "time to the first event and in total, or the exact error (HTTP status and "
            "the provider's message). Keys are never printed. A request costs a few "
            "tokens on your account."
        ),
        epilog=(
            "Example: 'cursor-byok --config my.toml check' checks the providers of my.toml. "
            "Exit status: 0 every provider answered, 1 at least one failed (including a "
            "missing key), 2 the configuration is invalid."
        ),
    )
    check.add_argument(
        "--timeout",
        type=_seconds,
        default=CHECK_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give up on a provider after this long (default {CHECK_TIMEOUT_S:g})",
    )
    demo = commands.add_parser(
        "demo",
        help="watch one complete tool-using turn, with no key and no network",
        description=(
            "Run one complete agent turn on this machine, to see what the server does before "
            "you configure anything. It starts the server on a free 127.0.0.1 port (database "
            "in a temporary folder), plays two recorded model responses in place of a real "
            "provider, and plays Cursor's part itself: it asks a question, runs the read_file "
            "tool the model calls on a file in a temporary workspace, and sends the result "
            "back. The turn is printed as it streams: thinking, text, the tool call and its "
            "result, the answer and the token usage. Needs no key and no configuration."
        ),
        epilog="Exit status: 0 the turn completed, 1 it did not.",
    )
    demo.add_argument(
        "--pace",
        type=float,
        default=0.02,
        metavar="SECONDS",
        help="pause between recorded events, to watch the stream (default 0.02; 0 = full speed)",
    )
    add_proxy_parser(commands)
    add_ide_parser(commands)
    add_token_parser(commands)
    add_users_parser(commands, _database, DATABASE_HELP)
    add_usage_parser(commands, _database, DATABASE_HELP)
    return parser


MAX_WORKERS = 64
"""More processes than this on one machine is a mistake, not a plan."""


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535, got {text!r}")
    return value


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 0 < value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(
            f"expected a number of workers from 1 to {MAX_WORKERS}, got {text!r}"
        )
    return value


def _database(text: str) -> Path | PostgresURL:
    """A SQLite file path or a postgresql:// URL; another URL is refused by
    name, and so is a password too short to be cut out of logs."""
    try:
        return parse_location(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(out)
        return EXIT_OK
    if args.command == "demo":  # independent of the user's configuration and keys
        import asyncio  # noqa: PLC0415

        from cursor_byok.client.demo import run_demo  # noqa: PLC0415

        return EXIT_OK if asyncio.run(run_demo(out, pace_s=max(args.pace, 0.0))) else EXIT_FAILED
    if args.command == "ide":  # Cursor's settings only: works with a broken configuration
        return run_ide(args, out)
    if args.command == "token":
        return run_token(out)
    from cursor_byok.cli.serve import ServeError, serve  # noqa: PLC0415
    from cursor_byok.config.settings import load_config  # noqa: PLC0415

    try:
        config = load_config(args.config)
    except ConfigError as error:
        return fail(str(error), EXIT_USAGE)
    match args.command:
        case "models":
            return _models(config, out)
        case "conversations":
            return list_conversations(args.database or config.server.database, args.user, out)
        case "show":
            database = args.database or config.server.database
            return show_conversation(database, args.conversation_id, args.user, args.json, out)
        case "users":
            return run_users(args, config, out)
        case "usage":
            return run_usage(args, config, out)
        case "serve":
            host, port = args.host or config.server.host, args.port or config.server.port
            try:
                return serve(
                    config,
                    host,
                    port,
                    args.database or config.server.database,
                    Printer(sys.stderr),
                    workers=args.workers,
                )
            except ServeError as error:
                return fail(str(error), error.code)
        case "check":
            return _check(config, args.timeout, out)
        case "proxy":
            return _proxy(args, config, out)
    return EXIT_USAGE


def _proxy(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    try:
        from cursor_byok.cli.proxy_command import run_proxy  # noqa: PLC0415 (loads mitmproxy)
    except ImportError as error:
        return fail(
            f"the proxy needs mitmproxy 12 ({error}); install 'cursor-byok[proxy]' on "
            "Python 3.12 or newer",
            EXIT_FAILED,
        )

    from cursor_byok.cli.serve import ServeError, serve  # noqa: PLC0415

    def serve_beside(attach: Attach) -> int:
        host, port = config.server.host, config.server.port
        return serve(config, host, port, config.server.database, Printer(sys.stderr), attach)

    try:
        return run_proxy(args, config, serve_beside, out)
    except ServeError as error:
        return fail(str(error), error.code)


def _check(config: Config, timeout: float, out: TextIO) -> int:
    import asyncio  # noqa: PLC0415

    from cursor_byok.cli.check import check_config, render  # noqa: PLC0415

    printer = Printer(out)
    if not config.providers:
        printer.line(
            "No providers configured, nothing to check. Set ANTHROPIC_API_KEY, OPENAI_API_KEY, "
            "GEMINI_API_KEY or OPENAI_BASE_URL, or write a configuration file."
        )
        return EXIT_FAILED
    source = config.source or "environment variables"
    printer.line(f"Checking {len(config.providers)} provider(s) configured by {source}")
    with printer.status(f"waiting for {len(config.providers)} provider(s), up to {timeout:g} s"):
        results, web = asyncio.run(check_config(config, timeout=timeout))
    *lines, summary = render(results)  # a line per provider, then the summary
    oks = [r.ok for r in results] + [w.ok for w in web]  # then a line for each [web] check
    for passed, line in zip(oks, [*lines, *(w.line for w in web)], strict=True):
        printer.line((line, "green" if passed else "red"))
    ok = all(oks)
    printer.line((summary, "green" if ok else "red"))
    return EXIT_OK if ok else EXIT_FAILED


def _models(config: Config, out: TextIO) -> int:
    from cursor_byok.config.settings import resolve_key  # noqa: PLC0415

    printer = Printer(out)
    if not config.models:
        printer.line(
            "No models configured. Set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or "
            "OPENAI_BASE_URL, or write a configuration file."
        )
        return EXIT_OK
    for model in config.models.values():
        provider = config.providers[model.provider]
        has_key = resolve_key(provider) is not None
        marker = "*" if model.name == config.default_model else " "
        limits = model.limits(provider.api)
        thinking = "off" if model.thinking == "off" else f"{model.thinking} ({limits.thinking})"
        printer.line(
            (f"{marker} {model.name:<28} ", "cyan"),
            f"{provider.name} ({provider.api}, ",
            ("key set", "green") if has_key else ("NO KEY", "red"),
            f") -> {model.model}  context {model.context_window:,}  "
            f"output {model.max_output:,}  thinking {thinking}",
        )
    return EXIT_OK
