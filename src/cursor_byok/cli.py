"""The `cursor-byok` command.

Exit codes scripts can rely on: 0 success, 1 the work failed, 2 bad usage
or configuration, 3 the thing asked for does not exist.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from cursor_byok.check import DEFAULT_TIMEOUT_S, check_all, render
from cursor_byok.config import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    Config,
    load_config,
    resolve_key,
)
from cursor_byok.config_reader import ConfigError
from cursor_byok.demo import run_demo
from cursor_byok.guards import Redactor, is_loopback_host
from cursor_byok.llm.serialize import message_to_json
from cursor_byok.llm.types import (
    AssistantMessage,
    HistoryRepair,
    Message,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.routing import Router
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.wire.app import build_service
from cursor_byok.transport.wire.http_server import HttpServer, TLSFiles

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_FOUND = 0, 1, 2, 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cursor-byok",
        description=(
            "Serve the Cursor agent protocol with your own LLM provider keys "
            "(OpenAI, Anthropic, Gemini, any OpenAI-compatible endpoint)."
        ),
        epilog=(
            "Quick start: export ANTHROPIC_API_KEY=... (or OPENAI_API_KEY / GEMINI_API_KEY), "
            "then run 'cursor-byok serve'. New here? 'cursor-byok demo' shows a whole turn "
            "without any key; 'cursor-byok check' tests your keys."
        ),
    )
    parser.add_argument(
        "--config",
        type=Path,
        help="configuration file (default: $CURSOR_BYOK_CONFIG, else the user config dir)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser("serve", help="run the server")
    serve.add_argument("--host", help=f"address to bind (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, help=f"port to bind (default {DEFAULT_PORT})")
    serve.add_argument("--database", type=Path, help="SQLite file (default: from config)")
    commands.add_parser("models", help="list the configured models and their providers")
    listing = commands.add_parser("conversations", help="list stored conversations")
    listing.add_argument("--database", type=Path, help="SQLite file (default: from config)")
    show = commands.add_parser("show", help="show one conversation: messages, calls, usage")
    show.add_argument("conversation_id")
    show.add_argument("--database", type=Path, help="SQLite file (default: from config)")
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
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give up on a provider after this long (default {DEFAULT_TIMEOUT_S:g})",
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
    return parser


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
        return EXIT_OK if asyncio.run(run_demo(out, pace_s=max(args.pace, 0.0))) else EXIT_FAILED
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"cursor-byok: {error}", file=sys.stderr)
        return EXIT_USAGE
    match args.command:
        case "models":
            return _models(config, out)
        case "conversations":
            return _conversations(args.database or config.server.database, out)
        case "show":
            return _show(
                args.database or config.server.database, args.conversation_id, args.json, out
            )
        case "serve":
            return _serve(config, args.host, args.port, args.database)
        case "check":
            return _check(config, args.timeout, out)
    return EXIT_USAGE


def _check(config: Config, timeout: float, out: TextIO) -> int:
    if not config.providers:
        print(
            "No providers configured, nothing to check. Set ANTHROPIC_API_KEY, OPENAI_API_KEY, "
            "GEMINI_API_KEY or OPENAI_BASE_URL, or write a configuration file.",
            file=out,
        )
        return EXIT_FAILED
    source = config.source or "environment variables"
    print(f"Checking {len(config.providers)} provider(s) configured by {source}", file=out)
    results = asyncio.run(check_all(config, timeout=timeout))
    for line in render(results):
        print(line, file=out)
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAILED


def _models(config: Config, out: TextIO) -> int:
    if not config.models:
        print(
            "No models configured. Set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or "
            "OPENAI_BASE_URL, or write a configuration file.",
            file=out,
        )
        return EXIT_OK
    for model in config.models.values():
        provider = config.providers[model.provider]
        key = "key set" if resolve_key(provider) else "NO KEY"
        marker = "*" if model.name == config.default_model else " "
        limits = model.limits(provider.api)
        thinking = "off" if model.thinking == "off" else f"{model.thinking} ({limits.thinking})"
        print(
            f"{marker} {model.name:<28} {provider.name} ({provider.api}, {key}) "
            f"-> {model.model}  context {model.context_window:,}  "
            f"output {model.max_output:,}  thinking {thinking}",
            file=out,
        )
    return EXIT_OK


def _open(database: Path) -> SQLiteStore | None:
    if not database.exists():
        print(f"cursor-byok: no database at {database}", file=sys.stderr)
        return None
    return SQLiteStore(database)


def _conversations(database: Path, out: TextIO) -> int:
    store = _open(database)
    if store is None:
        return EXIT_NOT_FOUND
    try:
        for summary in store.conversations():
            print(
                f"{summary.conversation_id}  {summary.status:<15} "
                f"{summary.message_count:>5} messages  version {summary.version}",
                file=out,
            )
    finally:
        store.close()
    return EXIT_OK


def _show(database: Path, conversation_id: str, as_json: bool, out: TextIO) -> int:
    store = _open(database)
    if store is None:
        return EXIT_NOT_FOUND
    try:
        loaded = store.load(conversation_id)
        if loaded is None:
            print(f"cursor-byok: no conversation {conversation_id!r}", file=sys.stderr)
            return EXIT_NOT_FOUND
        state = loaded.state
        if as_json:
            for message in state.messages:
                print(json.dumps(message_to_json(message), ensure_ascii=False), file=out)
            return EXIT_OK
        print(
            f"conversation {state.conversation_id}: {state.status.value}, "
            f"{len(state.messages)} messages, version {loaded.version}",
            file=out,
        )
        for message in state.messages:
            print(_one_line(message), file=out)
        print("model calls:", file=out)
        for call in store.llm_calls(conversation_id):
            print(
                f"  {call.call_id}  {call.status.value:<9} model {call.model}  "
                f"{call.message_count} messages  attempts {call.attempts}"
                + (f"  error: {call.error}" if call.error else ""),
                file=out,
            )
        usage = [m.usage for m in state.messages if isinstance(m, AssistantMessage)]
        read = sum(u.cache_read for u in usage)
        prompt = sum(u.input + u.cache_read + u.cache_write for u in usage)
        share = f"{read / prompt:.0%}" if prompt else "n/a"
        print(
            f"usage: input {sum(u.input for u in usage)}, output {sum(u.output for u in usage)}, "
            f"cache read {read}, cache write {sum(u.cache_write for u in usage)} "
            f"(cache hits {share}), cost ${sum(u.cost.total for u in usage):.4f}",
            file=out,
        )
    finally:
        store.close()
    return EXIT_OK


def _one_line(message: Message) -> str:
    match message:
        case UserMessage(content=content):
            text = content if isinstance(content, str) else "[blocks]"
            return f"  user       {_short(text)}"
        case AssistantMessage():
            calls = ", ".join(call.name for call in message.tool_calls)
            suffix = f"  -> {calls}" if calls else ""
            return f"  assistant  {_short(message.text)}{suffix}  [{message.stop_reason}]"
        case ToolResultMessage():
            flag = " (error)" if message.is_error else ""
            return f"  tool       {message.tool_name}{flag}"
        case HistoryRepair(reason=reason):
            return f"  repair     earlier history resent as plain text: {_short(reason)}"


def _short(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class RedactSecrets(logging.Filter):
    """Replaces every configured key in log records, whatever logged them."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.redact = Redactor(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        if self.redact:
            record.msg, record.args = self.redact(record.getMessage()), None
        return True


def _serve(config: Config, host: str | None, port: int | None, database: Path | None) -> int:
    host = host or config.server.host
    port = port or config.server.port
    token = config.server.access_token
    if not is_loopback_host(host) and token is None:
        print(
            f"cursor-byok: refusing to listen on {host} without an access token; set "
            "CURSOR_BYOK_TOKEN (or server.access_token) and have clients send it as "
            "'Authorization: Bearer <token>'.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    handler = logging.StreamHandler()
    handler.addFilter(RedactSecrets(config.secrets()))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[handler],
    )
    try:
        asyncio.run(_run_server(config, host, port, database or config.server.database))
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"cursor-byok: cannot serve on {host}:{port}: {error.strerror}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


async def _run_server(config: Config, host: str, port: int, database: Path) -> None:
    store = SQLiteStore(
        database, synchronous="FULL" if config.server.durability == "full" else "NORMAL"
    )
    router = Router(config)
    service = build_service(
        store,
        router,
        models=router.entries,
        default_model=lambda: config.default_model,
        context_window=router.context_window,
        max_body_bytes=config.server.max_body_bytes,
        access_token=config.server.access_token.reveal() if config.server.access_token else None,
        http2=config.server.http2,
    )
    cert, key = config.server.tls_cert, config.server.tls_key
    tls = TLSFiles(cert, key) if cert is not None and key is not None else None
    models = ", ".join(config.models) or "none (a turn will say which key to set)"
    logging.getLogger("cursor_byok").info(
        "listening on %s://%s:%d (%s); database %s; models: %s; default: %s",
        "https" if tls else "http",
        host,
        port,
        "HTTP/1.1 and HTTP/2" if config.server.http2 else "HTTP/1.1",
        database,
        models,
        config.default_model,
    )
    server = HttpServer(service.server, host, port, config.server.http2, tls, signals=True)
    # SIGINT/SIGTERM: end open streams with a retryable error at once, stop
    # accepting, let the lifespan shutdown close the runners (every commit is
    # one transaction, so none is left half done), then exit 0.
    server.on_exit = service.server.begin_shutdown
    try:
        await server.serve()
    finally:
        await router.aclose()
        store.close()
