"""`cursor-byok serve`: check what the operator asked for, bind, log, serve.

Every mistake that can be found before serving (a database that is not a
SQLite file or a PostgreSQL server that cannot be used, a folder that cannot
be created, an address that is not this machine's, a port already in use)
ends in one line naming the bad value, with its own exit code, before
anything says "listening".
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import socket
import sqlite3
import ssl
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursor_byok.cli.base import EXIT_FAILED, EXIT_OK, EXIT_PORT_IN_USE, EXIT_USAGE
from cursor_byok.cli.terminal import Printer
from cursor_byok.config.guards import HostCheck, Redactor
from cursor_byok.config.settings import Config
from cursor_byok.config.subagents import task_tool
from cursor_byok.config.web import server_tools
from cursor_byok.llm import ready_order
from cursor_byok.runtime.logsafe import PrintableLogs
from cursor_byok.store.database import Durability, PostgresURL

# The server's modules are imported when it starts, not by every command that
# shares this module's exit codes and errors (`cursor-byok --help` among them).
if TYPE_CHECKING:
    from cursor_byok.config.access import Access
    from cursor_byok.store.base import Store
    from cursor_byok.store.sqlite import SQLiteStore
    from cursor_byok.transport.http.app import Service
    from cursor_byok.transport.http.http_server import HttpServer
    from cursor_byok.transport.http.peer_uid import OwnUserOnly


class ServeError(Exception):
    """What stops the server from starting: one line, and the exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def open_database(database: Path | PostgresURL, durability: Durability) -> Store:
    """The store at `database`; ServeError saying why when it cannot be used."""
    if isinstance(database, PostgresURL):
        from cursor_byok.store.base import StoreError  # noqa: PLC0415
        from cursor_byok.store.opener import open_store  # noqa: PLC0415

        try:
            return open_store(database, durability)
        except StoreError as error:
            raise ServeError(str(error), EXIT_FAILED) from error
    return _open_sqlite(database, "FULL" if durability == "full" else "NORMAL")


def _open_sqlite(path: Path, synchronous: str = "FULL") -> SQLiteStore:
    """The SQLite store at `path`, created if missing; ServeError naming the
    path when it is a folder, not a SQLite file, or its folder cannot be made."""
    from cursor_byok.store.sqlite import SQLiteStore  # noqa: PLC0415

    if path.is_dir():
        raise ServeError(f"database {path} is a folder, not a SQLite file")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        blocking = next((p for p in path.parents if p.exists()), None)
        reason = (
            f"{blocking} is a file"
            if blocking is not None and not blocking.is_dir()
            else error.strerror
        )
        raise ServeError(f"cannot create the database folder {path.parent}: {reason}") from error
    try:
        return SQLiteStore(path, synchronous="FULL" if synchronous == "FULL" else "NORMAL")
    except sqlite3.DatabaseError as error:
        if "not a database" in str(error):
            raise ServeError(f"database {path} is not a SQLite file ({error})") from error
        raise ServeError(f"cannot open the database {path}: {error}") from error
    except OSError as error:
        raise ServeError(f"cannot open the database {path}: {error.strerror}") from error


def check_tls(tls: tuple[Path, Path] | None) -> None:
    """A certificate that cannot be used is said before anything listens."""
    if tls is None:
        return
    cert, key = tls
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except OSError as error:  # ssl.SSLError is an OSError
        reason = error.strerror or getattr(error, "reason", None) or str(error)
        raise ServeError(
            f"cannot use the TLS certificate {cert} with key {key}: {reason}"
        ) from error


def bind(host: str, port: int) -> socket.socket:
    """A bound socket for the HTTP server, so a port in use is known (and said)
    before the server logs that it is listening."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise ServeError(f"cannot listen on {host!r}: {error.strerror}") from error
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is already in use (another cursor-byok?); "
                "choose another with --port",
                EXIT_PORT_IN_USE,
            ) from error
        code = EXIT_USAGE if error.errno == errno.EADDRNOTAVAIL else EXIT_FAILED
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}", code) from error
    return sock


Attach = Callable[["Service"], contextlib.AbstractContextManager[None]]
"""Something that runs beside the server while it listens (the IDE proxy)."""


def serve(
    config: Config,
    host: str,
    port: int,
    database: Path | PostgresURL,
    printer: Printer,
    attach: Attach | None = None,
    workers: int = 1,
) -> int:
    """Run the server until a signal; the exit code. With `workers` above one,
    that many processes share the port and the (PostgreSQL) database."""
    if workers > 1 and not isinstance(database, PostgresURL):
        raise ServeError(
            f"--workers {workers} needs a PostgreSQL database (server.database ="
            ' "postgresql://..."): a SQLite file serves one process'
        )
    check_tls(config.server.tls)
    access = decide_access(config, host)
    # From here on the token decided is the server's (the proxy beside it
    # sends it, the log filter cuts it).
    config = replace(config, server=replace(config.server, access_token=access.token))
    store = open_database(database, config.server.durability)
    try:
        sock = bind(host, port)
    except ServeError:
        store.close()
        raise
    _log_to(printer, config, database)
    logging.getLogger("cursor_byok").info("access: %s", access.describe())
    gate = access.own_user_only
    if workers > 1:
        store.close()  # checked and migrated; each worker opens its own pool
        return _serve_workers(config, host, port, sock, database, workers, gate)
    with contextlib.suppress(KeyboardInterrupt):
        _run_loop(_run(config, host, port, sock, store, database, printer, attach, gate))
    return EXIT_OK


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    """`asyncio.run` on the server's loop, which serves a pass's client
    requests and first answer reads ahead of its relays (`llm/ready_order.py`)."""
    with asyncio.Runner(loop_factory=ready_order.new_event_loop) as runner:
        runner.run(main)


def decide_access(config: Config, host: str) -> Access:
    """Who may use the server (config/access.py), or ServeError saying why
    it must not start."""
    from cursor_byok.config.access import AccessError, decide  # noqa: PLC0415
    from cursor_byok.config.local_secret import LocalSecretError  # noqa: PLC0415

    try:
        return decide(config.server, host)
    except AccessError as error:
        raise ServeError(str(error)) from error
    except LocalSecretError as error:
        raise ServeError(str(error), EXIT_FAILED) from error


def _serve_workers(
    config: Config,
    host: str,
    port: int,
    sock: socket.socket,
    database: Path | PostgresURL,
    count: int,
    gate: OwnUserOnly | None,
) -> int:
    """Fork `count` workers on the bound socket; plain log lines, no live line."""
    from cursor_byok.cli.workers import Supervisor  # noqa: PLC0415

    plain = Printer(sys.stderr, env={"TERM": "dumb"})
    _log_to(plain, config, database)

    def worker(slot: int) -> int:
        store = open_database(database, config.server.durability)
        logging.getLogger("cursor_byok").info("worker %d: pid %d", slot, os.getpid())
        with contextlib.suppress(KeyboardInterrupt):
            _run_loop(_run(config, host, port, sock, store, database, plain, None, gate))
        return EXIT_OK

    return Supervisor(count, worker).run()


def _log_to(printer: Printer, config: Config, database: Path | PostgresURL) -> None:
    """Coloured records above the live line on a terminal, plain lines
    elsewhere; the configuration's secrets and the password of the database
    served (`--database` may name another) cut out of every record."""
    handler: logging.Handler
    if printer.live:
        from rich.logging import RichHandler  # noqa: PLC0415 (rich only on a terminal)

        handler = RichHandler(console=printer.console(), show_path=False, markup=False)
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    else:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    secrets = config.secrets()
    if isinstance(database, PostgresURL):
        secrets += database.secrets
    redact = Redactor(secrets)
    handler.addFilter(PrintableLogs(redact if redact else None))
    # What each record would look up and the formats never print: the
    # caller's frame, thread, process and task (the logging HOWTO's
    # "Optimization" switches).
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    if sys.version_info >= (3, 12):
        logging.logAsyncioTasks = False
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)


async def _run(
    config: Config,
    host: str,
    port: int,
    sock: socket.socket,
    store: Store,
    database: Path | PostgresURL,
    printer: Printer,
    attach: Attach | None = None,
    gate: OwnUserOnly | None = None,
) -> None:
    from cursor_byok.cli.tuning import keep_large_blocks, settle_after_startup  # noqa: PLC0415
    from cursor_byok.config.routing import Router  # noqa: PLC0415
    from cursor_byok.runtime.model_call import RetryPolicy  # noqa: PLC0415
    from cursor_byok.transport.dialect.server_tool import QueryWaits  # noqa: PLC0415
    from cursor_byok.transport.http.app import build_service  # noqa: PLC0415
    from cursor_byok.transport.http.connection_limits import ConnectionLimits  # noqa: PLC0415
    from cursor_byok.transport.http.http_server import HttpServer, TLSFiles  # noqa: PLC0415

    router = Router(config)
    token = config.server.access_token
    processes = None
    if isinstance(database, PostgresURL):  # several processes may share it
        from cursor_byok.cluster.processes import for_store  # noqa: PLC0415

        processes = for_store(store, config.server.lease_s)
    service = build_service(
        store,
        router,
        models=router.entries,
        default_model=lambda: config.default_model,
        context_window=router.context_window,
        compact_at=config.server.compact_at,
        max_body_bytes=config.server.max_body_bytes,
        access_token=token.reveal() if token else None,
        retry=RetryPolicy(budget_s=config.server.retry_budget_s),
        host_allowed=HostCheck(host, config.server.allowed_hosts).allows,
        metrics_public=config.server.metrics_public,
        body_timeout_s=config.server.body_timeout_s,
        http2=config.server.http2,
        max_append_bytes=config.server.max_append_bytes,
        memory_budget_bytes=config.server.memory_budget_bytes,
        request_memory_bytes=config.server.request_memory_bytes,
        processes=processes,
        resolve_model=router.model_name,
        query_waits=QueryWaits(config.server.question_wait_s, config.server.approval_wait_s),
        server_tools=(
            *server_tools(config.web, approval_s=config.server.approval_wait_s),
            task_tool(config.subagents, config.models),
        ),
        pricing=router.terms,
    )
    tls = TLSFiles(*config.server.tls) if config.server.tls else None
    scheme = "https" if tls else "http"
    url = f"{scheme}://{host}:{port}" if ":" not in host else f"{scheme}://[{host}]:{port}"
    models = ", ".join(config.models) or "none (a turn will say which key to set)"
    logging.getLogger("cursor_byok").info(
        "listening on %s; database %s; models: %s; default: %s",
        url,
        database,
        models,
        config.default_model or next(iter(config.models), "none"),
    )
    server = HttpServer(
        service.server,
        host,
        port,
        config.server.http2,
        tls,
        signals=True,
        keepalive_timeout_s=config.server.keepalive_timeout_s,
        sock=sock,
        limits=ConnectionLimits(
            config.server.max_connections, config.server.max_connections_per_peer
        ),
        peer_allowed=gate,
    )
    # SIGINT/SIGTERM: end open streams with a retryable error at once, stop
    # accepting, let the lifespan shutdown close the runners (every commit is
    # one transaction, so none is left half done), then exit 0.
    server.on_exit = service.server.begin_shutdown
    settle_after_startup()
    keep_large_blocks()
    with printer.status(f"serving on {url}") as update:
        ticker = asyncio.create_task(_tick(update, url, service))
        try:
            beside = attach(service) if attach else contextlib.nullcontext()
            await _serve_beside(server, beside)
        finally:
            ticker.cancel()
            await router.aclose()
            store.close()


async def _serve_beside(
    server: HttpServer, beside: contextlib.AbstractContextManager[None]
) -> None:
    """Runs `beside` (the IDE proxy) only while the server listens, so that
    nothing is routed to a closed port; if `beside` fails, the server stops."""
    task = asyncio.create_task(server.serve())
    if not await server.started(task):
        await task  # it could not start: its error, or its exit
        return
    try:
        with beside:
            await asyncio.wait({task})
    except BaseException:
        server.stop()
        await asyncio.wait({task})
        raise
    await task


async def _tick(update: Callable[[str], None], url: str, service: Service) -> None:
    """The live line: where the server is and what it is doing now."""
    started = time.monotonic()
    while True:
        streams = service.server.open_streams
        up = int(time.monotonic() - started)
        update(
            f"serving on {url} · {streams} open stream{'' if streams == 1 else 's'} · "
            f"up {up // 3600}h{up // 60 % 60:02d}m{up % 60:02d}s · Ctrl-C to stop"
        )
        await asyncio.sleep(1.0)
