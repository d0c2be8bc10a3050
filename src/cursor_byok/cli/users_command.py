"""`cursor-byok users`: the people a team's server answers, each by a token
of their own.

`add` and `rotate` print the new token once, alone on standard output (so
`TOKEN=$(cursor-byok users add ana)` takes it), and what to do with it on
standard error; the database keeps only its salted scrypt hash
(`store/tokens.py`). `revoke` and `rotate` take effect on every server
process at the next request the old token makes. The administrator (the
configured access token's holder) is listed first and is managed in the
configuration, not here.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO, TypeVar

from cursor_byok.cli.base import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, fail
from cursor_byok.cli.conversations_command import open_for_reading
from cursor_byok.cli.terminal import Printer
from cursor_byok.cli.usage_command import period_spend

if TYPE_CHECKING:
    from cursor_byok.config.settings import Config
    from cursor_byok.store.base import Store, User
    from cursor_byok.store.usage import BudgetPeriod

ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
"""A user's name is logged and printed: letters, digits and `._@-` only."""
PERIODS = ("day", "week", "month")


def add_users_parser(
    commands: argparse._SubParsersAction[ParserT],
    database: Callable[[str], object],
    database_help: str,
) -> None:
    """`database` parses `--database` (a SQLite path or a PostgreSQL URL)."""
    users = commands.add_parser(
        "users",
        help="add, list, revoke and rotate the users of a team's server",
        description=(
            "Each user gets a token of their own, which the server stores only as a salted "
            "hash and prints once. A user sees and reaches only their own conversations; "
            "the administrator (the configured access token) sees everything."
        ),
        epilog='Example: CURSOR_AUTH_TOKEN="$(cursor-byok users add ana)" cursor-agent '
        "-e https://cursor-byok.example:8417",
    )
    actions = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a user and print their token (once)")
    add.add_argument("name", help="letters, digits and ._@- (up to 64)")
    add.add_argument("--budget-usd", type=_dollars, metavar="X", help="spending budget in USD")
    add.add_argument("--period", choices=PERIODS, help="the budget's period (default month)")
    add.add_argument(
        "--models",
        type=_models,
        metavar="A,B",
        help="the models this user may see and use (default: all)",
    )
    budget = actions.add_parser(
        "budget", help="set or clear a user's budget (the administrator's too)"
    )
    budget.add_argument("name")
    amount = budget.add_mutually_exclusive_group(required=True)
    amount.add_argument("--budget-usd", type=_dollars, metavar="X", help="spending budget in USD")
    amount.add_argument("--clear", action="store_true", help="no budget: never checked")
    budget.add_argument("--period", choices=PERIODS, help="the budget's period (default month)")
    actions.add_parser("list", help="list users: created, last used, budget, spend, models")
    revoke = actions.add_parser("revoke", help="stop a user's token now")
    revoke.add_argument("name")
    rotate = actions.add_parser("rotate", help="give a user a new token; the old one stops")
    rotate.add_argument("name")
    for action in actions.choices.values():
        action.add_argument("--database", type=database, help=database_help)


def _dollars(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive amount of US dollars, got {text!r}")
    return value


def _models(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"expected model names separated by commas, got {text!r}")
    return names


def run_users(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    database = args.database or config.server.database
    action = args.users_command
    if action in ("add", "budget", "revoke", "rotate") and not NAME.fullmatch(args.name):
        return fail(
            f"users {action}: a user name is 1 to 64 letters, digits or ._@- (starting with "
            f"a letter or digit), got {args.name!r}",
            EXIT_USAGE,
        )
    if action in ("add", "budget") and args.period is not None and args.budget_usd is None:
        return fail(f"users {action}: --period needs --budget-usd", EXIT_USAGE)
    if action == "add":  # the first user may come before the server's first start
        from cursor_byok.cli.serve import ServeError, open_database  # noqa: PLC0415

        try:
            store: Store | int = open_database(database, config.server.durability)
        except ServeError as error:
            return fail(str(error), error.code)
    else:
        store = open_for_reading(database)
    if isinstance(store, int):
        return store
    try:
        match action:
            case "add":
                return _add(store, args, config, out)
            case "list":
                return _list(store, out)
            case "revoke":
                return _revoke(store, args.name)
            case "budget":
                return _budget(store, args.name, args.budget_usd, args.period)
            case _:
                return _rotate(store, args.name, out)
    finally:
        store.close()


def _add(store: Store, args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from cursor_byok.store.base import UserExists  # noqa: PLC0415
    from cursor_byok.store.tokens import new_token  # noqa: PLC0415

    models: tuple[str, ...] | None = args.models
    unknown = [m for m in models or () if m not in config.models]
    if unknown and config.models:
        Printer(sys.stderr).line(
            (
                f"note: {', '.join(unknown)} not among this configuration's models "
                f"({', '.join(config.models)}); the server's may differ",
                "yellow",
            )
        )
    made = new_token()
    period: BudgetPeriod | None = args.period
    if period is None and args.budget_usd is not None:
        period = "month"
    try:
        user = store.add_user(
            args.name, made.token_id, made.token_hash, models, args.budget_usd, period
        )
    except UserExists as error:
        return fail(f"users add: {error}", EXIT_FAILED)
    _hand_out(made.token, f"Added user {user.name}.", out)
    return EXIT_OK


def _rotate(store: Store, name: str, out: TextIO) -> int:
    from cursor_byok.store.tokens import new_token  # noqa: PLC0415

    made = new_token()
    user = store.set_token(name, made.token_id, made.token_hash)
    if user is None:
        return _no_such_user(store, "rotate", name)
    _hand_out(made.token, f"User {user.name} has a new token; the old one no longer works.", out)
    return EXIT_OK


def _revoke(store: Store, name: str) -> int:
    user = store.revoke(name)
    if user is None:
        return _no_such_user(store, "revoke", name)
    Printer(sys.stderr).line(
        f"Revoked user {user.name}: their token no longer works, on every server process, "
        "from its next request. Their conversations stay ('users rotate' gives them a new "
        "token and takes the revocation back)."
    )
    return EXIT_OK


def _budget(store: Store, name: str, budget_usd: float | None, period: BudgetPeriod | None) -> int:
    if budget_usd is not None and period is None:
        period = "month"
    user = store.set_budget(name, budget_usd, period)
    if user is None:
        return fail(f"users budget: no user {name!r}", EXIT_NOT_FOUND)
    said = (
        f"User {user.name} has no budget: their calls are not checked."
        if user.budget_usd is None
        else f"User {user.name}'s budget is ${user.budget_usd:,.2f} a {user.budget_period} "
        "(UTC), checked from their next model call on, on every server process (within 10 "
        "seconds for a user who had none)."
    )
    Printer(sys.stderr).line(said)
    return EXIT_OK


def _no_such_user(store: Store, action: str, name: str) -> int:
    found = store.user(name)
    if found is not None and found.is_admin:
        return fail(
            f"users {action}: {name} is the administrator, whose token is the configured "
            "access token (server.access_token or CURSOR_BYOK_TOKEN): change it there",
            EXIT_USAGE,
        )
    return fail(f"users {action}: no user {name!r}", EXIT_NOT_FOUND)


def _hand_out(token: str, what: str, out: TextIO) -> None:
    """The token alone on standard output, the rest on standard error."""
    Printer(sys.stderr).line(
        f"{what} Their token follows, shown this once (only its hash is stored). They send "
        "it as CURSOR_AUTH_TOKEN to cursor-agent, or to 'cursor-byok proxy --server URL' "
        "for the IDE."
    )
    print(token, file=out, flush=True)


def _list(store: Store, out: TextIO) -> int:
    printer = Printer(out)
    printer.line(
        f"{'NAME':<20} {'CREATED (UTC)':<17} {'LAST USED (UTC)':<17} {'BUDGET':>10} {'PERIOD':<7} "
        f"{'SPEND':>8}  {'STATUS':<8} MODELS"
    )
    for user in store.users():
        printer.line(_row(user, period_spend(store, user)))
    return EXIT_OK


def _row(user: User, spend: str) -> str:
    budget = "-" if user.budget_usd is None else f"${user.budget_usd:,.2f}"
    status = "admin" if user.is_admin else ("revoked" if user.revoked else "active")
    models = "all" if user.models is None else ",".join(user.models)
    return (
        f"{user.name:<20} {_when(user.created_at_ms):<17} {_when(user.last_used_at_ms):<17} "
        f"{budget:>10} {user.budget_period or '-':<7} {spend:>8}  {status:<8} {models}"
    )


def _when(ms: int | None) -> str:
    if not ms:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000))
