"""`cursor-byok users`, `conversations --user` and `show --user`, run as real
processes on a real SQLite file: a token is printed once and never stored,
revoke and rotate say what they did, and a user's view of the store holds
their conversations alone."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.loop import transition
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import token_id_of, token_matches
from tests.cli.test_cli import cli
from tests.factories import fresh, start


def database_bytes(path: Path) -> bytes:
    """The database file with its write-ahead log, whatever is in them."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_add_prints_the_token_once_and_stores_only_its_hash(tmp_path: Path) -> None:
    database = tmp_path / "team.sqlite3"
    done = cli(
        "users",
        "add",
        "ana",
        "--budget-usd",
        "25",
        "--models",
        "m1, m2",
        "--database",
        str(database),
    )
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert token_id_of(token) is not None and done.stdout.count(token) == 1
    assert token not in done.stderr and "shown this once" in done.stderr
    stored = database_bytes(database)
    secret = token.split("_", 2)[2]  # cbk_<id>_<secret>: the secret may hold "_" itself
    assert token.encode() not in stored and secret.encode() not in stored
    store = SQLiteStore(database)
    user = store.user("ana")
    found = store.token_holder(token_id_of(token) or "")
    store.close()
    assert user is not None and user.models == ("m1", "m2")
    assert (user.budget_usd, user.budget_period) == (25.0, "month")
    assert found is not None and token_matches(token, found[1])
    listed = cli("users", "list", "--database", str(database))
    assert listed.returncode == 0 and token not in listed.stdout
    ana = next(line for line in listed.stdout.splitlines() if line.startswith("ana "))
    assert "$25.00" in ana and "month" in ana and "m1,m2" in ana and "active" in ana
    assert " never " in ana  # not used yet
    header = listed.stdout.splitlines()[0]
    assert "SPEND" in header and listed.stdout.splitlines()[1].startswith("admin ")


def test_revoke_and_rotate(tmp_path: Path) -> None:
    database = str(tmp_path / "team.sqlite3")
    old = cli("users", "add", "bob", "--database", database).stdout.strip()
    revoked = cli("users", "revoke", "bob", "--database", database)
    assert revoked.returncode == 0 and "Revoked user bob" in revoked.stderr
    line = next(
        x
        for x in cli("users", "list", "--database", database).stdout.splitlines()
        if x.startswith("bob ")
    )
    assert "revoked" in line
    rotated = cli("users", "rotate", "bob", "--database", database)
    new = rotated.stdout.strip()
    assert rotated.returncode == 0 and token_id_of(new) is not None and new != old
    store = SQLiteStore(database)
    assert store.token_holder(token_id_of(old) or "") is None
    assert store.token_holder(token_id_of(new) or "") is not None
    store.close()
    assert new.encode() not in database_bytes(Path(database))


def test_mistakes_are_one_line_with_their_exit_code(tmp_path: Path) -> None:
    database = str(tmp_path / "team.sqlite3")
    cli("users", "add", "ana", "--database", database)
    cases = [
        (("users", "add", "ana"), 1, "a user named 'ana' exists already"),
        (("users", "add", "a b"), 2, "a user name is 1 to 64"),
        (("users", "add", "carl", "--period", "week"), 2, "--period needs --budget-usd"),
        (("users", "add", "carl", "--budget-usd", "-3"), 2, "positive amount"),
        (("users", "revoke", "nobody"), 3, "no user 'nobody'"),
        (("users", "rotate", "admin"), 2, "is the administrator"),
    ]
    for args, code, text in cases:
        done = cli(*args, "--database", database)
        assert done.returncode == code and text in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""


def test_a_users_view_holds_their_conversations_alone(tmp_path: Path) -> None:
    database = tmp_path / "team.sqlite3"
    cli("users", "add", "ana", "--database", str(database))
    cli("users", "add", "bob", "--database", str(database))
    store = SQLiteStore(database)
    ana = store.user("ana")
    assert ana is not None
    for key in (f"conv-1.{ana.id}", "conv-admin"):
        store.commit_input("in-1", 0, transition(fresh(key), start("hi")).state.committed, None)
    store.close()
    where = ("--database", str(database))
    others = cli("show", "conv-1", "--user", "bob", *where)
    never = cli("show", "conv-never", "--user", "bob", *where)
    assert others.returncode == never.returncode == 3
    assert others.stderr.replace("conv-1", "ID") == never.stderr.replace("conv-never", "ID")
    assert cli("show", "conv-admin", "--user", "ana", *where).returncode == 3
    mine = cli("show", "conv-1", "--user", "ana", *where)
    assert mine.returncode == 0 and "conversation conv-1:" in mine.stdout
    assert "no conversation" in cli("show", "conv-1", *where).stderr  # not the admin's id
    assert cli("show", f"conv-1.{ana.id}", *where).returncode == 0  # the listed key is
    listing = cli("conversations", "--user", "ana", *where).stdout
    assert "conv-1" in listing and "conv-admin" not in listing
    assert "No conversations of user bob" in cli("conversations", "--user", "bob", *where).stdout
    everyone = cli("conversations", *where).stdout.splitlines()
    assert any(line.startswith("conv-1  ana ") for line in everyone)
    assert any(line.startswith("conv-admin  admin ") for line in everyone)
    assert cli("conversations", "--user", "zed", *where).returncode == 3
