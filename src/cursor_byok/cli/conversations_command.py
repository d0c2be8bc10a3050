"""`cursor-byok conversations` and `show`: what the store holds, read
straight from the database (the operator's view: every user's).

`--user NAME` reads as that user would: their conversations alone, named by
the ids their client knows them by; another user's id is "no conversation",
exactly as an id nobody used.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cursor_byok.cli.base import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, fail
from cursor_byok.cli.terminal import Printer
from cursor_byok.runtime.logsafe import escape_c1, printable
from cursor_byok.store.database import PostgresURL

if TYPE_CHECKING:
    from cursor_byok.store.base import Store, User


def open_for_reading(database: Path | PostgresURL) -> Store | int:
    """The store, or the exit code after saying why there is none."""
    import sqlite3  # noqa: PLC0415

    from cursor_byok.store.sqlite import SQLiteStore  # noqa: PLC0415

    if isinstance(database, PostgresURL):
        from cursor_byok.store.base import StoreError  # noqa: PLC0415
        from cursor_byok.store.opener import open_store  # noqa: PLC0415

        try:
            return open_store(database)
        except StoreError as error:
            return fail(str(error), EXIT_FAILED)
    if not database.exists():
        return fail(f"no database at {database}", EXIT_NOT_FOUND)
    try:
        return SQLiteStore(database)
    except (sqlite3.DatabaseError, OSError) as error:
        return fail(f"cannot read the database {database}: {error}", EXIT_USAGE)


_STATUS_COLOURS = {"final": "green", "failed": "red", "canceled": "yellow"}


def as_user(store: Store, name: str | None) -> User | int | None:
    """The user `--user` names (None: no `--user`, the operator's view of
    everyone's), or the exit code after saying there is no such user."""
    if name is None:
        return None
    user = store.user(name)
    return user if user is not None else fail(f"no user {name!r}", EXIT_NOT_FOUND)


def list_conversations(database: Path | PostgresURL, user_name: str | None, out: TextIO) -> int:
    from cursor_byok.store.owners import client_id_of  # noqa: PLC0415

    store = open_for_reading(database)
    if isinstance(store, int):
        return store
    printer = Printer(out)
    try:
        user = as_user(store, user_name)
        if isinstance(user, int):
            return user
        names = {u.id: u.name for u in store.users()} if user is None else {}
        found = 0
        for summary in store.conversations(None if user is None else user.id):
            found += 1
            status = summary.status
            owner = f"  {printable(names.get(summary.owner, str(summary.owner)))}" if names else ""
            printer.line(
                (printable(client_id_of(summary.conversation_id)), "cyan"),
                owner,
                "  ",
                (f"{status:<15}", _STATUS_COLOURS.get(status)),
                f" {summary.message_count:>5} messages  version {summary.version}",
            )
        if not found:
            whose = f" of user {user.name}" if user is not None else ""
            printer.line(f"No conversations{whose} in {database} yet.")
    finally:
        store.close()
    return EXIT_OK


def show_conversation(
    database: Path | PostgresURL,
    conversation_id: str,
    user_name: str | None,
    as_json: bool,
    out: TextIO,
) -> int:
    """One conversation: by its key (as `conversations` lists it with its
    user), or with `user_name` by the id that user's client knows it by."""
    import json  # noqa: PLC0415

    from cursor_byok.cli.history_lines import message_lines, todo_lines  # noqa: PLC0415
    from cursor_byok.cli.subagent_lines import parent_line, subagent_lines  # noqa: PLC0415
    from cursor_byok.llm.serialize import message_to_json  # noqa: PLC0415
    from cursor_byok.llm.types import AssistantMessage  # noqa: PLC0415
    from cursor_byok.store.owners import owner_of, scoped  # noqa: PLC0415

    store = open_for_reading(database)
    if isinstance(store, int):
        return store
    printer = Printer(out)
    try:
        user = as_user(store, user_name)
        if isinstance(user, int):
            return user
        key = conversation_id if user is None else scoped(user.id, conversation_id)
        loaded = store.load(key)
        if loaded is None:
            return fail(f"no conversation {conversation_id!r}", EXIT_NOT_FOUND)
        state = loaded.state
        if as_json:
            for message in state.messages:
                line = json.dumps(message_to_json(message), ensure_ascii=False)
                print(escape_c1(line), file=out)
            return EXIT_OK
        printer.line(
            f"conversation {printable(conversation_id)}: ",
            (state.status.value, _STATUS_COLOURS.get(state.status.value)),
            f", {len(state.messages)} messages, version {loaded.version}",
        )
        if (parent := parent_line(state)) is not None:
            printer.line(parent)
        resets = set(state.resets)

        def load(child: str) -> Any:
            found = store.load(scoped(owner_of(key), child))
            return found.state if found is not None else None

        for index, message in enumerate(state.messages):
            if index in resets:
                printer.line(f"  --- reset: requests start here (message {index}, a summary) ---")
            for line in (*message_lines(message), *subagent_lines(message, load)):
                printer.line(line)
        printer.line("model calls:")
        for call in store.llm_calls(key):
            printer.line(
                f"  {printable(call.call_id)}  ",
                (f"{call.status.value:<9}", _STATUS_COLOURS.get(call.status.value)),
                f" model {call.model}  {call.message_count} messages  attempts {call.attempts}",
                (f"  error: {printable(call.error)}", "red") if call.error else "",
            )
        usage = [m.usage for m in state.messages if isinstance(m, AssistantMessage)]
        read = sum(u.cache_read for u in usage)
        prompt = sum(u.input + u.cache_read + u.cache_write for u in usage)
        share = f"{read / prompt:.0%}" if prompt else "n/a"
        unpriced = sum(1 for u in usage if not u.cost.priced)
        cost = f"${sum(u.cost.total for u in usage if u.cost.priced):.4f}"
        if unpriced:  # a model without a price: its cost is unknown, not zero
            cost = "unknown" if unpriced == len(usage) else f"{cost} + {unpriced} unpriced"
        printer.line(
            f"usage: input {sum(u.input for u in usage)}, output {sum(u.output for u in usage)}, "
            f"cache read {read}, cache write {sum(u.cache_write for u in usage)} "
            f"(cache hits {share}), cost {cost}"
        )
        for line in todo_lines(state.todos):
            printer.line(line)
    finally:
        store.close()
    return EXIT_OK
