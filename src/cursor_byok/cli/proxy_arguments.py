"""The `proxy` command's arguments (mitmproxy-free, so `--help` stays fast)."""

from __future__ import annotations

import argparse
from typing import TypeVar

from cursor_byok.ide.proxy import DEFAULT_PROXY_PORT

ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


def add_proxy_parser(commands: argparse._SubParsersAction[ParserT]) -> None:
    proxy = commands.add_parser(
        "proxy",
        help="run the server behind an intercepting proxy for the Cursor IDE",
        description=(
            "Start the server and, in front of it, mitmproxy on 127.0.0.1: requests to "
            "Cursor's hosts for the agent (RunSSE, BidiAppend) and its model list go to this "
            "server, streamed; every other request goes to Cursor unchanged, so your login, "
            "settings sync and Cursor's own features keep working. Other hosts pass through "
            "untouched. On first run it creates this installation's own CA, which Cursor must "
            "trust (see the README). The proxy takes only clients that send its credentials; "
            "'cursor-byok ide setup' points Cursor at it with them."
        ),
        epilog="Example: NODE_EXTRA_CA_CERTS=$(cursor-byok proxy --ca-path) cursor",
    )
    proxy.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PROXY_PORT,
        help=f"proxy port on 127.0.0.1 (default {DEFAULT_PROXY_PORT})",
    )
    proxy.add_argument("--listen-host", default="127.0.0.1", help=argparse.SUPPRESS)
    proxy.add_argument(
        "--server",
        metavar="URL",
        help="send Cursor's agent requests to a cursor-byok server already running at URL "
        "instead of starting one in this process",
    )
    proxy.add_argument(
        "--token-file",
        metavar="FILE",
        help="with --server: send the token in FILE (yours from 'cursor-byok users add' on a "
        "team's server); without it, CURSOR_AUTH_TOKEN if set, else the configured access token",
    )
    proxy.add_argument(
        "--allow-cleartext",
        action="store_true",
        help="allow an http:// --server off this machine (its access token then crosses the "
        "network readable)",
    )
    proxy.add_argument(
        "--intercept",
        action="append",
        metavar="DOMAIN",
        help="a domain whose TLS the proxy opens, its subdomains included; repeatable "
        "(default: Cursor's API hosts, cursor.sh). The CA signs for its domains only: "
        "another domain needs --new-ca",
    )
    proxy.add_argument(
        "--ca-path",
        action="store_true",
        help="print the path of the CA certificate to trust (creating the CA if needed) and "
        "exit; when it expires goes to stderr",
    )
    proxy.add_argument(
        "--new-ca",
        action="store_true",
        help="replace the CA with a new one (new key, valid for a year, for the intercepted "
        "domains); remove the old one from where you trusted it and trust the new one (README)",
    )
