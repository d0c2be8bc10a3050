"""`cursor-byok proxy`: start the proxy, with the server in the same process
(the default) or in front of a server already running elsewhere."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from cursor_byok.cli.base import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail
from cursor_byok.cli.serve import Attach
from cursor_byok.cli.terminal import Printer
from cursor_byok.config.guards import is_loopback_host, is_loopback_url
from cursor_byok.config.local_secret import (
    ACCESS_TOKEN,
    LocalSecretError,
    ensure_secret,
    proxy_auth,
)
from cursor_byok.config.settings import Config
from cursor_byok.ide.proxy.addon import Target
from cursor_byok.ide.proxy.ca import NEW_CA_HINT, CAError, CAFiles, ca_info, ensure_ca
from cursor_byok.ide.proxy.metrics import count_flows
from cursor_byok.ide.proxy.routes import ANSWERED_PATHS, CURSOR_DOMAINS, check_domains
from cursor_byok.ide.proxy.runner import ProxyError, ProxySettings, ProxyThread
from cursor_byok.transport.http.app import Service

log = logging.getLogger("cursor_byok.ide.proxy")

Serve = Callable[[Attach], int]

REPLACED = "A new CA: remove the old one from where you trusted it, then trust this one (README)."


def run_proxy(args: argparse.Namespace, config: Config, serve: Serve, out: TextIO) -> int:
    """`serve(attach)` runs the server, entering `attach(service)` while it listens."""
    try:
        hosts = tuple(check_domains(args.intercept or CURSOR_DOMAINS))
    except ValueError as error:
        return fail(str(error), EXIT_USAGE)
    try:
        files, created = ensure_ca(domains=hosts, renew=args.new_ca)
        info = ca_info(files.certificate)
    except CAError as error:
        return fail(str(error), EXIT_FAILED)
    problem = info.problem(hosts)
    if args.ca_path:
        print(files.certificate, file=out)  # alone on stdout: NODE_EXTRA_CA_CERTS=$(...)
        if problem is None:
            print(f"the proxy CA is {info.describe()}", file=sys.stderr)
            if args.new_ca:
                print(REPLACED, file=sys.stderr)
            return EXIT_OK
    if problem is not None:
        return fail(f"the proxy CA {files.certificate} {problem}: {NEW_CA_HINT}", EXIT_FAILED)
    if not is_loopback_host(args.listen_host):
        return fail(
            f"refusing to run the proxy on {args.listen_host}: anyone who reaches it could "
            "use it; keep it on 127.0.0.1",
            EXIT_USAGE,
        )
    if args.server and (refusal := _server_refused(args.server, args.allow_cleartext)):
        return fail(refusal, EXIT_USAGE)
    # mitmproxy logs every connection at INFO; one line per flow is ours.
    logging.getLogger("mitmproxy").setLevel(logging.WARNING)
    try:
        auth = proxy_auth()
        token = _token_for(args.server, config, args.token_file) if args.server else None
    except LocalSecretError as error:
        return fail(str(error), EXIT_FAILED)
    except OSError as error:
        return fail(f"--token-file {args.token_file}: {error.strerror}", EXIT_USAGE)
    if args.token_file and not token:
        return fail(f"--token-file {args.token_file} is empty", EXIT_USAGE)
    if created:
        print(
            f"Created this installation's proxy CA ({info.describe()}): {files.certificate}",
            file=out,
        )
        if args.new_ca:
            print(REPLACED, file=out)
    _warn_if_cursor_lacks_credentials(args.port)

    def settings(server_url: str, token: str | None) -> ProxySettings:
        return ProxySettings(
            server_url, files, args.listen_host, args.port, hosts, token, proxy_auth=auth
        )

    if args.server:
        return _in_front_of(settings(args.server, token), files)
    host = config.server.host if config.server.host not in ("0.0.0.0", "::") else "127.0.0.1"
    host = f"[{host}]" if ":" in host else host

    @contextlib.contextmanager
    def attach(service: Service) -> Iterator[None]:
        # The token the server decided on (its own, or the installation's).
        url = f"http://{host}:{config.server.port}"
        proxy = ProxyThread(
            settings(url, service.server.access_token), count_flows(service.metrics.registry)
        )
        _start(proxy, files)
        try:
            yield
        finally:
            proxy.stop()

    try:
        return serve(attach)
    except ProxyError as error:
        return fail(str(error), EXIT_FAILED)


def _server_refused(server_url: str, cleartext: bool) -> str | None:
    """Why `--server` cannot be used: not a server URL, or plain HTTP off
    this machine (the server's token would cross the network readable)
    without `--allow-cleartext`."""
    try:
        target = Target.parse(server_url)
    except ValueError as error:
        return f"--server: {error}"
    if target.scheme == "http" and not is_loopback_host(target.host) and not cleartext:
        return (
            f"--server {server_url}: the server's access token would cross the network in "
            "clear text; use https://, or add --allow-cleartext if the network between is "
            "yours alone"
        )
    return None


def _token_for(server_url: str, config: Config, token_file: str | None = None) -> str | None:
    """What the proxy sends a server running elsewhere: the token in
    `token_file`, else `CURSOR_AUTH_TOKEN` (a user's own token on a team's
    server, as cursor-agent takes it), else the configured token, else, for
    one on this machine, the installation's (which such a server asks for
    where it cannot tell this user's connections from others')."""
    if token_file:
        return Path(token_file).expanduser().read_text(encoding="utf-8").strip()
    if os.environ.get("CURSOR_AUTH_TOKEN", "").strip():
        return os.environ["CURSOR_AUTH_TOKEN"].strip()
    if config.server.access_token is not None:
        return config.server.access_token.reveal()
    if is_loopback_url(server_url):
        return ensure_secret(ACCESS_TOKEN).reveal()
    return None


def _warn_if_cursor_lacks_credentials(port: int) -> None:
    """A Cursor set up before the proxy needed credentials is refused:
    say what to do, once, before starting."""
    from cursor_byok.ide.settings import cursor_settings_path  # noqa: PLC0415
    from cursor_byok.ide.status import proxy_url_in  # noqa: PLC0415

    url = proxy_url_in(cursor_settings_path())
    parts = urlsplit(url or "")
    if url and parts.port == port and is_loopback_url(url) and not parts.username:
        Printer(sys.stderr).line(
            ("cursor-byok: ", None),
            (
                f"Cursor's http.proxy ({url}) has no credentials, and the proxy now refuses "
                "clients without them: run 'cursor-byok ide setup' and restart Cursor",
                "yellow",
            ),
        )


def _start(proxy: ProxyThread, files: CAFiles) -> None:
    listen_host, port = proxy.start()
    log.info(
        "proxy on http://%s:%d: %d Cursor paths of %s to %s, the rest to Cursor; "
        "CA certificate %s (%s)",
        listen_host,
        port,
        len(ANSWERED_PATHS),
        " ".join(proxy.settings.hosts),
        proxy.settings.server_url,
        files.certificate,
        ca_info(files.certificate).describe(),
    )


def _in_front_of(settings: ProxySettings, files: CAFiles) -> int:
    """The proxy alone, routing to a server that runs elsewhere."""
    proxy = ProxyThread(settings)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda _sig, _frame: stop.set())
    try:
        _start(proxy, files)
        while not stop.wait(0.5):
            pass
    except ProxyError as error:
        return fail(str(error), EXIT_FAILED)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        proxy.stop()
    return EXIT_OK
